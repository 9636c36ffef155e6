/**
 * An editor that never answers the diffs it is asked to show, or answers them wrong, through a
 * real sidecar process and a real Gemini client: every CLI call ends with a clear error, nothing
 * is resolved by a reply meant for something else, memory is given back, and the sidecar keeps
 * serving.
 */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import {
  BridgeEditor,
  callMcpTool,
  openMcpSession,
  realClientIn,
  Sandbox,
  waitFor,
  type BridgeMessage,
  type RealClient,
} from '@tandem/testkit';

/**
 * The sidecar's deadline for a `diff/open` reply where the cases wait it out (60 s in `tandem
 * bridge`, which the cases that must answer before it keep: a busy machine may take seconds).
 */
const DEADLINE_MS = 1000;
const BRIDGE_DEADLINE_MS = 60_000;
const UNANSWERED = 1000;
const FIXTURE = fileURLToPath(new URL('./bridge-deadline.fixture.ts', import.meta.url));

/** How the test editor treats `diff/open`: shows it (replies `{}`), or never replies. */
type OpenPolicy = 'show' | 'ignore';

/**
 * A sidecar with a `diff/open` deadline of `deadlineMs`, an editor that answers as `policy`
 * says, and two real Gemini clients (each takes one diff at a time: two have two open at once),
 * started before the cases of a block and ended after them.
 */
function sidecarScene(deadlineMs: number) {
  const scene = { policy: 'show' as OpenPolicy } as {
    sandbox: Sandbox;
    editor: BridgeEditor;
    gemini: RealClient;
    other: RealClient;
    port: number;
    token: string;
    policy: OpenPolicy;
  };

  before(async () => {
    const sandbox = (scene.sandbox = new Sandbox());
    const editor = (scene.editor = new BridgeEditor(
      { ...sandbox.env(), NODE_OPTIONS: '--import tsx', DIFF_OPEN_TIMEOUT_MS: `${deadlineMs}` },
      FIXTURE,
    ));
    editor.handle('diff/open', () => (scene.policy === 'show' ? {} : new Promise(() => undefined)));
    editor.handle('diff/close', () => ({ content: '' }));
    const started = await editor.request('initialize', {
      protocol: { min: '1.0', max: '1.1' },
      editor: { name: 'replies', displayName: 'Replies', pid: process.pid },
      workspaceFolders: [sandbox.workspace],
    });
    assert.equal(started.error, undefined, JSON.stringify(started.error));
    const { discoveryFiles } = started.result as { port: number; discoveryFiles: string[] };
    scene.port = (started.result as { port: number }).port;
    const lock = discoveryFiles.find((file) => file.endsWith('.lock'))!;
    scene.token = (JSON.parse(await readFile(lock, 'utf8')) as { authToken: string }).authToken;
    [scene.gemini, scene.other] = await Promise.all([
      realClientIn(sandbox, 'gemini'),
      realClientIn(sandbox, 'gemini'),
    ]);
    assert.equal((await scene.gemini.connect()).status, 'connected');
    assert.equal((await scene.other.connect()).status, 'connected');
  });

  after(async () => {
    await Promise.all([scene.gemini?.kill(), scene.other?.kill(), scene.editor?.kill()]);
    await scene.sandbox?.remove();
  });

  return {
    scene,
    /** The heap the sidecar still uses after a full collection, in bytes. */
    async sidecarHeap(): Promise<number> {
      const seen = scene.editor.stderr.length;
      scene.editor.process.kill('SIGUSR2');
      const line = await waitFor('the heap probe', () =>
        scene.editor.stderr.slice(seen).find((text) => text.startsWith('heap-probe: ')),
      );
      return Number(line.slice('heap-probe: '.length));
    },
    /** The sidecar's `diff/open` request for `file`, once the editor has it. */
    openRequest(file: string): Promise<BridgeMessage> {
      return scene.editor.waitFor(
        (m) => m.method === 'diff/open' && m.params?.filePath === file,
        `diff/open of ${file}`,
      );
    },
    async stillServing(): Promise<void> {
      const reply = await scene.editor.request('no/such/method', {});
      assert.equal(reply.error?.code, -32601);
      assert.equal(scene.editor.process.exitCode, null);
    },
  };
}

describe('tandem bridge and diff replies that never come', () => {
  const { scene, sidecarHeap, openRequest, stillServing } = sidecarScene(DEADLINE_MS);

  it('a reply past its deadline is ignored, and answers to a diff its deadline closed are refused', async () => {
    const { editor } = scene;
    scene.policy = 'ignore';
    const file = join(scene.sandbox.workspace, 'late.txt');
    const diff = scene.gemini.openDiff(file, 'late\n');
    const request = await openRequest(file);
    await assert.rejects(diff.opened, /the editor did not answer diff\/open within 1 s/);
    scene.policy = 'show';
    editor.sendLine(JSON.stringify({ jsonrpc: '2.0', id: request.id, result: {} }));
    await editor.waitForLog(`ignored a reply to unknown request id ${request.id}`);
    const closed = request.params!.id as string;
    const reply = await editor.request('diff/accepted', { id: closed, content: 'hijack\n' });
    assert.equal(reply.error?.code, -32011);
    editor.notify('diff/accepted', { id: closed, content: 'hijack\n' });
    editor.notify('diff/rejected', { id: closed });
    await editor.waitForLog(`diff ${closed} is not open`);
    await stillServing();
  });

  it(`${UNANSWERED} diffs the editor never answers: each openDiff fails at the deadline, the heap is given back, and a diff is shown and accepted afterwards`, async () => {
    const { sandbox, editor, gemini, port, token } = scene;
    scene.policy = 'ignore';
    // The real client first (it loads what stays loaded): its openDiff fails with the reason.
    const warmUp = gemini.openDiff(join(sandbox.workspace, 'warm-up.txt'), 'x\n');
    await assert.rejects(
      warmUp.opened,
      /The editor could not show the diff: the editor did not answer diff\/open within 1 s/,
    );
    // 32 KiB each: a thousand kept would hold 32 MiB, well above what a busy heap varies by
    // between two floods (up to 5 MiB seen in a full suite).
    const proposal = 'proposed line\n'.repeat(2400);
    // A real client holds one diff at a time: a flood comes from one session as the engine
    // allows it, distinct files, all at once. A session of its own for each: one that never
    // opens its stream lives 30 s, which a busy machine's two floods and heap readings outlast.
    const flood = async (name: string, count: number) => {
      const sessionId = await openMcpSession(port, token);
      return Promise.all(
        Array.from({ length: count }, (_, n) =>
          callMcpTool(port, token, sessionId, {
            id: n,
            name: 'openDiff',
            arguments: {
              filePath: join(sandbox.workspace, `${name}-${n}.txt`),
              newContent: proposal,
            },
          }),
        ),
      );
    };
    // What a first flood loads and sizes (parsers, tables grown to a thousand sockets) stays:
    // the heap is measured around a second one.
    await flood('warm-up', UNANSWERED);
    // With every reply in, the server may still be letting go of the last requests (20 MiB were
    // seen at once on a busy machine, none 500 ms later): the heap is read once it holds still.
    let last = await sidecarHeap();
    const holdingStill = async () => {
      const now = await sidecarHeap();
      const still = Math.abs(now - last) < 1024 * 1024;
      last = now;
      return still ? now : undefined;
    };
    const heapBefore = await waitFor('the heap to hold still', holdingStill, 10_000, 250);
    const replies = await flood('never', UNANSWERED);
    // Each one ended, and by its deadline: how soon is the machine's business, not the test's.
    for (const text of replies) {
      assert.match(text, /"isError":true/, text.slice(0, 300));
      assert.match(text, /the editor did not answer diff\/open within 1 s/, text.slice(0, 300));
    }
    let grown = 0;
    const givenBack = async () => {
      grown = (await sidecarHeap()) - heapBefore;
      return grown < 12 * 1024 * 1024 ? grown : undefined;
    };
    await waitFor('the heap given back', givenBack, 10_000, 500).catch(() =>
      assert.fail(`the sidecar's heap grew by ${grown} bytes and stayed so for 10 s`),
    );

    scene.policy = 'show';
    const file = join(sandbox.workspace, 'after.txt');
    const diff = gemini.openDiff(file, 'accepted\n');
    await diff.opened;
    const { params } = await openRequest(file);
    const reply = await editor.request('diff/accepted', { id: params!.id, content: 'accepted\n' });
    assert.deepEqual(reply.result, {});
    const result = await diff.result;
    assert.equal(result.status, 'accepted');
    assert.equal(result.content, 'accepted\n');
    await stillServing();
  });
});

describe('tandem bridge and diff replies that come wrong', () => {
  const { scene, openRequest, stillServing } = sidecarScene(BRIDGE_DEADLINE_MS);

  it('scrambled replies resolve nothing they were not meant for, each with a warning, and the sidecar keeps serving', async () => {
    const { sandbox, editor, gemini, other } = scene;
    // A diff/open held unanswered (well within its deadline), for replies of the wrong type and
    // shape.
    scene.policy = 'ignore';
    const fileC = join(sandbox.workspace, 'c.txt');
    const diffC = gemini.openDiff(fileC, 'C\n');
    const held = (await openRequest(fileC)).id as number;
    const lines = [
      { id: 999_999, result: {} },
      { id: String(held), result: {} },
      { id: [held], result: {} },
      { id: true, result: {} },
    ].map((reply) => JSON.stringify({ jsonrpc: '2.0', ...reply }));
    lines.push('this is not JSON', `{"jsonrpc":"2.0","id":${held},"result":`);
    for (const line of lines) editor.sendLine(line);
    await editor.waitForLog('ignored a reply to unknown request id 999999');
    await editor.waitForLog(`ignored a reply to unknown request id "${held}"`);
    await editor.waitForLog('refused a message whose id is not a string, a number or null');
    await editor.waitForLog('not JSON: this is not JSON');
    // The held diff's reply with a malformed error fails it at once, not at its deadline.
    editor.sendLine(JSON.stringify({ jsonrpc: '2.0', id: held, error: 'no' }));
    await assert.rejects(diffC.opened, /its error is not an object with an integer code/);
    await editor.waitForLog(`refused the reply to request ${held}`);
    // A reply after that one: ignored.
    editor.sendLine(JSON.stringify({ jsonrpc: '2.0', id: held, result: {} }));
    await editor.waitForLog(`ignored a reply to unknown request id ${held}`);

    // Two CLIs, one diff each.
    scene.policy = 'show';
    const fileA = join(sandbox.workspace, 'a.txt');
    const fileB = join(sandbox.workspace, 'b.txt');
    const diffA = gemini.openDiff(fileA, 'A\n');
    const diffB = other.openDiff(fileB, 'B\n');
    await Promise.all([diffA.opened, diffB.opened]);
    const idA = (await openRequest(fileA)).params!.id as string;
    const idB = (await openRequest(fileB)).params!.id as string;

    // Answers for a diff that is not open: refused, named, nothing else (one its deadline
    // closed: in the block above).
    const id = 'diff-unknown';
    const unknown = await editor.request('diff/accepted', { id, content: 'hijack\n' });
    assert.equal(unknown.error?.code, -32011);
    editor.notify('diff/accepted', { id, content: 'hijack\n' });
    editor.notify('diff/rejected', { id });
    await editor.waitForLog(`diff ${id} is not open`);
    const wrongParams = await editor.request('diff/accepted', { id: idA, content: 5 });
    assert.equal(wrongParams.error?.code, -32602);

    // Neither A nor B was touched; an answer for B ends B alone.
    const unsettled = Symbol('unsettled');
    const settled = (p: Promise<unknown>) => Promise.race([p, Promise.resolve(unsettled)]);
    assert.equal(await settled(diffA.result), unsettled);
    assert.equal(await settled(diffB.result), unsettled);
    assert.deepEqual(
      (await editor.request('diff/accepted', { id: idB, content: 'B!\n' })).result,
      {},
    );
    const resultB = await diffB.result;
    assert.equal(resultB.status, 'accepted');
    assert.equal(resultB.content, 'B!\n');
    assert.equal(await settled(diffA.result), unsettled);
    // A second answer for B is refused; A ends by its own answer alone.
    assert.equal((await editor.request('diff/rejected', { id: idB })).error?.code, -32011);
    assert.deepEqual((await editor.request('diff/rejected', { id: idA })).result, {});
    assert.equal((await diffA.result).status, 'rejected');
    await stillServing();
    assert.ok(!editor.stderr.some((line) => /TypeError|RangeError|fatal/.test(line)));
  });
});
