/**
 * This editor cannot run here: its replay (./zed.ts) goes through the adapter conformance
 * suite, sent to a real `tandem lsp` and judged by the real Gemini CLI and Qwen Code clients.
 */
import { replayDriver, runAdapterConformance } from '@tandem/testkit';
import { zed } from './zed.js';

runAdapterConformance(replayDriver(zed));
