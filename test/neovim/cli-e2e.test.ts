/**
 * End to end: the whole Gemini CLI and Qwen Code (against fake models) in Neovim's terminal and
 * in a separate tmux pane, the testkit's whole-CLI scenarios driven by `neovimCliDriver`, on the
 * oldest Neovim and the newest.
 */
import { editorVersions, neovimCliDriver, runCliScenarios } from '@tandem/testkit';

for (const nvim of editorVersions('nvim', ['0.7', 'newest']))
  runCliScenarios(neovimCliDriver(nvim));
