/**
 * Fuzzing what an editor can send the bridge: random and adversarial lines (bytes, encodings,
 * depths, sizes, wrong shapes) to the real sidecar, and lines cut at random places and sizes
 * around the limit to the line reader. Bounded in iterations and time; the seed is printed on
 * failure (set TANDEM_FUZZ_SEED to replay one).
 */
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import {
  memoryLogger,
  BridgeEditor,
  Sandbox,
  type BridgeMessage,
  fuzzSeed,
  seededRandom,
  type SeededRandom,
} from '@tandem/testkit';
import { z } from 'zod';
import { JsonLinesPeer } from './json-lines-peer.js';

const SEED = fuzzSeed(0x7a4d3);
const TIME_BUDGET_MS = 30_000;

const METHODS = [
  'initialize',
  'workspace/changed',
  'file/opened',
  'file/closed',
  'file/focused',
  'cursor/changed',
  'diff/accepted',
  'diff/rejected',
  'no/such',
  '',
  '__proto__',
  'constructor',
] as const;

function value(r: SeededRandom, depth: number): unknown {
  if (depth <= 0) return r.pick([null, true, 0, -1, 1e308, 'x', '', '/abs/path', '\u0000']);
  switch (r.int(8)) {
    case 0:
      return Array.from({ length: r.int(4) }, () => value(r, depth - 1));
    case 1:
      return Object.fromEntries(
        Array.from({ length: r.int(4) }, () => [
          r.pick(['path', 'id', 'content', 'line', '__proto__', 'constructor', 'a']),
          value(r, depth - 1),
        ]),
      );
    case 2:
      return r.int(2 ** 31) * (r.next() < 0.5 ? -1 : 1);
    case 3:
      return String.fromCodePoint(...Array.from({ length: r.int(20) }, () => r.int(0x10ffff)));
    default:
      return value(r, 0);
  }
}

function nested(r: SeededRandom): string {
  const depth = r.pick([10, 65, 1000, 5000, 100_000]);
  const [open, close] = r.pick([
    ['[', ']'],
    ['{"a":', '}'],
  ] as const);
  return `${open.repeat(depth)}1${close.repeat(depth)}`;
}

/** One line an editor (or anything writing to the sidecar's stdin) could send. */
function line(r: SeededRandom): Buffer {
  switch (r.int(9)) {
    case 0:
      // Raw bytes: invalid UTF-8, NUL, BOM, lone CR.
      return Buffer.from(
        Array.from({ length: r.int(300) }, () => r.int(256)).filter((b) => b !== 10),
      );
    case 1:
      return Buffer.from(`{"jsonrpc":"2.0","id":${nested(r)},"method":"${r.pick(METHODS)}"}`);
    case 2:
      return Buffer.from(`{"jsonrpc":"2.0","id":1,"result":${nested(r)}}`);
    case 3:
      return Buffer.from(`{"jsonrpc":"2.0","method":"${r.pick(METHODS)}","params":${nested(r)}}`);
    case 4:
      return Buffer.from(`\ufeff${JSON.stringify({ jsonrpc: '2.0', id: r.int(9), result: {} })}\r`);
    case 5:
      return Buffer.from(JSON.stringify(value(r, 4)));
    case 6:
      return Buffer.from(
        JSON.stringify({
          jsonrpc: r.pick(['2.0', '1.0', undefined]),
          id: r.pick([undefined, null, r.int(100), 'x', [], {}, 1.5, -0]),
          method: r.pick(METHODS),
          params: value(r, 3),
        }),
      );
    case 7:
      return Buffer.from(
        `{"jsonrpc":"2.0","method":"cursor/changed","params":{"path":"/a","line":${r.pick(['1e400', '-1', '0', '1.5', '"1"'])},"character":1}}`,
      );
    default:
      return Buffer.from(`${'{"a":"'.repeat(r.int(3))}${'\\'.repeat(r.int(5))}"`);
  }
}

describe(`the bridge's input, fuzzed (seed ${SEED})`, () => {
  let sandbox: Sandbox;
  let editor: BridgeEditor;

  before(async () => {
    sandbox = new Sandbox();
    editor = new BridgeEditor(sandbox.env());
    const reply = await editor.request('initialize', {
      protocol: { min: '1.0', max: '1.1' },
      editor: { name: 'fuzz', displayName: 'Fuzz', pid: process.pid },
      workspaceFolders: [sandbox.workspace],
    });
    assert.equal(reply.error, undefined);
  });

  after(async () => {
    await editor.kill();
    await sandbox.remove();
  });

  it('random and adversarial lines get errors or warnings, and the sidecar keeps serving', async () => {
    const r = seededRandom(SEED);
    const end = Date.now() + TIME_BUDGET_MS;
    let sent = 0;
    for (let batch = 0; batch < 16 && Date.now() < end; batch++) {
      for (let i = 0; i < 25; i++, sent++) {
        editor.process.stdin.write(Buffer.concat([line(r), Buffer.from('\n')]));
      }
      const ping = await editor.request('no/such/method', {});
      assert.equal(
        ping.error?.code,
        -32601,
        `seed ${SEED}: no answer after ${sent} lines; stderr:\n${editor.stderr.slice(-5).join('\n')}`,
      );
    }
    assert.equal(editor.process.exitCode, null, `seed ${SEED}: the sidecar exited`);
    assert.ok(
      !editor.stderr.some((l) => /fatal|RangeError|TypeError/.test(l)),
      `seed ${SEED}: ${editor.stderr.find((l) => /fatal|RangeError|TypeError/.test(l))}`,
    );
    const shutdown = await editor.request('shutdown', {});
    assert.deepEqual(shutdown.result, {}, `seed ${SEED}`);
    assert.equal(await editor.exited, 0, `seed ${SEED}`);
  });
});

describe(`the line reader, fuzzed around its limit (seed ${SEED})`, () => {
  it('every request gets one reply: its echo when it fits, an error naming it when it does not', async () => {
    const r = seededRandom(SEED + 1);
    const limits = { maxLineBytes: 600, maxDepth: 8 };
    const input = new PassThrough();
    const output = new PassThrough();
    const peer = new JsonLinesPeer(input, output, memoryLogger(), limits);
    peer.onRequest('echo', z.object({ text: z.string() }), async ({ text }) => ({ text }));
    const replies: BridgeMessage[] = [];
    let pending = '';
    output.on('data', (chunk: Buffer) => {
      pending += chunk.toString('utf8');
      for (let at = pending.indexOf('\n'); at >= 0; at = pending.indexOf('\n')) {
        replies.push(JSON.parse(pending.slice(0, at)) as BridgeMessage);
        pending = pending.slice(at + 1);
      }
    });

    const expected = new Map<number, string | 'too long'>();
    const stream: Buffer[] = [];
    for (let id = 1; id <= 400; id++) {
      // ASCII, multi-byte and astral text, so that cuts fall inside characters too.
      const text = Array.from({ length: r.int(260) }, () =>
        r.pick(['a', 'é', '文', '😀', '"', '\\', '\n', '\u0001']),
      ).join('');
      const message = Buffer.from(
        `${JSON.stringify({ jsonrpc: '2.0', id, method: 'echo', params: { text } })}\n`,
      );
      expected.set(id, message.length - 1 > limits.maxLineBytes ? 'too long' : text);
      stream.push(message);
    }
    const bytes = Buffer.concat(stream);
    for (let at = 0; at < bytes.length;) {
      const size = 1 + r.int(r.pick([3, 64, 1500]));
      input.write(bytes.subarray(at, at + size));
      at += size;
    }
    input.end();
    await peer.closed;
    const deadline = Date.now() + TIME_BUDGET_MS;
    while (replies.length < expected.size && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    assert.equal(replies.length, expected.size, `seed ${SEED}: one reply per request`);
    for (const reply of replies) {
      const want = expected.get(reply.id as number);
      if (want === 'too long') {
        assert.match(reply.error?.message ?? '', /longer than 600 bytes/, `seed ${SEED}`);
      } else {
        assert.deepEqual(reply.result, { text: want }, `seed ${SEED}: id ${reply.id}`);
      }
    }
  });
});
