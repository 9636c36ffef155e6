/**
 * What held against a hostile load, kept holding: a token holder's flood of diffs is answered at
 * once and shown, and the engine still stops, rejecting each.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { mcpHeaders, openMcpSession, RecordingEditor, Sandbox } from '@tandem/testkit';
import { startEngine } from './engine.fixture.js';
import type { Engine } from './engine.js';

function tokenOf(engine: Engine): string {
  const file = engine.discoveryFiles[0]!;
  return (JSON.parse(readFileSync(file, 'utf8')) as { authToken: string }).authToken;
}

/** `openDiff` as a CLI calls it; resolves with the tool result's text as the server sent it. */
async function openDiff(engine: Engine, sessionId: string, id: number, filePath: string) {
  const reply = await fetch(`http://127.0.0.1:${engine.port}/mcp`, {
    method: 'POST',
    headers: mcpHeaders(tokenOf(engine), sessionId),
    body: JSON.stringify({
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: { name: 'openDiff', arguments: { filePath, newContent: `proposal ${id}\n` } },
    }),
  });
  return reply.text();
}

describe('the engine under a hostile load', () => {
  let sandbox: Sandbox;
  let editor: RecordingEditor;
  let engine: Engine;

  before(async () => {
    sandbox = new Sandbox();
    editor = new RecordingEditor();
    engine = await startEngine(sandbox, editor, { sessionGraceMs: 300 });
  });

  after(async () => {
    await engine?.stop();
    sandbox?.remove();
  });

  it('1,000 concurrent openDiffs on one session: each answered at once, each shown, each rejected on stop', async () => {
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
