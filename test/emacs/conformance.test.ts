/**
 * The adapter conformance suite of @tandem/testkit, run on Emacs: Emacs in tmux driven with real
 * keys (the testkit's `emacsAdapterDriver`), judged by the real Gemini CLI and Qwen Code clients.
 */
import { emacsAdapterDriver, runAdapterConformance } from '@tandem/testkit';

runAdapterConformance(emacsAdapterDriver());
