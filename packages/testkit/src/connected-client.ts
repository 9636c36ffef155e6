import assert from 'node:assert/strict';
import { startRealClient, type ClientKind, type RealClient } from './real-clients/real-client.js';
import type { Sandbox } from './sandbox.js';

/**
 * A real client of `kind` in the sandbox (its workspace as the cwd, its private folders), once
 * it has connected to the editor there; when it cannot, it is ended and the test fails with its
 * reason.
 */
export async function connectedClientIn(sandbox: Sandbox, kind: ClientKind): Promise<RealClient> {
  const { workspace: cwd, tmpDir, qwenHome, home } = sandbox;
  const client = await startRealClient({ kind, cwd, tmpDir, qwenHome, home });
  try {
    const state = await client.connect();
    assert.equal(state.status, 'connected', `the ${kind} client did not connect: ${state.details}`);
    return client;
  } catch (error) {
    // No test holds it yet to end it.
    await client.kill();
    throw error;
  }
}
