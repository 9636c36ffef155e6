/**
 * What held against a hostile load, kept holding: a token holder's flood of diffs is answered at
 * once and shown, and the engine still stops, rejecting each; sessions that never open their
 * stream are reclaimed, and a real client still connects.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import {
  callMcpTool,
  engineForBlock,
  openMcpSession,
  realClientIn,
  RecordingEditor,
  Sandbox,
  waitFor,
} from '@tandem/testkit';
import { startEngine } from './engine.fixture.js';
import type { Engine } from './engine.js';

function tokenOf(engine: Engine): string {
  const file = engine.discoveryFiles[0]!;
  return (JSON.parse(readFileSync(file, 'utf8')) as { authToken: string }).authToken;
}

/** `openDiff` as a CLI calls it; resolves with the tool result's text as the server sent it. */
function openDiff(engine: Engine, sessionId: string, id: number, filePath: string) {
  return callMcpTool(engine.port, tokenOf(engine), sessionId, {
    id,
    name: 'openDiff',
    arguments: { filePath, newContent: `proposal ${id}\n` },
  });
}

describe('the engine under a hostile load', () => {
  const world = engineForBlock(() => new RecordingEditor(), { sessionGraceMs: 300 });

  it('1,000 concurrent openDiffs on one session: each answered at once, each shown, each rejected on stop', async () => {
    const { sandbox, editor, engine } = world;
    const sessionId = await openMcpSession(engine.port, tokenOf(engine));
    const files = Array.from({ length: 1000 }, (_, n) => join(sandbox.workspace, `f${n}.txt`));
    const replies = await Promise.all(files.map((file, n) => openDiff(engine, sessionId, n, file)));
    for (const reply of replies) {
      assert.match(reply, /"result":\{"content":\[\]\}/, reply.slice(0, 300));
    }
    assert.equal(editor.shown.size, 1000);
    await engine.stop();
    assert.equal(editor.closed.length, 1000);
  });
});

/** The heap in use after a full collection, in bytes. */
function heapAfterCollection(): number {
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
  return process.memoryUsage().heapUsed;
}

describe('sessions that never open their stream', () => {
  const SESSIONS = 2000;

  it(`${SESSIONS} of them are all reclaimed, the heap back where it was; a real client connects during and after`, async () => {
    const sandbox = new Sandbox();
    const editor = new RecordingEditor();
    // The lifetime the engine gives such a session (30 s by default), short for the test.
    const engine = await startEngine(sandbox, editor, { streamlessSessionMs: 1500 });
    const gemini = await realClientIn(sandbox, 'gemini');
    const late = await realClientIn(sandbox, 'gemini');
    try {
      const token = tokenOf(engine);
      // Warmed up: the first session loads the MCP SDK, which stays.
      await openMcpSession(engine.port, token);
      await waitFor('the first session reclaimed', () =>
        engine.clients().length === 0 ? true : undefined,
      );
      const before = heapAfterCollection();

      let opened = 0;
      const opening = (async () => {
        for (let batch = 0; batch < SESSIONS / 100; batch++) {
          await Promise.all(Array.from({ length: 100 }, () => openMcpSession(engine.port, token)));
          opened += 100;
        }
      })();
      await waitFor('half of the sessions open', () => (opened >= SESSIONS / 2 ? true : undefined));
      assert.equal((await gemini.connect()).status, 'connected', 'a client among the flood');
      await opening;

      await waitFor('every streamless session reclaimed', () =>
        engine.clients().length === 1 ? true : undefined,
      );
      const grown = heapAfterCollection() - before;
      assert.ok(grown < 8 * 1024 * 1024, `the heap grew by ${grown} bytes`);
      assert.equal((await gemini.status()).status, 'connected', 'the client with a stream stays');
      assert.equal((await late.connect()).status, 'connected', 'a client after the flood');
    } finally {
      await Promise.all([gemini.kill(), late.kill()]);
      await engine.stop();
      sandbox.remove();
    }
  });
});
