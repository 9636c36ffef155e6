/**
 * The built `tandem` command loads its bundles through the compile cache: `tandem bridge`, as an
 * editor starts it, with the real Gemini client connecting (which loads the MCP sessions' bundle).
 */
import assert from 'node:assert/strict';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { BridgeEditor, realClientIn, Sandbox, waitFor, type RealClient } from '@tandem/testkit';

const sandbox = new Sandbox();
after(() => sandbox.remove());

const env = sandbox.env({ NODE_DEBUG: 'tandem-compile-cache' });
const folder = join(env.XDG_CACHE_HOME!, 'tandem', 'compile-cache');

/** What the cache did for `bundle` in the sidecar's log: `used`, `missed`, … */
const outcome = (editor: BridgeEditor, bundle: string) =>
  new RegExp(`TANDEM-COMPILE-CACHE \\d+: ${bundle}-[0-9a-f]{16}: (\\w+) `)
    .exec(editor.stderr.join('\n'))
    ?.at(1);

/** A sidecar that answered `initialize`, with the real Gemini client connected to it. */
async function startConnected(): Promise<{ editor: BridgeEditor; stop(): Promise<void> }> {
  const editor = new BridgeEditor(env);
  let client: RealClient | undefined;
  try {
    const reply = await editor.request('initialize', {
      protocol: { min: '1.0', max: '1.3' },
      editor: { name: 'cache-test', displayName: 'Cache Test', pid: process.pid },
      workspaceFolders: [sandbox.workspace],
    });
    assert.equal(reply.error, undefined);
    client = await realClientIn(sandbox, 'gemini');
    const state = await client.connect();
    assert.equal(state.status, 'connected', state.details);
  } catch (error) {
    await client?.kill();
    await editor.kill();
    throw error;
  }
  return {
    editor,
    async stop() {
      await client.kill();
      await editor.request('shutdown');
      assert.equal(await editor.exited, 0);
    },
  };
}

describe('tandem bridge with its compile cache', () => {
  it('writes the entries after its first start, and the next start uses them', async () => {
    const first = await startConnected();
    try {
      assert.equal(outcome(first.editor, 'bridge'), 'missed');
      await first.editor.waitForLog('mcp-sessions');
      assert.equal(outcome(first.editor, 'mcp-sessions'), 'missed');
      const entries = await waitFor('both entries', () => {
        const names = readdirSync(folder).filter((name) => name.endsWith('.cache'));
        return names.length === 2 ? names : undefined;
      });
      assert.deepEqual(entries.map((name) => name.replace(/-[0-9a-f-]+\.cache$/, '')).sort(), [
        'bridge',
        'mcp-sessions',
      ]);
      assert.equal(statSync(folder).mode & 0o777, 0o700);
      for (const name of entries) assert.equal(statSync(join(folder, name)).mode & 0o777, 0o600);
    } finally {
      await first.stop();
    }

    const second = await startConnected();
    try {
      assert.equal(outcome(second.editor, 'bridge'), 'used');
      await second.editor.waitForLog('mcp-sessions');
      assert.equal(outcome(second.editor, 'mcp-sessions'), 'used');
    } finally {
      await second.stop();
    }
  });
});
