/**
 * `tandem check --interactive` against the VS Code extension in real VS Code (code-server,
 * driven through Chromium), the test clicking and typing what the person at the editor would for
 * each prompt.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CodeServer, codeServerSkipReason, Sandbox, waitUntil } from '@tandem/testkit';
import { failures, runCheck } from './check-run.fixture.js';

/** The word in the name of the file each step's diff opens on (and so in its tab's title). */
const FILE_WORD: Record<string, string> = {
  accept: 'accept',
  reject: 'reject',
  edit: 'close',
  empty: 'empty',
  quit: 'quit',
};

/** Deletes all the text of the proposed (right) side of the active diff editor, as a person does. */
async function emptyProposal(vscode: CodeServer): Promise<void> {
  const modified = vscode.page.locator(
    '.editor-group-container.active .monaco-diff-editor .editor.modified',
  );
  await modified.locator('.view-lines').click();
  await vscode.page.keyboard.press('Control+A');
  await vscode.page.keyboard.press('Delete');
  await waitUntil(
    'the proposal to be empty',
    async () => (await modified.locator('.view-lines').innerText()).trim() === '',
  );
}

describe(
  'tandem check against the VS Code extension',
  { skip: codeServerSkipReason(), timeout: 600_000 },
  () => {
    it('passes every check, the diffs answered in the diff editor', async (t) => {
      const sandbox = new Sandbox('tandem-check-vscode-');
      const vscode = await CodeServer.start(sandbox);
      t.after(async () => {
        await vscode.stop();
        sandbox.remove();
      });
      await vscode.waitForDiscovery();
      const run = await runCheck(
        ['--cwd', sandbox.workspace, '--interactive', '--time-limit', '120', '--json'],
        {
          env: sandbox.env({ REMOTE_CONTAINERS: 'true' }),
          cwd: sandbox.workspace,
          person: async (key, { pressEnter }) => {
            await vscode.waitForDiff(FILE_WORD[key]!);
            switch (key) {
              case 'accept':
                await vscode.typeInProposal('a line the person added');
                return vscode.clickTitleAction('Accept the Proposed Edit');
              case 'reject':
                return vscode.clickTitleAction('Reject the Proposed Edit');
              case 'edit':
                await vscode.typeInProposal('an edit left in the editor');
                // The person takes a moment to reach the terminal; the test waits for the one
                // thing that moment guarantees: the extension host has the edit.
                await vscode.extensionHostCaughtUp();
                return pressEnter();
              case 'empty': {
                await emptyProposal(vscode);
                await vscode.clickTitleAction('Accept the Proposed Edit');
                await vscode.page
                  .locator('.notification-toast', { hasText: /empty/i })
                  .waitFor({ timeout: 60_000 });
                await vscode.dismissNotifications();
                return vscode.clickTitleAction('Reject the Proposed Edit');
              }
              case 'quit':
                // Quitting VS Code's server, as a person stopping code-server does.
                return vscode.terminate();
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
