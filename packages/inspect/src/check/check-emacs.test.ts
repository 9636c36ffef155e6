/**
 * `tandem check --interactive` against the Emacs package in a real Emacs (in tmux), the test
 * pressing the keys the person at the editor presses for each prompt.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EmacsSession, emacsSkipReason, lispString, Sandbox, waitFor } from '@tandem/testkit';
import { failures, runCheck } from './check-run.fixture.js';

/** The word in the name of the file each step's diff opens on. */
const FILE_WORD: Record<string, string> = {
  accept: 'accept',
  reject: 'reject',
  edit: 'close',
  empty: 'empty',
  quit: 'quit',
};

describe(
  'tandem check against the Emacs package',
  { skip: emacsSkipReason({ sidecar: true, tmux: true }) },
  () => {
    it('passes every check, the diffs answered with Emacs keys', async (t) => {
      const sandbox = new Sandbox();
      const emacs = await EmacsSession.start(sandbox, { tandem: true });
      t.after(async () => {
        await emacs.close();
        sandbox.remove();
      });

      /** Shows the proposal of the diff whose file name holds `word`, as `C-x b` does. */
      const showProposal = async (word: string) => {
        const view = await waitFor(`the diff view of ${word}`, async () =>
          (await emacs.views()).find((v) => v.path.includes(word)),
        );
        const name = await emacs.text(
          `(buffer-name (tandem-diff-view-proposal (cl-find ${lispString(view.path)} (tandem-diffs-views (tandem-session-diffs tandem--session)) :key #'tandem-diff-view-path :test #'equal)))`,
        );
        const current = await emacs.text('(buffer-name (window-buffer (selected-window)))');
        if (current === name) return;
        await emacs.press('C-g', 'C-x', 'b');
        await emacs.type(name);
        await emacs.press('Enter');
      };

      const run = await runCheck(
        ['--cwd', sandbox.workspace, '--interactive', '--time-limit', '60', '--json'],
        {
          env: sandbox.env({ REMOTE_CONTAINERS: 'true' }),
          cwd: sandbox.workspace,
          person: async (key, { pressEnter }) => {
            await showProposal(FILE_WORD[key]!);
            switch (key) {
              case 'accept':
                await emacs.press('M->');
                await emacs.type('a line the person added\n');
                return emacs.press('C-c', 'C-c');
              case 'reject':
                return emacs.press('C-c', 'C-k');
              case 'edit':
                await emacs.press('M->');
                await emacs.type('an edit left in the editor\n');
                await emacs.settled();
                return pressEnter();
              case 'empty':
                await emacs.press('C-x', 'h', 'C-w', 'C-c', 'C-c');
                await waitFor('the refusal', async () =>
                  /empty/i.test(
                    await emacs.text('(with-current-buffer (messages-buffer) (buffer-string))'),
                  )
                    ? true
                    : undefined,
                );
                return emacs.press('C-c', 'C-k');
              case 'quit':
                await emacs.keys('C-x', 'C-c');
                await emacs.waitForExit();
                return;
            }
          },
        },
      );
      assert.deepEqual(failures(run.report), [], run.stderr);
      assert.equal(run.status, 0);
      assert.equal(run.report?.counts.skip, 0);
    });
  },
);
