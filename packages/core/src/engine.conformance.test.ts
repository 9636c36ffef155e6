/**
 * The real clients are the judge: Gemini CLI's and Qwen Code's own `IdeClient`s, found through
 * discovery alone (no IDE variables, TERM_PROGRAM unset), against a real engine.
 */
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { realClientIn, RecordingEditor, Sandbox, type RealClient } from '@tandem/testkit';
import { startEngine } from './engine.fixture.js';
import type { Engine } from './engine.js';

const until = async (condition: () => boolean, what: string, ms = 10_000) => {
  const end = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
};

for (const kind of ['gemini', 'qwen'] as const) {
  describe(`${kind}: the real client against the engine`, () => {
    let sandbox: Sandbox;
    let editor: RecordingEditor;
    let engine: Engine;
    let client: RealClient;
    const file = (name: string) => join(sandbox.workspace, name);

    before(async () => {
      sandbox = new Sandbox();
      for (let n = 0; n < 12; n++) await writeFile(file(`f${n}.txt`), `file ${n}\n`);
      editor = new RecordingEditor();
      engine = await startEngine(sandbox, editor, { sessionGraceMs: 300 });
      client = await realClientIn(sandbox, kind);
    });

    after(async () => {
      await client?.kill();
      await engine?.stop();
      await sandbox?.remove();
    });

    it('finds the editor through discovery alone and connects with diffing enabled', async () => {
      assert.deepEqual(client.detectedIde, { name: 'test-editor', displayName: 'Test Editor' });
      const state = await client.connect();
      assert.equal(state.status, 'connected', state.details);
      assert.equal(state.diffingEnabled, true);
      await until(() => editor.clients.length === 1, 'the editor to see the client');
      assert.equal(editor.clients[0]!.name, kind === 'gemini' ? 'Gemini CLI' : 'Qwen Code');
    });

    it('receives the context already trimmed as the client trims it', async () => {
      for (let n = 0; n < 12; n++) engine.fileOpened(file(`f${n}.txt`));
      engine.fileOpened(file('not-on-disk.txt'));
      const selection = 'y'.repeat(20_000);
      engine.cursorChanged(file('f4.txt'), 3, 7, selection);
      const context = await client.waitForContext(
        (c) => c?.workspaceState?.openFiles?.[0]?.path === file('f4.txt'),
      );
      const files = context!.workspaceState!.openFiles!;
      assert.equal(files.length, 10);
      assert.ok(!files.some((f) => f.path.endsWith('not-on-disk.txt')));
      const active = files[0]!;
      assert.equal(active.isActive, true);
      assert.deepEqual(active.cursor, { line: 3, character: 7 });
      assert.equal(active.selectedText!.length, 16_384);
      assert.ok(active.selectedText!.endsWith('... [TRUNCATED]'));
      assert.ok(!active.selectedText!.includes('[TRUNCATED]...'), 'trimmed once, not twice');
      assert.ok(files.slice(1).every((f) => !f.isActive && !f.cursor && !f.selectedText));
    });

    it('openDiff → accepted with the content edited in the editor', async () => {
      const target = file('f1.txt');
      const diff = client.openDiff(target, 'proposed\n');
      await diff.opened;
      const shown = editor.diffFor(target)!;
      assert.equal(shown.oldContent, 'file 1\n');
      assert.equal(shown.newContent, 'proposed\n');
      engine.diffAccepted(shown.id, 'proposed, then edited\n');
      assert.deepEqual(await diff.result, {
        status: 'accepted',
        content: 'proposed, then edited\n',
      });
    });

    it('openDiff → rejected; a new file is shown with no old content', async () => {
      const target = file('new-file.txt');
      const diff = client.openDiff(target, 'brand new\n');
      await diff.opened;
      const shown = editor.diffFor(target)!;
      assert.equal(shown.oldContent, null);
      engine.diffRejected(shown.id);
      assert.equal((await diff.result).status, 'rejected');
    });

    it('echoes the path string byte for byte', async () => {
      const target = `${sandbox.workspace}/./f2.txt`;
      const diff = client.openDiff(target, 'x\n');
      await diff.opened;
      engine.diffAccepted(editor.diffFor(target)!.id, 'x\n');
      assert.equal((await diff.result).status, 'accepted');
    });

    it('closeDiff with suppressNotification returns the editor’s text and sends nothing', async () => {
      const target = file('f3.txt');
      const diff = client.openDiff(target, 'from the model\n');
      await diff.opened;
      const shown = editor.diffFor(target)!;
      editor.edits.set(shown.id, 'from the model, edited by the user\n');
      const content = await client.closeDiff(target, { suppressNotification: true });
      assert.equal(content, 'from the model, edited by the user\n');
      assert.ok(editor.closed.includes(shown.id));
      const outcome = await Promise.race([
        diff.result.then(() => 'notified'),
        new Promise((resolve) => setTimeout(() => resolve('nothing sent'), 500)),
      ]);
      assert.equal(outcome, 'nothing sent');
      // The client approves in its terminal: it resolves its own pending diff.
      await client.resolveDiffFromCli(target, 'accepted');
      assert.equal((await diff.result).status, 'accepted');
    });

    it('closeDiff without suppressNotification tells the client it was rejected', async () => {
      const target = file('f5.txt');
      const diff = client.openDiff(target, 'to be closed\n');
      await diff.opened;
      await client.closeDiff(target);
      assert.equal((await diff.result).status, 'rejected');
    });

    it('reports a diff the editor cannot show as an error, with the reason', async () => {
      editor.refuse = 'the buffer is locked';
      try {
        const diff = client.openDiff(file('f6.txt'), 'nope\n');
        await assert.rejects(diff.opened, /the buffer is locked/);
        await assert.rejects(diff.result, /the buffer is locked/);
      } finally {
        editor.refuse = undefined;
      }
      const diff = client.openDiff(file('f6.txt'), 'next one works\n');
      await diff.opened;
      engine.diffRejected(editor.diffFor(file('f6.txt'))!.id);
      assert.equal((await diff.result).status, 'rejected');
    });

    it('closes the diffs of a client that goes away, in the editor', async () => {
      const second = await realClientIn(sandbox, kind);
      assert.equal((await second.connect()).status, 'connected');
      const target = file('f7.txt');
      await second.openDiff(target, 'abandoned\n').opened;
      const shown = [...editor.shown.values()].filter((d) => d.filePath === target).at(-1)!;
      await second.kill();
      await until(() => editor.closed.includes(shown.id), 'the abandoned diff to close');
      await until(() => editor.clients.length === 1, 'the editor to see the client leave');
    });
  });
}

describe('Gemini and Qwen at once', () => {
  let sandbox: Sandbox;
  let engine: Engine;
  const editor = new RecordingEditor();
  const clients: RealClient[] = [];

  before(async () => {
    sandbox = new Sandbox();
    await writeFile(join(sandbox.workspace, 'shared.txt'), 'shared\n');
    engine = await startEngine(sandbox, editor);
    clients.push(await realClientIn(sandbox, 'gemini'), await realClientIn(sandbox, 'qwen'));
  });

  after(async () => {
    await Promise.all(clients.map((c) => c.kill()));
    await engine.stop();
    await sandbox.remove();
  });

  it('each gets its own diff of the same file, and both get the context', async () => {
    const [gemini, qwen] = clients as [RealClient, RealClient];
    for (const client of clients) assert.equal((await client.connect()).status, 'connected');
    const target = join(sandbox.workspace, 'shared.txt');
    engine.fileFocused(target);
    for (const client of clients) {
      await client.waitForContext((c) => c?.workspaceState?.openFiles?.[0]?.path === target);
    }
    const fromGemini = gemini.openDiff(target, 'gemini says\n');
    const fromQwen = qwen.openDiff(target, 'qwen says\n');
    await Promise.all([fromGemini.opened, fromQwen.opened]);
    const byContent = (text: string) =>
      [...editor.shown.values()].find((d) => d.newContent === text)!;
    assert.notEqual(
      byContent('gemini says\n').client.sessionId,
      byContent('qwen says\n').client.sessionId,
    );
    engine.diffRejected(byContent('qwen says\n').id);
    engine.diffAccepted(byContent('gemini says\n').id, 'gemini says, edited\n');
    assert.deepEqual(await fromGemini.result, {
      status: 'accepted',
      content: 'gemini says, edited\n',
    });
    assert.equal((await fromQwen.result).status, 'rejected');
  });
});

for (const kind of ['gemini', 'qwen'] as const) {
  describe(`${kind}: an engine that stops with a diff open`, () => {
    it('rejects the diff, and the reconnected client diffs again with the next engine', async () => {
      const sandbox = new Sandbox();
      const editor = new RecordingEditor();
      let engine = await startEngine(sandbox, editor);
      const client = await realClientIn(sandbox, kind);
      try {
        assert.equal((await client.connect()).status, 'connected');
        const target = join(sandbox.workspace, 'pending.txt');
        const pending = client.openDiff(target, 'left open\n');
        await pending.opened;
        await engine.stop();
        assert.equal((await pending.result).status, 'rejected');
        const files = [...engine.discoveryFiles];
        assert.deepEqual(files, []);

        engine = await startEngine(sandbox, editor);
        assert.equal((await client.connect()).status, 'connected');
        const next = client.openDiff(target, 'after the restart\n');
        await next.opened;
        engine.diffAccepted([...editor.shown.values()].at(-1)!.id, 'after the restart\n');
        assert.equal((await next.result).status, 'accepted');
      } finally {
        await client.kill();
        await engine.stop();
        await sandbox.remove();
      }
    });
  });
}
