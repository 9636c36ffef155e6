/**
 * With eat installed (Debian's elpa-eat, which the editor roots carry), `M-x tandem-run-gemini`
 * runs the whole Gemini CLI in eat, and that CLI connects: an edit it proposes opens as a diff
 * in Emacs, `C-c C-c` accepts it, and the CLI writes the file (the testkit's whole-CLI accept
 * scenario, driven by `emacsCliDriver` in eat).
 */
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import {
  editorRoots,
  EDITORS,
  emacsCliDriver,
  emacsSkipReason,
  emacsVersion,
  missing,
  runCliScenarios,
} from '@tandem/testkit';

const skip = emacsSkipReason({ sidecar: true, tmux: true });

/** Where Debian puts eat, inside the root of the Emacs under test. */
const ELPA = '/usr/share/emacs/site-lisp/elpa';

/** eat's folder as that Emacs sees it, or undefined where Debian has no elpa-eat (Debian 12). */
function eatDir(): string | undefined {
  const { label } = emacsVersion();
  const from = EDITORS.emacs.versions.find((version) => version.label === label)?.from;
  if (!from || from === 'system') return undefined;
  const elpa = path.join(editorRoots(), from, ELPA);
  const found = existsSync(elpa) && readdirSync(elpa).find((name) => name.startsWith('eat-'));
  return found ? path.join(ELPA, found) : '';
}

const eat = skip ? '' : eatDir();
const skipEat =
  skip ||
  (eat === undefined && noEat('Debian 12 has no elpa-eat; TANDEM_EMACS=newest tests eat')) ||
  (eat === '' &&
    missing([], [`${emacsVersion().name} has no eat; run sudo scripts/editor-roots.sh`]));

/** Says why, for a version Debian has no eat for (nothing to install: not a CI failure). */
function noEat(reason: string): string {
  console.log(`# skipping: ${reason}`);
  return reason;
}

runCliScenarios(
  {
    ...emacsCliDriver({ name: 'eat', mode: 'eat-mode', loadPath: eat as string }),
    skip: skipEat,
  },
  { scenarios: ['accept'], clis: ['gemini'] },
);
