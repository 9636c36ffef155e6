/**
 * End to end: the whole Gemini CLI and Qwen Code (against fake models) in Vim's :terminal and in
 * a separate tmux pane, the testkit's whole-CLI scenarios driven by `vimCliDriver`: accept and
 * reject with both CLIs on the newest Vim, every scenario with one CLI on it and on 9.0 (`runCliMatrix`).
 */
import { defaultEditor, runCliMatrix, vimCliDriver } from '@tandem/testkit';

runCliMatrix(vimCliDriver(), defaultEditor('vim').editor?.label, false);
