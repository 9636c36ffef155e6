/**
 * With eat installed (Debian's elpa-eat, which the editor roots carry), `M-x tandem-run-gemini`
 * runs the whole Gemini CLI in eat, and that CLI connects: an edit it proposes opens as a diff
 * in Emacs, `C-c C-c` accepts it, and the CLI writes the file.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import {
  editorRoots,
  EDITORS,
  editPrompt,
  EmacsSession,
  emacsSkipReason,
  emacsVersion,
  finalText,
  inputPattern,
  lispString,
  missing,
  prepareEmacs,
  Sandbox,
  startCliSession,
  waitFor,
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

test(
  'gemini in eat: tandem-run-gemini picks it; the CLI connects; C-c C-c, and it writes the file',
  { skip: skipEat, timeout: 300_000 },
  async (t) => {
    const original = 'first line\nsecond line\n';
    const proposed = 'first line\nproposed in eat\n';
    const sandbox = new Sandbox();
    const file = path.join(sandbox.workspace, 'notes.txt');
    writeFileSync(file, original);
    const launch = prepareEmacs(sandbox);
    const start = `(progn
      (find-file ${lispString(file)})
      (setq tandem-gemini-command (getenv "TANDEM_TEST_CLI"))
      (call-interactively #'tandem-run-gemini))`;
    const session = await startCliSession({
      cli: 'gemini',
      cwd: sandbox.workspace,
      home: sandbox.home,
      tmpDir: sandbox.tmpDir,
      qwenHome: sandbox.qwenHome,
      edit: { filePath: file, content: proposed },
      // eat on the load path, as a package manager puts it; nothing says to use it.
      command: (command) => [
        'env',
        `TANDEM_TEST_CLI=${command.shellLine}`,
        'TERM=xterm-256color',
        ...launch.command('-L', eat as string, '--eval', start),
      ],
      width: 160,
      height: 45,
      promptAtStart: false,
    });
    const emacs = new EmacsSession(
      sandbox,
      {
        sendKeys: (...keys) => session.sendKeys(...keys),
        type: (text) => session.type(text),
        capture: () => session.screen(),
        ending: async () => undefined,
        stop: () => session.stop(),
      },
      launch.socket,
    );
    t.after(async () => {
      // Quit Emacs first: its sidecar, not in the pane's process group, then cleans up at once.
      await emacs.eval('(kill-emacs)').catch(() => undefined);
      await session.stop();
      sandbox.remove();
    });
    await emacs.ready();
    await waitFor('the CLI in eat-mode', async () =>
      (await emacs.text(
        '(with-current-buffer (window-buffer (selected-window)) (symbol-name major-mode))',
      )) === 'eat-mode'
        ? true
        : undefined,
    );
    await waitFor(
      'Emacs to see the CLI connected',
      async () => ((await emacs.status()).clients.length === 1 ? true : undefined),
      120_000,
    );
    assert.match((await emacs.status()).clients.join(' '), /Gemini/);
    await session.waitForScreen(inputPattern, 120_000);
    await session.submit(editPrompt({ filePath: file, content: proposed }));
    await emacs.waitForDiffs(1, 120_000);
    await emacs.press('C-c', 'C-c');
    await session.waitForScreen((screen) => screen.includes(finalText), 120_000);
    assert.equal(readFileSync(file, 'utf8'), proposed);
  },
);
