/**
 * What `tandem bridge` does with hostile or broken input, and with a machine it shares: it
 * answers with an error and keeps serving, and nothing it is sent can stall or end it.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { chown, mkdir, readdir, readFile, symlink, writeFile } from 'node:fs/promises';
import type { Socket } from 'node:net';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { MAX_ANSWER_BYTES } from '@tandem/core';
import {
  BridgeEditor,
  idleSockets,
  needsRoot,
  openMcpSession,
  realClientIn,
  Sandbox,
  TANDEM,
  waitFor,
  type BridgeMessage,
  type RealClient,
} from '@tandem/testkit';
import { STATUS_CLIENT_LIMIT } from './bridge-protocol.js';

function initializeParams(sandbox: Sandbox, extra: object = {}) {
  return {
    protocol: { min: '1.0', max: '1.1' },
    editor: { name: 'hardening', displayName: 'Hardening Editor', pid: process.pid },
    workspaceFolders: [sandbox.workspace],
    ...extra,
  };
}

interface Started {
  port: number;
  discoveryFiles: string[];
}

async function initialize(editor: BridgeEditor, sandbox: Sandbox, extra: object = {}) {
  const reply = await editor.request('initialize', initializeParams(sandbox, extra));
  assert.equal(reply.error, undefined, JSON.stringify(reply.error));
  return reply.result as Started;
}

/** The sidecar still answers a request: it did not exit, hang or lose its framing. */
async function stillServing(editor: BridgeEditor): Promise<void> {
  const reply = await editor.request('no/such/method', {});
  assert.equal(reply.error?.code, -32601);
  assert.equal(editor.process.exitCode, null);
}

/** Peak resident memory of a process, in bytes (Linux). */
async function peakMemory(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Number(/^VmHWM:\s+(\d+) kB/m.exec(status)?.[1]) * 1024;
}

/** Writes `bytes` bytes of `fill` into the sidecar's stdin, minding backpressure. */
async function writeMany(editor: BridgeEditor, head: string, bytes: number, fill = 'x') {
  const stdin = editor.process.stdin;
  const chunk = Buffer.alloc(1024 * 1024, fill);
  const write = async (data: Buffer | string) => {
    if (!stdin.write(data)) await new Promise((resolve) => stdin.once('drain', resolve));
  };
  await write(head);
  for (let left = bytes; left > 0; left -= chunk.length) {
    await write(left >= chunk.length ? chunk : chunk.subarray(0, left));
  }
}

describe('tandem bridge refuses what it cannot take, and keeps serving', () => {
  let sandbox: Sandbox;
  let editor: BridgeEditor;

  before(async () => {
    sandbox = new Sandbox();
    editor = new BridgeEditor(sandbox.env());
    await initialize(editor, sandbox);
  });

  after(async () => {
    await editor.kill();
    await sandbox.remove();
  });

  it('a request whose id is nested 5,000 deep gets an error, and so does a message nested too deep', async () => {
    const deep = `${'['.repeat(5000)}1${']'.repeat(5000)}`;
    editor.sendLine(`{"jsonrpc":"2.0","id":${deep},"method":"shutdown","params":{}}`);
    await editor.waitFor(
      (m) => m.id === null && /id must be a string, a number or null/.test(m.error?.message ?? ''),
      'the refusal of the id',
    );
    editor.sendLine(`{"jsonrpc":"2.0","id":"d","method":"no/such","params":${deep}}`);
    const refused = await editor.waitFor((m) => m.id === 'd', 'the refusal of the depth');
    assert.match(refused.error!.message, /nested deeper than 64 levels/);
    await stillServing(editor);
  });

  it('a reply whose id is nested 5,000 deep is ignored with a warning', async () => {
    const deep = `${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}`;
    editor.sendLine(`{"jsonrpc":"2.0","id":${deep},"result":{}}`);
    await editor.waitForLog('refused a message whose id is not a string');
    await stillServing(editor);
  });

  it('a line of 520 MB gets an error naming the limit, to its id, without being held in memory', async () => {
    const head = '{"jsonrpc":"2.0","id":77,"method":"diff/accepted","params":{"id":"x","content":"';
    await writeMany(editor, head, 520 * 1024 * 1024);
    editor.sendLine('"}}');
    const refused = await editor.waitFor((m) => m.id === 77, 'the refusal of the long line');
    assert.equal(refused.error?.code, -32600);
    assert.match(refused.error!.message, new RegExp(`longer than ${MAX_ANSWER_BYTES} bytes`));
    await stillServing(editor);
    // Dropped as it streamed past, once over the limit: never the whole line (nor a string of
    // it) in memory.
    const peak = await peakMemory(editor.process.pid!);
    assert.ok(peak < 400 * 1024 * 1024, `peak memory ${peak} bytes`);
  });

  it('a stop is not held up: shutdown still answers and exits 0', async () => {
    const reply = await editor.request('shutdown', {});
    assert.deepEqual(reply.result, {});
    assert.equal(await editor.exited, 0);
  });
});

describe('tandem bridge in shared discovery folders', () => {
  it('a FIFO and a link to /dev/zero posing as discovery files stall neither initialize nor SIGTERM', async () => {
    const sandbox = new Sandbox();
    const editor = new BridgeEditor(sandbox.env());
    try {
      for (const dir of [join(sandbox.tmpDir, 'gemini', 'ide'), join(sandbox.qwenHome, 'ide')]) {
        await mkdir(dir, { recursive: true, mode: 0o700 });
        execFileSync('mkfifo', [join(dir, 'x.json'), join(dir, '1.lock')]);
        await symlink('/dev/zero', join(dir, 'zero.json'));
      }
      const started = await initialize(editor, sandbox);
      // Gemini's file, Qwen's lock and legacy file, Claude Code's lock.
      assert.equal(started.discoveryFiles.length, 4);
      editor.process.kill('SIGTERM');
      assert.equal(await editor.exited, 0);
    } finally {
      await editor.kill();
      await sandbox.remove();
    }
  });

  it('a Gemini folder owned by another user: its files are skipped with a warning, the Qwen and Claude Code locks are written', async (t) => {
    if (!needsRoot(t)) return;
    const sandbox = new Sandbox();
    const editor = new BridgeEditor(sandbox.env());
    try {
      const gemini = join(sandbox.tmpDir, 'gemini', 'ide');
      await mkdir(gemini, { recursive: true, mode: 0o755 });
      await chown(gemini, 65534, 65534);
      const started = await initialize(editor, sandbox);
      assert.equal(started.discoveryFiles.length, 2);
      assert.ok(started.discoveryFiles.every((file) => file.endsWith('.lock')));
      await editor.waitForLog('belongs to another user');
      const qwen = await realClientIn(sandbox, 'qwen');
      try {
        assert.equal((await qwen.connect()).status, 'connected');
      } finally {
        await qwen.kill();
      }
    } finally {
      await editor.kill();
      await sandbox.remove();
    }
  });
});

async function tokenOf(started: Started): Promise<string> {
  const lock = started.discoveryFiles.find((file) => file.endsWith('.lock'))!;
  return (JSON.parse(await readFile(lock, 'utf8')) as { authToken: string }).authToken;
}

describe('tandem bridge with many clients', () => {
  const SESSIONS = 150;

  it(`an editor that does not state clientChanges gets status lists of at most ${STATUS_CLIENT_LIMIT}, counting the rest`, async () => {
    const sandbox = new Sandbox();
    const editor = new BridgeEditor(sandbox.env());
    try {
      const started = await initialize(editor, sandbox);
      const token = await tokenOf(started);
      for (let i = 0; i < SESSIONS; i++) await openMcpSession(started.port, token);
      const isLast = (m: BridgeMessage) =>
        m.method === 'status' &&
        (m.params!.clients as unknown[]).length + Number(m.params!.omitted ?? 0) === SESSIONS;
      const last = await editor.waitFor(isLast, `a status counting ${SESSIONS} clients`);
      assert.equal((last.params!.clients as unknown[]).length, STATUS_CLIENT_LIMIT);
      assert.equal(last.params!.omitted, SESSIONS - STATUS_CLIENT_LIMIT);
      const statuses = editor.received.filter((m) => m.method === 'status');
      for (const status of statuses) {
        assert.ok((status.params!.clients as unknown[]).length <= STATUS_CLIENT_LIMIT);
      }
    } finally {
      await editor.kill();
      await sandbox.remove();
    }
  });

  it('an editor that states clientChanges hears only who connected and who left', async () => {
    const sandbox = new Sandbox();
    const editor = new BridgeEditor(sandbox.env());
    try {
      const started = await initialize(editor, sandbox, { capabilities: { clientChanges: true } });
      const token = await tokenOf(started);
      for (let i = 0; i < SESSIONS; i++) await openMcpSession(started.port, token);
      const connected = () =>
        editor.received
          .filter((m) => m.method === 'clients/changed')
          .flatMap((m) => m.params!.connected as { sessionId: string }[]);
      await waitFor('every session announced', () =>
        connected().length === SESSIONS ? true : undefined,
      );
      assert.equal(new Set(connected().map((c) => c.sessionId)).size, SESSIONS);
      assert.equal(editor.received.filter((m) => m.method === 'status').length, 0);
      const bytes = editor.received
        .filter((m) => m.method === 'clients/changed')
        .reduce((sum, m) => sum + JSON.stringify(m).length, 0);
      assert.ok(bytes < SESSIONS * 200, `${bytes} bytes for ${SESSIONS} connects`);

      const gemini = await realClientIn(sandbox, 'gemini');
      await gemini.connect();
      const joined = await editor.waitFor(
        (m) =>
          m.method === 'clients/changed' &&
          (m.params!.connected as { name: string }[]).some((c) => c.name === 'Gemini CLI'),
        'the real client announced',
      );
      const { sessionId } = (joined.params!.connected as { sessionId: string }[])[0]!;
      await gemini.kill();
      await editor.waitFor(
        (m) =>
          m.method === 'clients/changed' &&
          (m.params!.disconnected as string[]).includes(sessionId),
        'the real client gone',
      );
    } finally {
      await editor.kill();
      await sandbox.remove();
    }
  });
});

/** `tandem bridge` started with at most `files` open descriptors, driven line by line. */
function limitedBridge(sandbox: Sandbox, files: number) {
  const child = spawn(
    'sh',
    ['-c', `ulimit -n ${files} && exec "$0" "$1" bridge`, process.execPath, TANDEM],
    { env: sandbox.env(), stdio: 'pipe' },
  );
  const lines = createInterface({ input: child.stdout });
  const replies = new Map<number, (message: BridgeMessage) => void>();
  lines.on('line', (line) => {
    const message = JSON.parse(line) as BridgeMessage;
    if (typeof message.id === 'number' && !message.method) replies.get(message.id)?.(message);
  });
  let nextId = 1;
  return {
    child,
    request(method: string, params: object): Promise<BridgeMessage> {
      const id = nextId++;
      const reply = new Promise<BridgeMessage>((resolve) => replies.set(id, resolve));
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
      return reply;
    },
  };
}

describe('tandem bridge under a small descriptor limit', () => {
  it('150 idle connections under a limit of 128 descriptors do not lock a real client out', async () => {
    const sandbox = new Sandbox();
    const bridge = limitedBridge(sandbox, 128);
    let sockets: Socket[] = [];
    try {
      const reply = await bridge.request('initialize', initializeParams(sandbox));
      const { port } = reply.result as Started;
      sockets = await idleSockets(port, 150);
      const gemini = await realClientIn(sandbox, 'gemini');
      try {
        const state = await gemini.connect();
        assert.equal(state.status, 'connected', state.details);
      } finally {
        await gemini.kill();
      }
    } finally {
      for (const socket of sockets) socket.destroy();
      bridge.child.kill('SIGKILL');
      await sleep(0);
      await sandbox.remove();
    }
  });
});

/**
 * A bridge whose editor records the diffs it is asked to show, and a real Gemini client
 * connected to it, for the tests of one block.
 */
function bridgeWithGemini() {
  const scene = { opened: new Map<string, Record<string, unknown>>() } as {
    sandbox: Sandbox;
    editor: BridgeEditor;
    gemini: RealClient;
    opened: Map<string, Record<string, unknown>>;
  };
  before(async () => {
    scene.sandbox = new Sandbox();
    scene.editor = new BridgeEditor(scene.sandbox.env());
    scene.editor.handle('diff/open', (params) => {
      scene.opened.set(params.filePath as string, params);
      return {};
    });
    await initialize(scene.editor, scene.sandbox);
    scene.gemini = await realClientIn(scene.sandbox, 'gemini');
    assert.equal((await scene.gemini.connect()).status, 'connected');
  });
  after(async () => {
    await Promise.all([scene.gemini?.kill(), scene.editor?.kill()]);
    scene.sandbox?.remove();
  });
  return scene;
}

describe('tandem bridge and the diffs the engine accepts', () => {
  const scene = bridgeWithGemini();
  const { opened } = scene;

  it('what the engine accepts can be accepted back: 8 MiB of control characters, 48 MiB escaped', async () => {
    const file = join(scene.sandbox.workspace, 'controls.txt');
    await writeFile(file, 'old\n');
    const proposal = '\u0001'.repeat(8 * 1024 * 1024);
    const handle = scene.gemini.openDiff(file, proposal, 120_000);
    await handle.opened;
    const { id } = await waitFor('the diff in the editor', () => opened.get(file));
    const line = JSON.stringify({
      jsonrpc: '2.0',
      id: 'big',
      method: 'diff/accepted',
      params: { id, content: proposal },
    });
    assert.ok(line.length > 48 * 1024 * 1024);
    scene.editor.sendLine(line);
    const reply = await scene.editor.waitFor(
      (m) => m.id === 'big',
      'the reply to the large accept',
    );
    assert.deepEqual(reply.result, {});
    const result = await handle.result;
    assert.equal(result.status, 'accepted');
    assert.equal(result.content?.length, proposal.length);
  });

  it('a terminal approval waits for an editor slower than 15 s, and the CLI gets its edits', async () => {
    const file = join(scene.sandbox.workspace, 'slow.txt');
    await writeFile(file, 'old\n');
    scene.editor.handle('diff/close', async () => {
      // An editor busy elsewhere (a prompt, a long command) answers late, but answers.
      await sleep(16_000);
      return { content: 'edited in the editor\n' };
    });
    const handle = scene.gemini.openDiff(file, 'proposed\n', 120_000);
    await handle.opened;
    await waitFor('the diff in the editor', () => opened.get(file));
    await scene.gemini.resolveDiffFromCli(file, 'accepted', 120_000);
    const result = await handle.result;
    assert.equal(result.status, 'accepted');
    assert.equal(result.content, 'edited in the editor\n');
  });
});

describe('tandem bridge and the file of a diff', () => {
  const scene = bridgeWithGemini();

  it('the old file is read bounded: devices and what /proc makes up are refused, memory stays small', async () => {
    for (const [path, reason] of [
      ['/dev/zero', /is a device/],
      ['/dev/urandom', /is a device/],
      ['/proc/self/environ', /not a file on disk/],
    ] as const) {
      await assert.rejects(scene.gemini.openDiff(path, 'text\n', 5_000).opened, reason, path);
    }
    assert.ok((await peakMemory(scene.editor.process.pid!)) < 200 * 1024 * 1024);
    assert.equal(scene.opened.size, 0);
  });

  it('openDiff on a FIFO is refused at once; five pin nothing: the next diff opens, stdin EOF ends the sidecar', async () => {
    for (let n = 0; n < 5; n++) {
      const fifo = join(scene.sandbox.workspace, `fifo-${n}`);
      execFileSync('mkfifo', [fifo]);
      await assert.rejects(scene.gemini.openDiff(fifo, 'text\n', 5_000).opened, /is a FIFO/);
    }
    const file = join(scene.sandbox.workspace, 'after.txt');
    await writeFile(file, 'old\n');
    await scene.gemini.openDiff(file, 'new\n', 5_000).opened;
    assert.deepEqual([...scene.opened.keys()], [file]);
    scene.editor.process.stdin.end();
    assert.equal(await scene.editor.exited, 0);
  });
});

describe('tandem bridge stopping with a diff open', () => {
  const scene = bridgeWithGemini();

  it(
    'shutdown with an editor that never answers diff/close: replied to and exited within the 5 s stop deadline, files removed',
    { timeout: 60_000 },
    async () => {
      scene.editor.handle('diff/close', () => new Promise(() => undefined));
      const file = join(scene.sandbox.workspace, 'open.txt');
      await writeFile(file, 'old\n');
      const diff = scene.gemini.openDiff(file, 'new\n');
      await diff.opened;
      const reply = scene.editor.request('shutdown', {});
      // 0, not the 1 that the process host's deadline ends it with: it ended by itself, within it.
      assert.equal(await scene.editor.exited, 0);
      assert.deepEqual((await reply).result, {});
      assert.equal((await diff.result).status, 'rejected');
      const left = await readdir(join(scene.sandbox.tmpDir, 'gemini', 'ide'));
      assert.deepEqual(left, []);
    },
  );
});
