/**
 * This editor cannot run here: its replay (./sublime-text.ts) goes through the adapter conformance
 * suite, sent to a real `tandem lsp` and judged by the real Gemini CLI and Qwen Code clients.
 */
import { replayDriver, runAdapterConformance } from '@tandem/testkit';
import { sublimeText } from './sublime-text.js';

runAdapterConformance(replayDriver(sublimeText));
