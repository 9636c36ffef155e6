import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { RecordingEditor, Sandbox, startRealClient } from '@tandem/testkit';
import { startEngine } from '../engine.fixture.js';
import type { Engine } from '../engine.js';
import { containerFacts, containerTerminalVariables, geminiHost } from './container-rules.js';

describe('containers', () => {
  test('Gemini CLI dials host.docker.internal only in a container without an override', () => {
    const docker = (path: string) => path === '/.dockerenv';
    const podman = (path: string) => path === '/run/.containerenv';
    assert.equal(geminiHost(containerFacts({}, () => false)), '127.0.0.1');
    assert.equal(geminiHost(containerFacts({}, docker)), 'host.docker.internal');
    assert.equal(geminiHost(containerFacts({}, podman)), 'host.docker.internal');
    for (const name of [
      'SSH_CONNECTION',
      'VSCODE_REMOTE_CONTAINERS_SESSION',
      'REMOTE_CONTAINERS',
    ]) {
      assert.equal(geminiHost(containerFacts({ [name]: 'x' }, docker)), '127.0.0.1', name);
    }
    assert.deepEqual(containerTerminalVariables(containerFacts({}, docker)), {
      REMOTE_CONTAINERS: 'true',
    });
    assert.deepEqual(containerTerminalVariables(containerFacts({}, () => false)), {});
    assert.deepEqual(
      containerTerminalVariables(containerFacts({ SSH_CONNECTION: 'x' }, docker)),
      {},
    );
  });
});

describe("the editor's terminals in a container", () => {
  const sandbox = new Sandbox('tandem-container-');
  let engine: Engine | undefined;
  after(async () => {
    await engine?.stop();
    sandbox.remove();
  });

  test('the real Gemini client connects with the terminal variables alone', async (t) => {
    if (!containerFacts({}).marker) {
      t.skip(
        'not in a container (no /.dockerenv or /run/.containerenv): Gemini CLI dials 127.0.0.1 anyway',
      );
      return;
    }
    const noOverride = {
      REMOTE_CONTAINERS: undefined,
      SSH_CONNECTION: undefined,
      VSCODE_REMOTE_CONTAINERS_SESSION: undefined,
    };
    // The engine runs where the editor runs: in this container, without an override of its own.
    const saved = { ...process.env };
    for (const name of Object.keys(noOverride)) delete process.env[name];
    let variables: Record<string, string>;
    try {
      engine = await startEngine(sandbox, new RecordingEditor());
      variables = engine.terminalEnv();
    } finally {
      Object.assign(process.env, saved);
    }
    assert.equal(variables.REMOTE_CONTAINERS, 'true');
    const connect = async (env: Record<string, string | undefined>) => {
      const client = await startRealClient({
        kind: 'gemini',
        cwd: sandbox.workspace,
        tmpDir: sandbox.tmpDir,
        qwenHome: sandbox.qwenHome,
        home: sandbox.home,
        env: { ...noOverride, ...env },
      });
      try {
        return await client.connect();
      } finally {
        await client.kill();
      }
    };
    // Without the variable the client's own container rule sends it to host.docker.internal.
    const withoutIt: Record<string, string> = { ...variables };
    delete withoutIt.REMOTE_CONTAINERS;
    assert.notEqual((await connect(withoutIt)).status, 'connected');
    const state = await connect(variables);
    assert.equal(state.status, 'connected', state.details);
  });
});
