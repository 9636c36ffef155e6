/**
 * End to end: the whole Claude Code (the newest, against a fake Messages API) in a terminal of
 * the newest Neovim, the testkit's whole-CLI scenarios driven by `neovimCliDriver`: the diff opens
 * in Neovim, an edit there and `:w` write exactly the user's text, `:q` leaves the file as it was;
 * approved or cancelled in Claude's terminal, the view closes and Neovim says what became of the
 * file. Claude Code 2.1.110, in a pane of its own, started as a user starts it, and Neovim
 * quitting with its diff open. Only the newest Neovim runs it (each scenario starts Neovim and
 * Claude Code, about 10–40 s).
 */
import { editorVersions, neovimCliDriver, runClaudeScenarios } from '@tandem/testkit';

for (const nvim of editorVersions('nvim', ['newest'])) {
  runClaudeScenarios(neovimCliDriver(nvim), false, [
    'accept',
    'reject',
    'approve-in-cli',
    'cancel-in-cli',
  ]);
  // The oldest Claude Code, started without --permission-mode: its default mode asks, so the
  // diff opens; then Neovim quits with it open.
  runClaudeScenarios(neovimCliDriver(nvim), false, ['quit-with-diff'], 'oldest');
  // `:Tandem claude` as the plugin ships it: Claude Code asks, so its edits open as diffs.
  runClaudeScenarios(neovimCliDriver(nvim, { byCommand: true }), false);
}
