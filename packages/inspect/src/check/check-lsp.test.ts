/**
 * `tandem check --interactive` against the real `tandem lsp`, with the test as the editor's LSP
 * client (the testkit's LspEditor, which opens each proposal it is shown) and as the person at
 * it: saving a proposal accepts, closing it rejects, `shutdown` and `exit` quit.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { LspEditor, missing, Sandbox, TANDEM, uriOf, waitFor } from '@tandem/testkit';
import { assertPassedEverySection, runInteractiveCheck } from './check-run.fixture.js';

const unbuilt = missing([], existsSync(TANDEM) ? [] : [`${TANDEM} is not built (npm run build)`]);

describe('tandem check against tandem lsp', { skip: unbuilt }, () => {
  let sandbox: Sandbox;
  let editor: LspEditor;

  before(async () => {
    sandbox = new Sandbox();
    editor = new LspEditor({ env: sandbox.env(), cwd: sandbox.workspace });
    await editor.initialize({
      clientInfo: { name: 'Reference LSP Editor' },
      workspaceFolders: [{ uri: uriOf(sandbox.workspace), name: 'workspace' }],
      capabilities: { general: { positionEncodings: ['utf-16'] } },
    });
  });

  after(async () => {
    await editor.kill();
    sandbox.remove();
  });

  /** The proposal the person is asked about: the newest one shown and open. */
  const newest = () =>
    waitFor('the proposal open in the editor', () => {
      const uri = editor.shownDocuments.at(-1)?.uri;
      return uri !== undefined && editor.documents.has(uri) ? uri : undefined;
    });

  it('passes every check, the diffs answered by the person at the editor', async () => {
    const run = await runInteractiveCheck(sandbox, async (key, { pressEnter }) => {
      const uri = await newest();
      const text = editor.documents.get(uri)?.text ?? '';
      switch (key) {
        case 'accept':
          await editor.edit(uri, `${text}a line the person added\n`);
          await editor.save(uri);
          await editor.close(uri);
          return;
        case 'reject':
          await editor.close(uri);
          return;
        case 'edit':
          await editor.edit(uri, `${text}an edit left in the editor\n`);
          pressEnter();
          return;
        case 'empty': {
          const before = editor.messages.length;
          await editor.edit(uri, '');
          await editor.save(uri);
          await waitFor('the refusal', () =>
            editor.messages.slice(before).some((m) => /empty/i.test(m)) ? true : undefined,
          );
          await editor.close(uri);
          return;
        }
        case 'quit':
          await editor.connection.sendRequest('shutdown');
          await editor.connection.sendNotification('exit');
          return;
      }
    });
    assertPassedEverySection(run);
    assert.equal(await editor.exited, 0);
  });
});
