/**
 * Ten real Gemini clients on one `tandem bridge` (the built command), fifty diffs each, with the
 * sidecar stopped (SIGSTOP) for 11 s half-way: every diff is shown once, and every answer
 * reaches the client that opened it, once, with the editor's text. About 45-70 s on two shared
 * cores (the ten clients' start included).
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import {
  BridgeEditor,
  realClientIn,
  Sandbox,
  type BridgeMessage,
  type RealClient,
} from '@tandem/testkit';

const CLIENTS = 10;
const DIFFS_EACH = 50;
/** Longer than the companion's deadlines: 5 s for an idle connection, 10 s for headers. */
const STOPPED_MS = 11_000;
/** Every wait of a client: the stop and a loaded machine included. */
const CLIENT_TIMEOUT_MS = 120_000;

interface Shown {
  id: string;
  filePath: string;
}

describe('ten real clients, fifty diffs each, on one bridge stopped half-way', () => {
  let sandbox: Sandbox;
  let editor: BridgeEditor;
  let clients: RealClient[] = [];
  /** Every diff/open the editor was asked, in order. */
  const shown: Shown[] = [];
  /** What the editor answered for each diff, by file. */
  const answers = new Map<string, { status: 'accepted' | 'rejected'; content?: string }>();
  /** The sidecar's reply to each answer. */
  const replies: Promise<BridgeMessage>[] = [];

  before(async () => {
    sandbox = new Sandbox();
    editor = new BridgeEditor(sandbox.env());
    editor.handle('diff/open', (params) => {
      const { id, filePath } = params as unknown as Shown;
      shown.push({ id, filePath });
      // Half accepted (with the editor's text), half rejected.
      const accept = shown.length % 2 === 0;
      // Answered once the sidecar has its reply.
      setImmediate(() => {
        const content = `the editor's text for ${filePath}\n`;
        answers.set(filePath, accept ? { status: 'accepted', content } : { status: 'rejected' });
        replies.push(
          editor.request(
            accept ? 'diff/accepted' : 'diff/rejected',
            accept ? { id, content } : { id },
          ),
        );
      });
      return {};
    });
    editor.handle('diff/close', () => ({ content: '' }));
    const started = await editor.request('initialize', {
      protocol: { min: '1.1', max: '1.3' },
      editor: { name: 'load', displayName: 'Load', pid: process.pid },
      workspaceFolders: [sandbox.workspace],
    });
    assert.equal(started.error, undefined, JSON.stringify(started.error));
    clients = await Promise.all(
      Array.from({ length: CLIENTS }, () => realClientIn(sandbox, 'gemini')),
    );
    for (const client of clients) {
      assert.equal((await client.connect()).status, 'connected');
    }
  });

  after(async () => {
    editor?.process.kill('SIGCONT');
    await Promise.all([...clients.map((client) => client.kill()), editor?.kill()]);
    sandbox?.remove();
  });

  it('every diff is shown once and answered once, to the client that opened it', async () => {
    const half = (CLIENTS * DIFFS_EACH) / 2;
    let done = 0;
    let stopped: Promise<void> | undefined;
    const stopHalfWay = () => {
      if (++done !== half) return;
      editor.process.kill('SIGSTOP');
      stopped = new Promise((resolve) =>
        setTimeout(() => resolve(void editor.process.kill('SIGCONT')), STOPPED_MS),
      );
    };
    const results = await Promise.all(
      clients.map(async (client, c) => {
        const outcomes = [];
        // A real client holds one diff at a time.
        for (let n = 0; n < DIFFS_EACH; n++) {
          const filePath = join(sandbox.workspace, `client-${c}`, `file-${n}.txt`);
          const diff = client.openDiff(filePath, `proposed ${c}-${n}\n`, CLIENT_TIMEOUT_MS);
          await diff.opened;
          outcomes.push({ filePath, result: await diff.result });
          stopHalfWay();
        }
        return outcomes;
      }),
    );
    assert.ok(stopped, 'the sidecar was stopped half-way');
    await stopped;

    const files = shown.map((diff) => diff.filePath);
    assert.equal(files.length, CLIENTS * DIFFS_EACH);
    assert.equal(new Set(files).size, files.length, 'no diff shown twice');
    for (const { filePath, result } of results.flat()) {
      const answer = answers.get(filePath);
      assert.equal(result.status, answer?.status, filePath);
      if (answer?.status === 'accepted') assert.equal(result.content, answer.content, filePath);
    }
    // The sidecar took each answer (a second one for a diff would be refused).
    for (const reply of await Promise.all(replies)) assert.deepEqual(reply.result, {});
    // Every client is still connected, and no answer was sent twice or lost its way.
    for (const client of clients) assert.equal((await client.status()).status, 'connected');
    assert.ok(!editor.stderr.some((line) => /unknown diff|TypeError|RangeError|fatal/.test(line)));
  });
});
