/**
 * The reference test of `tandem bridge`: a test program drives the sidecar as an editor would,
 * while the real Gemini CLI and Qwen Code clients connect to it through discovery alone.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFile, stat, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  BridgeEditor,
  ClaudeWire,
  realClientIn,
  Sandbox,
  waitFor,
  type BridgeMessage,
  type RealClient,
} from '@tandem/testkit';

function sandboxEnv(sandbox: Sandbox): NodeJS.ProcessEnv {
  return {
    ...process.env,
    TMPDIR: sandbox.tmpDir,
    QWEN_HOME: sandbox.qwenHome,
    HOME: sandbox.home,
  };
}

function initializeParams(
  sandbox: Sandbox,
  pid = process.pid,
  protocol: unknown = { min: '1.0', max: '1.3' },
) {
  return {
    protocol,
    editor: { name: 'reference-editor', displayName: 'Reference Editor', version: '1.0', pid },
    workspaceFolders: [sandbox.workspace],
  };
}

async function gone(path: string) {
  await assert.rejects(stat(path), { code: 'ENOENT' }, `${path} should be removed`);
}

describe('tandem bridge with the real clients connected', () => {
  let sandbox: Sandbox;
  let editor: BridgeEditor;
  let gemini: RealClient;
  let qwen: RealClient;
  let discoveryFiles: string[];
  const diffs = new Map<string, Record<string, unknown>>();
  const texts = new Map<string, string>();
  const file = (name: string) => join(sandbox.workspace, name);
  /** The `diff/outcome` for a diff: seconds after its close, once the engine watched the file. */
  const outcomeOf = (id: string): Promise<BridgeMessage> =>
    waitFor(
      `diff/outcome of ${id}`,
      () => editor.received.find((m) => m.method === 'diff/outcome' && m.params!.id === id),
      60_000,
    );

  before(async () => {
    sandbox = new Sandbox();
    await writeFile(file('a.ts'), 'export const a = 1;\n');
    await writeFile(file('b.ts'), 'export const b = 2;\n');
    editor = new BridgeEditor(sandboxEnv(sandbox));
    editor.handle('diff/open', (params) => {
      diffs.set(params.id as string, params);
      return {};
    });
    editor.handle('diff/close', (params) => {
      const id = params.id as string;
      return { content: texts.get(id) ?? diffs.get(id)?.newContent };
    });
    const reply = await editor.request('initialize', initializeParams(sandbox));
    assert.equal(reply.error, undefined, JSON.stringify(reply.error));
    const result = reply.result as {
      protocol: unknown;
      capabilities: unknown;
      port: number;
      env: Record<string, string>;
      discoveryFiles: string[];
      warnings: { code: string; message: string; fix: string }[];
      limits: unknown;
    };
    assert.equal(result.protocol, '1.3');
    // What the CLIs keep of a selection: an adapter need read no more.
    assert.deepEqual(result.limits, { selectedText: 16384 });
    // The sandbox's CLIs have IDE mode off: the editor learns it at once, with the fix.
    assert.ok(result.warnings.some((w) => w.code === 'ide-mode-off' && /\/ide enable/.test(w.fix)));
    assert.deepEqual(result.capabilities, {
      diffAnswerReplies: true,
      clientChanges: true,
      mentions: true,
    });
    discoveryFiles = result.discoveryFiles;
    assert.equal(result.env.QWEN_CODE_IDE_SERVER_PORT, String(result.port));
    gemini = await realClientIn(sandbox, 'gemini');
    qwen = await realClientIn(sandbox, 'qwen');
  });

  after(async () => {
    await Promise.all([gemini?.kill(), qwen?.kill(), editor?.kill()]);
    await sandbox.remove();
  });

  it('both clients connect, named by the editor, and the editor is told', async () => {
    for (const client of [gemini, qwen]) {
      assert.equal(client.detectedIde?.displayName, 'Reference Editor');
      const state = await client.connect();
      assert.equal(state.status, 'connected', state.details);
      assert.equal(state.diffingEnabled, true);
    }
    await editor.waitFor(
      (m) => m.method === 'status' && (m.params!.clients as unknown[]).length === 2,
      'a status with two clients',
    );
  });

  it('context events reach both clients', async () => {
    editor.notify('file/opened', { path: file('a.ts') });
    editor.notify('file/opened', { path: file('b.ts') });
    editor.notify('file/focused', { path: file('b.ts') });
    editor.notify('cursor/changed', {
      path: file('b.ts'),
      line: 1,
      character: 14,
      selectedText: 'b = 2',
      anchor: { line: 1, character: 10 },
    });
    for (const client of [gemini, qwen]) {
      const context = await client.waitForContext(
        (c) => c?.workspaceState?.openFiles?.[0]?.selectedText === 'b = 2',
      );
      assert.deepEqual(
        context!.workspaceState!.openFiles!.map((f) => [f.path, f.isActive ?? false]),
        [
          [file('b.ts'), true],
          [file('a.ts'), false],
        ],
      );
      assert.deepEqual(context!.workspaceState!.openFiles![0]!.cursor, { line: 1, character: 14 });
    }
  });

  it('a diff from each client is shown; one accepted with an edit, one rejected', async () => {
    const fromGemini = gemini.openDiff(file('a.ts'), 'export const a = 10;\n');
    const fromQwen = qwen.openDiff(file('b.ts'), 'export const b = 20;\n');
    await Promise.all([fromGemini.opened, fromQwen.opened]);
    const shownA = [...diffs.values()].find((d) => d.filePath === file('a.ts'))!;
    const shownB = [...diffs.values()].find((d) => d.filePath === file('b.ts'))!;
    assert.equal(shownA.oldContent, 'export const a = 1;\n');
    assert.equal((shownA.client as { name: string }).name, 'Gemini CLI');
    assert.equal((shownB.client as { name: string }).name, 'Qwen Code');
    assert.notEqual(shownA.id, shownB.id);
    const accepted = await editor.request('diff/accepted', {
      id: shownA.id,
      content: 'export const a = 11;\n',
    });
    assert.deepEqual(accepted.result, {});
    assert.deepEqual((await editor.request('diff/rejected', { id: shownB.id })).result, {});
    assert.deepEqual(await fromGemini.result, {
      status: 'accepted',
      content: 'export const a = 11;\n',
    });
    assert.equal((await fromQwen.result).status, 'rejected');

    // A second answer for a closed diff is refused: the editor closes its view.
    const late = await editor.request('diff/accepted', { id: shownA.id, content: 'late\n' });
    assert.equal(late.error?.code, -32011);
    assert.match(late.error?.message ?? '', /not open/);
  });

  it('an emptied proposal is refused with the reason, and the diff stays open', async () => {
    const pending = qwen.openDiff(file('a.ts'), 'export const a = 12;\n');
    await pending.opened;
    const shown = [...diffs.values()].find((d) => d.newContent === 'export const a = 12;\n')!;
    const refused = await editor.request('diff/accepted', { id: shown.id, content: '' });
    assert.equal(refused.error?.code, -32010);
    assert.match(refused.error?.message ?? '', /would write its original proposal/);
    const accepted = await editor.request('diff/accepted', { id: shown.id, content: '\n' });
    assert.deepEqual(accepted.result, {});
    assert.deepEqual(await pending.result, { status: 'accepted', content: '\n' });
  });

  it('a diff closed from the CLI side asks the editor for its text and closes the view', async () => {
    for (const client of [gemini, qwen]) {
      const target = file(`new-${client.kind}.ts`);
      const pending = client.openDiff(target, 'proposal\n');
      await pending.opened;
      const shown = [...diffs.values()].find((d) => d.filePath === target)!;
      assert.equal(shown.oldContent, null);
      texts.set(shown.id as string, 'proposal, edited in the editor\n');
      await client.resolveDiffFromCli(target, 'accepted');
      const result = await pending.result;
      assert.equal(result.status, 'accepted');
      assert.equal(result.content, 'proposal, edited in the editor\n');
      const close = await editor.waitFor(
        (m) => m.method === 'diff/close' && m.params!.id === shown.id,
        'diff/close',
      );
      // Why it closed; then, once the engine has the view's text, what to tell the user and the
      // edits to keep (Qwen Code never writes them).
      assert.deepEqual(close.params, { id: shown.id, reason: 'terminal' });
      const closed = await editor.waitFor(
        (m) => m.method === 'diff/closed' && m.params!.id === shown.id,
        'diff/closed',
      );
      assert.deepEqual(closed.params, {
        id: shown.id,
        filePath: target,
        reason: 'terminal',
        message:
          client.kind === 'gemini'
            ? 'Gemini CLI closed this diff: you answered in its terminal.'
            : 'Qwen Code closed this diff: you answered in its terminal. It never writes your ' +
              'edits: they are kept here to copy.',
        ...(client.kind === 'qwen' && { keptText: 'proposal, edited in the editor\n' }),
      });
      // As the whole CLI does next: Gemini CLI writes the text it got back, Qwen Code its own.
      await writeFile(target, client.kind === 'gemini' ? result.content! : 'proposal\n');
      const outcome = await outcomeOf(shown.id as string);
      assert.deepEqual(outcome.params, {
        id: shown.id,
        filePath: target,
        kind: 'approved',
        message:
          client.kind === 'gemini'
            ? `Gemini CLI wrote new-gemini.ts with your edits (approved in its terminal).`
            : 'Qwen Code wrote its own proposal to new-qwen.ts, not your edits (approved in ' +
              'its terminal; your edits were kept when the diff closed).',
      });
    }
  });

  it('a diff cancelled in the terminal: nothing is written, and the editor hears so', async () => {
    const target = file('a.ts');
    const pending = qwen.openDiff(target, 'export const a = 3;\n');
    await pending.opened;
    // The newest diff of a.ts (an earlier test answered one).
    const shown = [...diffs.values()].reverse().find((d) => d.filePath === target)!;
    await qwen.resolveDiffFromCli(target, 'rejected');
    assert.equal((await pending.result).status, 'rejected');
    const outcome = await outcomeOf(shown.id as string);
    assert.equal(outcome.params!.kind, 'cancelled');
    assert.equal(
      outcome.params!.message,
      "a.ts was not changed: the proposal was cancelled in Qwen Code's terminal.",
    );
  });

  it('a workspace change rewrites the discovery files and sends the new environment', async () => {
    const other = join(sandbox.root, 'other');
    editor.notify('workspace/changed', { workspaceFolders: [sandbox.workspace, other] });
    const message = await editor.waitFor((m) => m.method === 'env/changed', 'env/changed');
    const env = (message.params as { env: Record<string, string> }).env;
    assert.equal(env.QWEN_CODE_IDE_WORKSPACE_PATH, [sandbox.workspace, other].join(':'));
    const lock = discoveryFiles.find((path) => path.endsWith('.lock'))!;
    assert.match(await readFile(lock, 'utf8'), /other/);
  });

  it('diff ids are never reused', () => {
    const ids = [...diffs.keys()];
    assert.equal(new Set(ids).size, ids.length);
  });

  it('mention: sent to a connected Claude Code as at_mentioned, and the editor told whether it was', async () => {
    const target = file('a.ts');
    const none = await editor.request('mention', { path: target, lines: { start: 1, end: 1 } });
    assert.deepEqual(none.result, {
      ok: false,
      message: 'no Claude Code is connected to this editor.',
    });
    const lockFile = discoveryFiles.find((path) => /\/\.claude\/ide\/\d+\.lock$/.test(path))!;
    const lock = JSON.parse(await readFile(lockFile, 'utf8')) as { authToken: string };
    const { wire } = await ClaudeWire.connect(Number(basename(lockFile, '.lock')), lock.authToken);
    const sent = await editor.request('mention', { path: target, lines: { start: 1, end: 1 } });
    assert.deepEqual(sent.result, {
      ok: true,
      message: 'line 1 of a.ts sent to Claude Code.',
    });
    const relative = await editor.request('mention', { path: 'a.ts' });
    assert.equal(relative.error?.code, -32602);
    const mention = await waitFor('at_mentioned', () =>
      wire.notifications.find((n) => n.method === 'at_mentioned'),
    );
    assert.deepEqual(mention.params, { filePath: target, lineStart: 0, lineEnd: 0 });
    await wire.close();
  });

  it('bad input gets errors, and the sidecar keeps serving', async () => {
    editor.sendLine('this is not json');
    await editor.waitFor((m) => m.error?.code === -32700, 'a parse error');
    const unknown = await editor.request('no/such/method', {});
    assert.equal(unknown.error?.code, -32601);
    const again = await editor.request('initialize', initializeParams(sandbox));
    assert.match(again.error?.message ?? '', /already initialized/);
    editor.notify('cursor/changed', { path: 'relative/path', line: 0, character: 1 });
    // Another file is active: a.ts becomes so only by what follows.
    const before = gemini.latestContext()?.workspaceState?.openFiles?.[0]?.path;
    assert.notEqual(before, file('a.ts'));
    editor.notify('cursor/changed', {
      path: file('a.ts'),
      line: 1,
      character: 1,
      selectedText: 'a',
      anchor: { line: 0, character: 1 },
    });
    editor.sendLine(JSON.stringify({ jsonrpc: '2.0', id: 999, result: {} }));
    await editor.waitForLog('unknown request id 999');
    await editor.waitForLog('ignored cursor/changed: invalid params');
    editor.notify('file/focused', { path: file('a.ts') });
    // The selection with an anchor at line 0 was refused whole: a.ts is active, nothing selected.
    const context = await gemini.waitForContext(
      (c) => c?.workspaceState?.openFiles?.[0]?.path === file('a.ts'),
    );
    assert.equal(context?.workspaceState?.openFiles?.[0]?.selectedText, undefined);
  });

  it('shutdown rejects open diffs, removes the files and exits 0', async () => {
    const pending = gemini.openDiff(file('a.ts'), 'left open\n');
    await pending.opened;
    const reply = await editor.request('shutdown', {});
    assert.deepEqual(reply.result, {});
    assert.equal((await pending.result).status, 'rejected');
    assert.equal(await editor.exited, 0);
    for (const path of discoveryFiles) await gone(path);
  });
});

describe('tandem bridge with an editor of another protocol version', () => {
  let sandbox: Sandbox;
  let editor: BridgeEditor;

  before(() => {
    sandbox = new Sandbox();
  });

  after(async () => {
    await editor?.kill();
    await sandbox.remove();
  });

  it('an adapter written for 1.0 gets 1.0, and an emptied accept it sends becomes a rejection', async () => {
    editor = new BridgeEditor(sandboxEnv(sandbox));
    const shown: Record<string, unknown>[] = [];
    editor.handle('diff/open', (params) => (shown.push(params), {}));
    const reply = await editor.request('initialize', initializeParams(sandbox, process.pid, 1));
    const result = reply.result as { protocol: unknown; capabilities?: unknown };
    assert.equal(result.protocol, 1);
    assert.equal(result.capabilities, undefined);
    const client = await realClientIn(sandbox, 'gemini');
    try {
      assert.equal((await client.connect()).status, 'connected');
      const pending = client.openDiff(join(sandbox.workspace, 'z.txt'), 'z\n');
      await pending.opened;
      editor.notify('diff/accepted', { id: shown[0]!.id, content: '' });
      assert.equal((await pending.result).status, 'rejected');
      await editor.waitForLog('taken as a rejection');
    } finally {
      await client.kill();
    }
  });

  it('an adapter that speaks up to 1.1 gets 1.1: the messages in diff/close, no diff/closed, no diff/outcome', async () => {
    const contextOnly = new Sandbox();
    const other = new BridgeEditor(sandboxEnv(contextOnly));
    const shown: Record<string, unknown>[] = [];
    other.handle('diff/open', (params) => (shown.push(params), {}));
    other.handle('diff/close', () => ({ content: 'x\n' }));
    const params = initializeParams(contextOnly, process.pid, { min: '1.0', max: '1.1' });
    const reply = await other.request('initialize', params);
    assert.equal((reply.result as { protocol: unknown }).protocol, '1.1');
    const client = await realClientIn(contextOnly, 'gemini');
    try {
      assert.equal((await client.connect()).status, 'connected');
      const target = join(contextOnly.workspace, 'x.txt');
      const pending = client.openDiff(target, 'x\n');
      await pending.opened;
      await client.resolveDiffFromCli(target, 'rejected');
      await pending.result;
      // Before 1.3 the adapter decides what to say from the messages diff/close carries.
      const close = other.received.find((m) => m.method === 'diff/close')!;
      assert.equal(close.params!.reason, 'terminal');
      assert.equal(close.params!.keepsEdits, true);
      assert.equal(
        close.params!.message,
        'Gemini CLI closed this diff: you answered in its terminal.',
      );
      // The engine found the outcome (its log says so); the 1.1 adapter was not sent it.
      await waitFor(
        'the outcome in the log',
        () => other.stderr.some((line) => line.includes('x.txt was not changed')) || undefined,
      );
      assert.equal(other.received.filter((m) => m.method === 'diff/outcome').length, 0);
      assert.equal(other.received.filter((m) => m.method === 'diff/closed').length, 0);
    } finally {
      await client.kill();
      await other.kill();
      contextOnly.remove();
    }
  });

  it('a range with no version in common is refused, naming the versions spoken', async () => {
    const other = new BridgeEditor(sandboxEnv(sandbox));
    try {
      const params = initializeParams(sandbox, process.pid, { min: '2.0', max: '2.4' });
      const reply = await other.request('initialize', params);
      assert.match(reply.error?.message ?? '', /speaks versions 1\.0, 1\.1, 1\.2/);
    } finally {
      await other.kill();
    }
  });

  it('an editor that shows no diffs offers no diff tools, so the CLI asks in the terminal', async () => {
    const contextOnly = new Sandbox();
    const other = new BridgeEditor(sandboxEnv(contextOnly));
    try {
      const params = { ...initializeParams(contextOnly), capabilities: { diffs: false } };
      assert.equal((await other.request('initialize', params)).error, undefined);
      const client = await realClientIn(contextOnly, 'qwen');
      try {
        const state = await client.connect();
        assert.equal(state.status, 'connected', state.details);
        assert.equal(state.diffingEnabled, false);
      } finally {
        await client.kill();
      }
    } finally {
      await other.kill();
      contextOnly.remove();
    }
  });
});

/**
 * A bridge in a sandbox of its own, initialized by an editor of process `pid` that opens every
 * diff; `body` gets it and the discovery files it wrote, then both are gone.
 */
async function withBridge(
  body: (editor: BridgeEditor, files: string[], sandbox: Sandbox) => Promise<void>,
  pid = process.pid,
): Promise<void> {
  const sandbox = new Sandbox();
  const editor = new BridgeEditor(sandboxEnv(sandbox));
  editor.handle('diff/open', () => ({}));
  try {
    const reply = await editor.request('initialize', initializeParams(sandbox, pid));
    await body(editor, (reply.result as { discoveryFiles: string[] }).discoveryFiles, sandbox);
  } finally {
    await editor.kill();
    await sandbox.remove();
  }
}

describe('tandem bridge ends by itself', () => {
  it('when its stdin closes: the open diff is rejected and nothing is left behind', () =>
    withBridge(async (editor, files, sandbox) => {
      const client = await realClientIn(sandbox, 'qwen');
      try {
        assert.equal((await client.connect()).status, 'connected');
        const pending = client.openDiff(join(sandbox.workspace, 'x.txt'), 'x\n');
        await pending.opened;
        editor.process.stdin.end();
        assert.equal((await pending.result).status, 'rejected');
        // It asks nothing of an editor that is gone: it ends well before the 15 s a diff/close
        // reply may take (a generous bound, not a timing target).
        const exit = await Promise.race([editor.exited, sleep(10_000).then(() => 'still running')]);
        assert.equal(exit, 0);
        for (const path of files) await gone(path);
      } finally {
        await client.kill();
      }
    }));

  it('when the editor’s process dies', async () => {
    const fakeEditorProcess = spawn('sleep', ['600']);
    try {
      await withBridge(async (editor, files, sandbox) => {
        const client = await realClientIn(sandbox, 'gemini');
        try {
          assert.equal((await client.connect()).status, 'connected');
          const pending = client.openDiff(join(sandbox.workspace, 'y.txt'), 'y\n');
          await pending.opened;
          fakeEditorProcess.kill('SIGKILL');
          assert.equal((await pending.result).status, 'rejected');
          assert.equal(await editor.exited, 0);
          for (const path of files) await gone(path);
        } finally {
          await client.kill();
        }
      }, fakeEditorProcess.pid);
    } finally {
      fakeEditorProcess.kill('SIGKILL');
    }
  });

  it('when the editor stops reading its output', () =>
    withBridge(async (editor, files) => {
      editor.process.stdout.destroy();
      // Each of these asks for a reply: writing it fails, and the sidecar ends.
      for (let i = 0; i < 5 && editor.process.exitCode === null; i++) {
        editor.sendLine('not json');
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      assert.equal(await editor.exited, 0);
      for (const path of files) await gone(path);
    }));

  it('on SIGTERM, cleaning up first', () =>
    withBridge(async (editor, files) => {
      for (const path of files) await stat(path);
      editor.process.kill('SIGTERM');
      assert.equal(await editor.exited, 0);
      for (const path of files) await gone(path);
    }));
});
