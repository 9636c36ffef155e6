/**
 * Emacs's own LSP client, eglot (built in since Emacs 29), with `tandem lsp` and Tandem's
 * package not started, through the adapter conformance suite of @tandem/testkit, judged by the
 * real clients. Emacs 28 has no eglot built in: this file says so and runs nothing there.
 */
import assert from 'node:assert/strict';
import { readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import {
  defaultEditor,
  eglotDriver,
  realClientIn,
  runAdapterConformance,
  runProposalNames,
  Sandbox,
  waitFor,
  type EglotUnderTest,
} from '@tandem/testkit';

const emacs = defaultEditor('emacs').editor;
const tooOld =
  emacs !== undefined &&
  Number(emacs.version.split('.')[0]) < 29 &&
  `${emacs.name} has no eglot built in (Emacs 29+): TANDEM_EMACS=newest runs this file`;

if (tooOld) {
  console.log(`# skipping: ${tooOld}`);
  test(`${emacs?.name}'s eglot`, { skip: tooOld }, () => undefined);
} else {
  const driver = eglotDriver(emacs);
  runAdapterConformance(driver);
  runProposalNames(driver, 'C-x C-s');

  test(
    `${driver.name}: no local variable of a proposal applies, though Emacs is told to apply all`,
    { skip: driver.skip },
    async () => {
      const sandbox = new Sandbox();
      const canary = (name: string) => path.join(sandbox.root, `PWNED-${name}`);
      const evil = (name: string) => `(write-region "" nil ${JSON.stringify(canary(name))})`;
      // A folder above every proposal, as any user of a shared temporary folder can plant one.
      writeFileSync(
        path.join(sandbox.tmpDir, '.dir-locals.el'),
        `((nil . ((fill-column . 14) (eval . ${evil('tmp-dir-locals')}))))\n`,
      );
      const proposals: Record<string, string> = {
        'prop-line.txt': `-*- mode: emacs-lisp; fill-column: 11; eval: ${evil('prop-line')} -*-\n`,
        'trailer.txt': `text\n\nLocal Variables:\nfill-column: 12\neval: ${evil('trailer')}\nEnd:\n`,
        '.dir-locals.el': `((nil . ((fill-column . 13) (eval . ${evil('own-dir-locals')}))))\n`,
      };
      const editor = (await driver.start(sandbox)) as EglotUnderTest;
      const gemini = await realClientIn(sandbox, 'gemini');
      try {
        assert.equal((await gemini.connect()).status, 'connected');
        // A user who lets every local variable apply without asking.
        await editor.json(`(setq enable-local-variables :all)`);
        const applied: string[] = [];
        for (const [name, text] of Object.entries(proposals)) {
          const filePath = path.join(sandbox.workspace, name);
          const diff = gemini.openDiff(filePath, text);
          await diff.opened;
          await waitFor(`the proposal of ${name}`, async () =>
            (await editor.diffViews()).some((view) => view.filePath === filePath)
              ? true
              : undefined,
          );
          const state = await editor.json<{ mode: string; fillColumn: number }>(
            `(with-current-buffer
                 (seq-find (lambda (b) (let ((file (buffer-file-name b)))
                                         (and file (string-match-p "/tandem-lsp-" file)
                                              (equal (file-name-nondirectory file)
                                                     ${JSON.stringify(name)}))))
                           (buffer-list))
               (list :mode (symbol-name major-mode) :fillColumn fill-column))`,
          );
          if (state.mode === 'emacs-lisp-mode') applied.push(`${name}: mode: emacs-lisp`);
          if (state.fillColumn !== 70) applied.push(`${name}: fill-column ${state.fillColumn}`);
          await editor.reject(filePath, 'C-x k');
          assert.deepEqual(await diff.result, { status: 'rejected' });
        }
        const ran = readdirSync(sandbox.root).filter((entry) => entry.startsWith('PWNED-'));
        assert.deepEqual([...applied, ...ran], [], 'local variables of proposals applied');
      } finally {
        await gemini.kill();
        await editor.close();
        sandbox.remove();
      }
    },
  );
}
