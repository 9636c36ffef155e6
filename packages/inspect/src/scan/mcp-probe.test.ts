import assert from 'node:assert/strict';
import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import type { Engine } from '@tandem/core';
import { probeCompanion } from './mcp-probe.js';
import { closedPort, TestScene } from './test-scene.fixture.js';
import { listenOnLoopback } from '@tandem/core';

let scene: TestScene;
let engine: Engine;
let token: string;
let notMcp: Server;
let forbidding: Server;

before(async () => {
  scene = new TestScene();
  engine = await scene.startEngine([scene.folder('ws')]);
  token = scene.tokenOf(engine);
  notMcp = await listen((_req, res) =>
    res.writeHead(200, { 'content-type': 'text/html' }).end('<p>hi</p>'),
  );
  forbidding = await listen((_req, res) => res.writeHead(403).end());
});

after(async () => {
  for (const server of [notMcp, forbidding]) await new Promise((resolve) => server.close(resolve));
  await scene.dispose();
});

async function listen(handler: RequestListener): Promise<Server> {
  const server = createServer(handler);
  await listenOnLoopback(server);
  return server;
}

function portOf(server: Server): number {
  return (server.address() as AddressInfo).port;
}

test('a companion that accepts the token: its tools, and no session left behind', async () => {
  const result = await probeCompanion({ host: '127.0.0.1', port: engine.port, token });
  assert.equal(result.outcome, 'ok', result.detail);
  assert.deepEqual(result.tools?.sort(), ['closeDiff', 'openDiff']);
  assert.equal(result.server?.name, 'tandem');
  assert.deepEqual(engine.clients(), []);
});

test('a wrong or missing token is refused with 401', async () => {
  const wrong = await probeCompanion({ host: '127.0.0.1', port: engine.port, token: 'nope' });
  assert.equal(wrong.outcome, 'unauthorized');
  const none = await probeCompanion({ host: '127.0.0.1', port: engine.port });
  assert.equal(none.outcome, 'unauthorized');
});

test('a companion that refuses the request (403, as for a Host it does not allow)', async () => {
  const result = await probeCompanion({ host: '127.0.0.1', port: portOf(forbidding), token });
  assert.equal(result.outcome, 'forbidden', result.detail);
});

test('nothing listening, an unknown host name, something that is not MCP', async () => {
  const refused = await probeCompanion({ host: '127.0.0.1', port: await closedPort(), token });
  assert.equal(refused.outcome, 'refused');
  const unknown = await probeCompanion({ host: 'no-such-host.invalid', port: engine.port, token });
  assert.equal(unknown.outcome, 'unresolvable');
  const html = await probeCompanion({ host: '127.0.0.1', port: portOf(notMcp), token });
  assert.equal(html.outcome, 'not-mcp');
});
