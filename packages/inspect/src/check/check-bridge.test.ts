/**
 * `tandem check --interactive` against the real `tandem bridge`, with the test as the editor
 * (the testkit's BridgeEditor) and as the person at it, doing what each prompt asks.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { BridgeEditor, missing, Sandbox, TANDEM } from '@tandem/testkit';

const unbuilt = missing([], existsSync(TANDEM) ? [] : [`${TANDEM} is not built (npm run build)`]);
import { assertPassedEverySection, runInteractiveCheck } from './check-run.fixture.js';

describe('tandem check against tandem bridge', { skip: unbuilt }, () => {
  let sandbox: Sandbox;
  let editor: BridgeEditor;
  const open = new Map<string, { id: string; filePath: string; newContent: string }>();
  const drafts = new Map<string, string>();

  before(async () => {
    sandbox = new Sandbox();
    editor = new BridgeEditor(sandbox.env());
    editor.handle('diff/open', (params) => {
      const diff = params as { id: string; filePath: string; newContent: string };
      open.set(diff.id, diff);
      return {};
    });
    editor.handle('diff/close', (params) => {
      const id = params.id as string;
      const content = drafts.get(id) ?? open.get(id)?.newContent;
      open.delete(id);
      return { content };
    });
    const reply = await editor.request('initialize', {
      protocol: { min: '1.0', max: '1.1' },
      editor: { name: 'reference-editor', displayName: 'Reference Editor', pid: process.pid },
      workspaceFolders: [sandbox.workspace],
    });
    assert.equal(reply.error, undefined, JSON.stringify(reply.error));
  });

  after(async () => {
    await editor.kill();
    sandbox.remove();
  });

  /** The diff the person is asked about: the newest one open. */
  const newest = () => [...open.values()].at(-1)!;

  it('passes every check, the diffs answered by the person at the editor', async () => {
    // The sandbox's environment: this machine is a container, and without it Gemini CLI dials
    // host.docker.internal.
    const run = await runInteractiveCheck(sandbox, async (key, { pressEnter }) => {
      const diff = newest();
      switch (key) {
        case 'accept': {
          const reply = await editor.request('diff/accepted', {
            id: diff.id,
            content: `${diff.newContent}a line the person added\n`,
          });
          assert.equal(reply.error, undefined);
          return;
        }
        case 'reject':
          await editor.request('diff/rejected', { id: diff.id });
          return;
        case 'edit':
          drafts.set(diff.id, `${diff.newContent}an edit left in the editor\n`);
          pressEnter();
          return;
        case 'empty': {
          const refused = await editor.request('diff/accepted', { id: diff.id, content: '' });
          assert.equal(refused.error?.code, -32010, 'the engine refuses an emptied accept');
          await editor.request('diff/rejected', { id: diff.id });
          return;
        }
        case 'quit':
          await editor.request('shutdown', {});
          return;
      }
    });
    assertPassedEverySection(run);
    assert.equal(await editor.exited, 0);
  });
});
