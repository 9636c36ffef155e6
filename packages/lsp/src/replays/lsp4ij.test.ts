/**
 * This editor cannot run here: its replay (./lsp4ij.ts) goes through the adapter conformance
 * suite, sent to a real `tandem lsp` and judged by the real Gemini CLI and Qwen Code clients.
 */
import { replayDriver, runAdapterConformance } from '@tandem/testkit';
import { lsp4ij } from './lsp4ij.js';

runAdapterConformance(replayDriver(lsp4ij));
