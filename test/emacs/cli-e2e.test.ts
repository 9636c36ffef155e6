/**
 * End to end: the whole Gemini CLI and Qwen Code (against fake models) in an Emacs terminal
 * buffer (`M-x tandem-run-gemini`, `M-x tandem-run-qwen`) and in a separate tmux pane, the
 * testkit's whole-CLI scenarios driven by `emacsCliDriver` (accept and reject with both CLIs on
 * the newest Emacs, every scenario with one CLI on it and on 28.2: `runCliMatrix`); and in vterm, which
 * `tandem-run-gemini` picks when it is on Emacs' load path.
 */
import { existsSync } from 'node:fs';
import { defaultEditor, emacsCliDriver, runCliMatrix, runCliScenarios } from '@tandem/testkit';

/** Where Debian's elpa-vterm puts vterm, for the system's Emacs. */
const VTERM = '/usr/share/emacs/site-lisp/elpa/vterm-0.0.2';

const label = defaultEditor('emacs').editor?.label;
runCliMatrix(emacsCliDriver(), label, false);

// vterm is Debian 12's package, for the system's Emacs; the newer Emacs roots have none.
if (label === '28.2') {
  const vterm = emacsCliDriver({ name: 'vterm', mode: 'vterm-mode', loadPath: VTERM });
  runCliScenarios(
    { ...vterm, skip: vterm.skip || missingVterm() },
    { scenarios: ['accept'], clis: ['gemini'] },
  );
} else {
  console.log('# vterm: tested with the system Emacs only (Debian 12 packages it)');
}

function missingVterm(): string | false {
  if (existsSync(VTERM)) return false;
  if (process.env.CI) throw new Error(`${VTERM} is missing: CI installs elpa-vterm`);
  console.log('# skipping: elpa-vterm is not installed');
  return 'elpa-vterm is not installed';
}
