import assert from 'node:assert/strict';
import { stat, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import {
  ClaudeWire,
  claudeUpgradeHeaders,
  memoryLogger,
  readClaudeLock,
  RecordingEditor,
  Sandbox,
  selectedLines,
  type ClaudeLock,
  waitFor,
  waitUntil,
} from '@tandem/testkit';
import { startEngine } from '../engine.fixture.js';
import type { Engine } from '../engine.js';

/** Claude Code's `openDiff` arguments for a file: both paths the same, as it sends them. */
function openDiffArgs(filePath: string, contents: string, tabName: string) {
  return {
    old_file_path: filePath,
    new_file_path: filePath,
    new_file_contents: contents,
    tab_name: tabName,
  };
}

/** Whether an upgrade is refused, and with which status. */
async function refusal(
  port: number,
  headers: Record<string, string>,
  options: { protocols?: string[]; host?: string } = {},
): Promise<string> {
  try {
    const wire = await ClaudeWire.open(port, headers, options);
    await wire.close();
    return 'accepted';
  } catch (error) {
    return (error as Error).message;
  }
}

/** What a case with an engine of its own gets: its folders, the engine and its lock file. */
interface OwnEngine {
  own: Sandbox;
  engine: Engine;
  lock: ClaudeLock;
}

/** Runs `body` with an engine of its own for `editor`, then stops it and removes its folders. */
async function withOwnEngine(
  editor: RecordingEditor,
  body: (scene: OwnEngine) => Promise<void>,
): Promise<void> {
  const own = new Sandbox();
  const engine = await startEngine(own, editor);
  try {
    await body({ own, engine, lock: await readClaudeLock(own.claudeConfigDir, engine.claudePort) });
  } finally {
    await engine.stop();
    own.remove();
  }
}

describe('the Claude Code binding, with a WebSocket client made as the CLI makes it', () => {
  let sandbox: Sandbox;
  let editor: RecordingEditor;
  let engine: Engine;
  let token: string;
  const log = memoryLogger();

  before(async () => {
    sandbox = new Sandbox();
    editor = new RecordingEditor();
    engine = await startEngine(sandbox, editor, { maxBodyBytes: 64 * 1024, log });
    token = (await readClaudeLock(sandbox.claudeConfigDir, engine.claudePort)).authToken;
  });

  after(async () => {
    await engine.stop();
    sandbox.remove();
  });

  /** A new connection whose `openDiff` of `<name>.txt` is shown in the editor and waits. */
  async function waitingDiff(name: string) {
    const { wire } = await ClaudeWire.connect(engine.claudePort, token);
    const file = path.join(sandbox.workspace, `${name}.txt`);
    const pending = wire.callTool('openDiff', openDiffArgs(file, `${name}\n`, `tab-${name}`));
    const diff = await waitFor(`diff ${name}`, () => editor.diffFor(file));
    return { wire, pending, diff };
  }

  it('writes the lock file Claude Code reads, 0600 in a 0700 folder, and gives terminals its port, no extension install', async () => {
    const lock = await readClaudeLock(sandbox.claudeConfigDir, engine.claudePort);
    assert.equal(lock.pid, process.pid);
    assert.deepEqual(lock.workspaceFolders, [sandbox.workspace]);
    assert.equal(lock.ideName, 'Test Editor');
    assert.equal(lock.transport, 'ws');
    assert.equal(lock.runningInWindows, false);
    assert.ok(Buffer.from(lock.authToken, 'base64url').length >= 32);
    assert.equal((await stat(lock.file)).mode & 0o777, 0o600);
    assert.equal((await stat(path.dirname(lock.file))).mode & 0o777, 0o700);
    assert.equal(engine.terminalEnv().CLAUDE_CODE_SSE_PORT, String(engine.claudePort));
    // Nor may Claude Code install Anthropic's extension, which would take it over.
    assert.equal(engine.terminalEnv().CLAUDE_CODE_IDE_SKIP_AUTO_INSTALL, '1');
    assert.equal(
      engine.terminalEnv(['gemini', 'qwen']).CLAUDE_CODE_IDE_SKIP_AUTO_INSTALL,
      undefined,
    );
    assert.ok(engine.discoveryFiles.includes(lock.file));
  });

  it('refuses an upgrade without the token, with a wrong one, from a page, for a foreign Host or without mcp', async () => {
    const port = engine.claudePort;
    const good = claudeUpgradeHeaders(token);
    assert.equal(await refusal(port, { 'User-Agent': 'x' }), 'refused: 401');
    assert.equal(
      await refusal(port, claudeUpgradeHeaders(`${token.slice(0, -1)}x`)),
      'refused: 401',
    );
    assert.equal(await refusal(port, { ...good, Origin: 'http://127.0.0.1' }), 'refused: 403');
    assert.equal(await refusal(port, good, { host: `evil.example:${port}` }), 'refused: 403');
    assert.equal(await refusal(port, good, { protocols: ['other'] }), 'refused: 403');
    assert.equal(await refusal(port, good), 'accepted');
  });

  it('answers a plain HTTP request with a refusal, never a hang', async () => {
    const status = await new Promise<number | undefined>((resolve, reject) => {
      const headers = { ...claudeUpgradeHeaders(token), Host: `127.0.0.1:${engine.claudePort}` };
      request({ port: engine.claudePort, host: '127.0.0.1', headers }, (response) => {
        response.resume();
        resolve(response.statusCode);
      })
        .on('error', reject)
        .end();
    });
    assert.equal(status, 426);
  });

  it('closes a session that sends a frame past the limit, and goes on serving', async () => {
    const { wire } = await ClaudeWire.connect(engine.claudePort, token);
    const code = new Promise<number>((resolve) => wire.socket.once('close', (c) => resolve(c)));
    wire.socket.send('x'.repeat(64 * 1024 + 1));
    assert.equal(await code, 1009);
    const { wire: next, tools } = await ClaudeWire.connect(engine.claudePort, token);
    assert.ok(tools.includes('openDiff'));
    await next.close();
  });

  it('offers the tools Claude Code calls, not executeCode; unknown methods get a JSON-RPC error', async () => {
    const { wire, tools } = await ClaudeWire.connect(engine.claudePort, token);
    assert.deepEqual(tools.sort(), ['closeAllDiffTabs', 'close_tab', 'getDiagnostics', 'openDiff']);
    const unknown = await wire.request('no/such/method', {});
    assert.equal(unknown.error?.code, -32601);
    const executeCode = await wire.callTool('executeCode', { code: '1' });
    assert.equal(executeCode.isError, true);
    assert.match(executeCode.texts.join(' '), /executeCode/);
    assert.deepEqual(await wire.callTool('getDiagnostics', { uri: 'file:///x.ts' }), {
      texts: ['[]'],
      isError: false,
    });
    await wire.close();
  });

  it('answers several diffs at once, each as its user answered it', async () => {
    const { wire } = await ClaudeWire.connect(engine.claudePort, token);
    const a = path.join(sandbox.workspace, 'a.txt');
    const b = path.join(sandbox.workspace, 'b.txt');
    await writeFile(a, 'old a\n');
    const answers: string[] = [];
    const first = wire.callTool('openDiff', openDiffArgs(a, 'new a\n', 'tab-a')).then((r) => {
      answers.push('a');
      return r;
    });
    const second = wire.callTool('openDiff', openDiffArgs(b, 'new b\n', 'tab-b')).then((r) => {
      answers.push('b');
      return r;
    });
    const diffA = await waitFor('diff a', () => editor.diffFor(a));
    const diffB = await waitFor('diff b', () => editor.diffFor(b));
    assert.equal(diffA.oldContent, 'old a\n');
    assert.equal(diffB.oldContent, null);
    assert.deepEqual(engine.diffRejected(diffB.id), { ok: true });
    assert.deepEqual((await second).texts, ['DIFF_REJECTED', 'tab-b']);
    assert.deepEqual(engine.diffAccepted(diffA.id, 'the user’s a\n'), { ok: true });
    assert.deepEqual((await first).texts, ['FILE_SAVED', 'the user’s a\n']);
    assert.deepEqual(answers, ['b', 'a']);
    await wire.close();
  });

  it('closes a diff answered in the terminal on close_tab, and its call still gets an answer', async () => {
    const { wire, pending, diff } = await waitingDiff('c');
    assert.deepEqual((await wire.callTool('close_tab', { tab_name: 'tab-c' })).texts, [
      'TAB_CLOSED',
    ]);
    assert.ok(editor.closed.includes(diff.id));
    assert.deepEqual((await pending).texts, ['DIFF_REJECTED', 'tab-c']);
    // Claude Code closes the tab again after an answer: nothing left to close, no error.
    assert.deepEqual((await wire.callTool('close_tab', { tab_name: 'tab-c' })).texts, [
      'TAB_CLOSED',
    ]);
    await wire.close();
  });

  it('rejects every waiting diff on closeAllDiffTabs', async () => {
    const { wire, pending, diff } = await waitingDiff('d');
    assert.deepEqual((await wire.callTool('closeAllDiffTabs', {})).texts, ['CLOSED_1_DIFF_TABS']);
    assert.deepEqual((await pending).texts, ['DIFF_REJECTED', 'tab-d']);
    assert.ok(editor.closed.includes(diff.id));
    await wire.close();
  });

  it('closes the diffs of a session that vanishes', async () => {
    const { wire, pending, diff } = await waitingDiff('e');
    pending.catch(() => undefined);
    wire.socket.terminate();
    await waitUntil('the vanished session’s diff closed', () => editor.closed.includes(diff.id));
    await waitUntil(
      'the client gone',
      () => !engine.clients().some((c) => c.name === 'Claude Code'),
    );
  });

  it('sends the selection as selection_changed, once a change', async () => {
    const { wire } = await ClaudeWire.connect(engine.claudePort, token);
    const file = path.join(sandbox.workspace, 'f.txt');
    await writeFile(file, 'one\ntwo\nthree\n');
    engine.fileFocused(file);
    engine.cursorChanged(file, 3, 4, 'two\nthree');
    const sent = await waitFor('the selection', () =>
      wire.notifications.find(
        (n) => n.method === 'selection_changed' && n.params?.text === 'two\nthree',
      ),
    );
    assert.deepEqual(sent.params, {
      text: 'two\nthree',
      filePath: file,
      fileUrl: `file://${file}`,
      selection: {
        start: { line: 1, character: 0 },
        end: { line: 2, character: 4 },
        isEmpty: false,
      },
    });
    await wire.close();
  });

  it('a selection from its anchor: made upwards, downwards, or of whole lines', async () => {
    const { wire } = await ClaudeWire.connect(engine.claudePort, token);
    const file = path.join(sandbox.workspace, 'up.txt');
    await writeFile(file, 'uno\ndos\ntres\ncuatro\n');
    engine.fileFocused(file);
    // From the s of tres up to the d of dos, the cursor on it as Vim's Visual mode has it.
    engine.cursorChanged(file, 2, 1, 'dos\ntres', { line: 3, character: 4 });
    assert.deepEqual(await wire.selectionOf('dos\ntres'), selectedLines(1, 2, 4));
    // Downwards, the cursor after the last character as VS Code's is.
    engine.cursorChanged(file, 4, 7, 'tres\ncuatro', { line: 3, character: 1 });
    assert.deepEqual(await wire.selectionOf('tres\ncuatro'), selectedLines(2, 3, 6));
    // Whole lines, the cursor at the start of the next: Claude Code shows two lines, not three.
    engine.cursorChanged(file, 4, 1, 'dos\ntres\n', { line: 2, character: 1 });
    assert.deepEqual(await wire.selectionOf('dos\ntres\n'), selectedLines(1, 3, 0));
    await wire.close();
  });

  it('mentions a file or lines of it as at_mentioned (lines 0-based), only to a Claude Code that listens', async () => {
    await withOwnEngine(new RecordingEditor(), async ({ own, engine: mentioning, lock }) => {
      const file = path.join(own.workspace, 'm.txt');
      assert.deepEqual(mentioning.mention(file, { start: 2, end: 3 }), {
        ok: false,
        message: 'no Claude Code is connected to this editor.',
      });
      // Set up, its tools not yet listed: it would not hear a mention yet, which waits.
      const wire = await ClaudeWire.open(
        mentioning.claudePort,
        claudeUpgradeHeaders(lock.authToken),
      );
      await wire.request('initialize', {
        protocolVersion: '2025-11-25',
        capabilities: {},
        clientInfo: { name: 'claude-code', version: '2.1.332' },
      });
      wire.notify('notifications/initialized');
      wire.notify('ide_connected', { pid: process.pid });
      const first = await waitFor('the session to be set up', () => {
        const answer = mentioning.mention(file, { start: 2, end: 3 });
        return answer.ok ? answer : undefined;
      });
      await wire.request('tools/list', {});
      assert.deepEqual(first, {
        ok: true,
        message: 'lines 2–3 of m.txt sent to Claude Code.',
      });
      assert.equal(
        mentioning.mention(file, { start: 5, end: 5 }).message,
        'line 5 of m.txt sent to Claude Code.',
      );
      assert.equal(mentioning.mention(file).message, 'm.txt sent to Claude Code.');
      // Bad input: told, nothing sent.
      assert.match(mentioning.mention(file, { start: 0, end: 1 }).message, /no lines of m\.txt/);
      assert.match(mentioning.mention(file, { start: 3, end: 2 }).message, /no lines of m\.txt/);
      assert.match(mentioning.mention('m.txt').message, /not a file on disk/);
      // It hears them a moment after the tools/list answer: the held one first.
      const mentions = await waitFor('the three mentions', () => {
        const all = wire.notifications.filter((n) => n.method === 'at_mentioned');
        return all.length === 3 ? all : undefined;
      });
      assert.deepEqual(
        mentions.map((n) => n.params),
        [
          { filePath: file, lineStart: 1, lineEnd: 2 },
          { filePath: file, lineStart: 4, lineEnd: 4 },
          { filePath: file },
        ],
      );
      await wire.close();
    });
  });

  it('answers getDiagnostics with what an editor that offers them shows', async () => {
    const diagnostic = {
      message: 'x is unused',
      severity: 'Warning' as const,
      range: { start: { line: 0, character: 4 }, end: { line: 0, character: 5 } },
    };
    const asked: (string | undefined)[] = [];
    const shown: { path: string; diagnostics: (typeof diagnostic)[] }[] = [];
    const withDiagnostics = Object.assign(new RecordingEditor(), {
      diagnostics: async (path?: string) => {
        asked.push(path);
        return shown;
      },
    });
    await withOwnEngine(withDiagnostics, async ({ own, engine, lock }) => {
      const file = path.join(own.workspace, 'h.ts');
      shown.push({ path: file, diagnostics: [diagnostic] });
      const { wire } = await ClaudeWire.connect(engine.claudePort, lock.authToken);
      const { texts } = await wire.callTool('getDiagnostics', { uri: `file://${file}` });
      assert.deepEqual(JSON.parse(texts[0]!), [
        { uri: `file://${file}`, diagnostics: [diagnostic] },
      ]);
      await wire.callTool('getDiagnostics', {});
      assert.deepEqual(asked, [file, undefined]);
      await wire.close();
    });
  });

  it('rejects a waiting diff when the engine stops, and removes the lock file', async () => {
    const ownEditor = new RecordingEditor();
    await withOwnEngine(ownEditor, async ({ own, engine: stopping, lock }) => {
      const { wire } = await ClaudeWire.connect(stopping.claudePort, lock.authToken);
      const file = path.join(own.workspace, 'g.txt');
      const pending = wire.callTool('openDiff', openDiffArgs(file, 'g\n', 'tab-g'));
      await waitFor('diff g', () => ownEditor.diffFor(file));
      await stopping.stop();
      assert.deepEqual((await pending).texts, ['DIFF_REJECTED', 'tab-g']);
      await assert.rejects(stat(lock.file), { code: 'ENOENT' });
      await wire.closed();
    });
  });
});
