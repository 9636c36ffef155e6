/**
 * End to end: the whole Gemini CLI and Qwen Code (against fake models) in Neovim's terminal and
 * in a separate tmux pane, the testkit's whole-CLI scenarios driven by `neovimCliDriver`: accept
 * and reject with both CLIs on the newest Neovim, every scenario with one CLI on it and on 0.7
 * (`runCliMatrix`; the CLIs take the turns Vim 9.0 and Emacs 28.2 do not).
 */
import { editorVersions, neovimCliDriver, runCliMatrix } from '@tandem/testkit';

for (const nvim of editorVersions('nvim', ['0.7', 'newest']))
  runCliMatrix(neovimCliDriver(nvim), nvim.label, true);
