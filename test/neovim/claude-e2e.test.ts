/**
 * End to end: the whole Claude Code (the newest, against a fake Messages API) in a terminal of
 * the newest Neovim, the testkit's whole-CLI scenarios driven by `neovimCliDriver`: the diff opens
 * in Neovim, an edit there and `:w` write exactly the user's text, `:q` leaves the file as it was.
 * Only the newest Neovim runs it (each scenario starts Neovim and Claude Code, about 10–20 s).
 */
import {
  claudeCodeMissing,
  editorVersions,
  missing,
  neovimCliDriver,
  runCliScenarios,
} from '@tandem/testkit';

const claudeSkip = missing([], claudeCodeMissing('newest'));
for (const nvim of editorVersions('nvim', ['newest'])) {
  const driver = neovimCliDriver(nvim);
  runCliScenarios(
    { ...driver, skip: driver.skip || claudeSkip },
    { scenarios: ['accept', 'reject'], clis: ['claude'] },
  );
}
