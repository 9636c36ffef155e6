/**
 * End to end: the whole Claude Code (the newest, against a fake Messages API) in an Emacs
 * terminal buffer started by `M-x tandem-run-claude`, the testkit's whole-CLI scenarios driven by
 * `emacsCliDriver`: the diff opens in Emacs, an edit there and C-c C-c write exactly the user's
 * text, C-c C-k leaves the file as it was; Claude Code in a pane of its own, connected by
 * `tandem env`'s `CLAUDE_CODE_SSE_PORT`, approved in its terminal, and Emacs quitting with a diff
 * open. Only the newest Emacs runs it (`TANDEM_EMACS=newest`; each scenario starts Emacs and
 * Claude Code, about 10–40 s).
 */
import { defaultEditor, emacsCliDriver, runClaudeScenarios } from '@tandem/testkit';

const newest = defaultEditor('emacs').editor?.label === 'newest';
runClaudeScenarios(
  emacsCliDriver(),
  !newest && 'Claude Code runs in Emacs newest only (TANDEM_EMACS=newest), to keep CI short',
  ['accept', 'reject', 'approve-in-cli', 'quit-with-diff'],
);
