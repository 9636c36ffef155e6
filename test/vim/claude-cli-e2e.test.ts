/**
 * End to end: the whole Claude Code (the newest, against a fake Messages API) in Vim's terminal
 * opened by `:Tandem`, the testkit's whole-CLI scenarios driven by `vimCliDriver`: the diff opens
 * in Vim, an edit there and `:w` write exactly the user's text, `:q` leaves the file as it was;
 * Claude Code in a pane of its own finds Vim by `/ide`; Vim quitting with a diff open leaves
 * Claude Code answered and no lock file. Only the newest Vim runs it (`TANDEM_VIM=newest`; each
 * scenario starts Vim and Claude Code, about 10–40 s).
 */
import { defaultEditor, vimCliDriver, runClaudeScenarios } from '@tandem/testkit';

const newest = defaultEditor('vim').editor?.label === 'newest';
runClaudeScenarios(
  vimCliDriver(),
  !newest && 'Claude Code runs in Vim newest only (TANDEM_VIM=newest), to keep CI short',
  ['accept', 'reject', 'own-pane-by-ide', 'quit-with-diff'],
);
