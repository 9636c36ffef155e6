/**
 * What a frontend is told when the CLI closes a diff, judged by the real clients: an answer in
 * the terminal (`resolveDiffFromCli`, approved or cancelled alike) says what each CLI writes and
 * whether the user's edits are lost; a withdrawal says nothing is written.
 */
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { realClientIn, RecordingEditor, Sandbox, waitFor, type RealClient } from '@tandem/testkit';
import type { DiffClosing } from '../editor-port.js';
import { startEngine } from '../engine.fixture.js';
import type { Engine } from '../engine.js';

/** Records why each view was closed; the user edited every proposal. */
class ClosingEditor extends RecordingEditor {
  readonly closings = new Map<string, DiffClosing>();

  override async closeDiff(id: string, closing?: DiffClosing): Promise<string> {
    if (closing) this.closings.set(id, closing);
    this.edits.set(id, 'edited by the user\n');
    return super.closeDiff(id);
  }
}

for (const kind of ['gemini', 'qwen'] as const) {
  describe(`${kind}: a diff the CLI closes tells the editor what becomes of the user's edits`, () => {
    let sandbox: Sandbox;
    let editor: ClosingEditor;
    let engine: Engine;
    let client: RealClient;

    before(async () => {
      sandbox = new Sandbox();
      editor = new ClosingEditor();
      engine = await startEngine(sandbox, editor);
      client = await realClientIn(sandbox, kind);
      const state = await client.connect();
      assert.equal(state.status, 'connected', state.details);
    });
    after(async () => {
      await client?.kill();
      await engine?.stop();
      sandbox?.remove();
    });

    for (const outcome of ['accepted', 'rejected'] as const) {
      it(`approved or cancelled in the terminal (${outcome}): the same closing, in the CLI's words`, async () => {
        const path = join(sandbox.workspace, `${outcome}.txt`);
        await writeFile(path, 'before\n');
        const diff = client.openDiff(path, 'proposal\n');
        await diff.opened;
        const [id] = [...editor.shown.keys()].filter(
          (key) => editor.shown.get(key)!.filePath === path,
        );
        await client.resolveDiffFromCli(path, outcome);
        const closing = await waitFor('the view to be closed', () => editor.closings.get(id!));
        assert.equal(closing.reason, 'terminal');
        if (kind === 'gemini') {
          assert.equal(closing.keepsEdits, true);
          assert.match(closing.editedMessage, /If you approved there, it writes your edited text/);
          // What Gemini CLI takes as the text to write: the view's, with the user's edits.
          if (outcome === 'accepted') {
            assert.equal((await diff.result).content, 'edited by the user\n');
          }
        } else {
          assert.equal(closing.keepsEdits, false);
          assert.match(
            closing.editedMessage,
            /Your edits are not written: .*Qwen Code|its own proposal/,
          );
          assert.match(closing.editedMessage, /copy it/);
        }
        assert.equal((await diff.result).status, outcome);
      });
    }

    it('withdrawn by the CLI (closeDiff without suppressing): nothing is written', async () => {
      const path = join(sandbox.workspace, 'withdrawn.txt');
      await writeFile(path, 'before\n');
      const diff = client.openDiff(path, 'proposal\n');
      await diff.opened;
      const [id] = [...editor.shown.keys()].filter(
        (key) => editor.shown.get(key)!.filePath === path,
      );
      await client.closeDiff(path);
      const closing = await waitFor('the view to be closed', () => editor.closings.get(id!));
      assert.equal(closing.reason, 'withdrawn');
      assert.equal(closing.keepsEdits, false);
      assert.match(closing.message, /the file stays as it was/);
    });
  });
}
