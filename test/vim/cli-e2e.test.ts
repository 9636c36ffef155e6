/**
 * End to end: the whole Gemini CLI and Qwen Code (against fake models) in Vim's :terminal and in
 * a separate tmux pane, the testkit's whole-CLI scenarios driven by `vimCliDriver`.
 */
import { runCliScenarios, vimCliDriver } from '@tandem/testkit';

runCliScenarios(vimCliDriver());
