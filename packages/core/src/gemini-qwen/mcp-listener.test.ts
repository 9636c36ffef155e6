import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { request } from 'node:http';
import { after, before, describe, it } from 'node:test';
import {
  memoryLogger,
  rawRequest,
  RecordingEditor,
  Sandbox,
  type RawReply,
  type RawRequest,
} from '@tandem/testkit';
import { initializeRequest } from '../clients/initialize-request.js';
import { startEngine } from '../engine.fixture.js';
import type { Engine } from '../engine.js';

/** A request with full control of the headers, to the MCP endpoint unless told. */
function send(port: number, options: RawRequest): Promise<RawReply> {
  return rawRequest(port, { method: 'POST', path: '/mcp', ...options });
}

const initialize = initializeRequest('security-test');

describe('the MCP listener refuses what it must and survives it', () => {
  let sandbox: Sandbox;
  let engine: Engine;
  let token: string;
  let good: Record<string, string>;
  const log = memoryLogger();

  before(async () => {
    sandbox = new Sandbox();
    engine = await startEngine(sandbox, new RecordingEditor(), {
      maxBodyBytes: 64 * 1024,
      log,
    });
    const lock = JSON.parse(await readFile(`${sandbox.qwenHome}/ide/${engine.port}.lock`, 'utf8'));
    token = lock.authToken;
    good = {
      host: `127.0.0.1:${engine.port}`,
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    };
  });

  after(async () => {
    await engine.stop();
    await sandbox.remove();
  });

  it('uses a token of at least 128 bits', () => {
    assert.ok(Buffer.from(token, 'base64url').length >= 16);
  });

  it('refuses a missing or wrong token with 401', async () => {
    const { authorization: _, ...noToken } = good;
    assert.equal((await send(engine.port, { headers: noToken, body: initialize })).status, 401);
    const wrong = { ...good, authorization: `Bearer ${token.slice(0, -1)}x` };
    assert.equal((await send(engine.port, { headers: wrong, body: initialize })).status, 401);
    const notBearer = { ...good, authorization: `Basic ${token}` };
    assert.equal((await send(engine.port, { headers: notBearer, body: initialize })).status, 401);
  });

  it('refuses a foreign Host with 403, before looking at the token', async () => {
    for (const host of [
      'evil.example:80',
      `example.com:${engine.port}`,
      '127.0.0.1',
      `127.0.0.1:${engine.port + 1}`,
    ]) {
      const reply = await send(engine.port, { headers: { ...good, host }, body: initialize });
      assert.equal(reply.status, 403, host);
    }
    const docker = { ...good, host: `host.docker.internal:${engine.port}` };
    assert.equal((await send(engine.port, { headers: docker, body: initialize })).status, 403);
  });

  it('accepts every loopback name for its own port', async () => {
    for (const host of [
      `127.0.0.1:${engine.port}`,
      `localhost:${engine.port}`,
      `[::1]:${engine.port}`,
    ]) {
      const reply = await send(engine.port, { headers: { ...good, host }, body: initialize });
      assert.equal(reply.status, 200, `${host}: ${reply.body}`);
    }
  });

  it('refuses any Origin with 403, even its own', async () => {
    for (const origin of ['https://evil.example', `http://127.0.0.1:${engine.port}`, 'null']) {
      const reply = await send(engine.port, { headers: { ...good, origin }, body: initialize });
      assert.equal(reply.status, 403, origin);
    }
  });

  it('refuses an oversized body with 413 and a clear message, declared or not', async () => {
    const big = Buffer.alloc(200 * 1024, 'a');
    const declared = await send(engine.port, { headers: good, body: big });
    assert.equal(declared.status, 413);
    assert.match(declared.body, /exceeds 65536 bytes/);
    const chunked = await new Promise<number>((resolve, reject) => {
      const req = request(
        {
          host: '127.0.0.1',
          port: engine.port,
          method: 'POST',
          path: '/mcp',
          headers: { ...good, 'transfer-encoding': 'chunked' },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('error', reject);
      for (let i = 0; i < 10; i++) req.write(Buffer.alloc(32 * 1024, 'b'));
      req.end();
    });
    assert.equal(chunked, 413);
  });

  it('answers garbage with a JSON-RPC parse error', async () => {
    const reply = await send(engine.port, { headers: good, body: '{"jsonrpc": "2.0", "method": ' });
    assert.equal(reply.status, 400);
    assert.equal(JSON.parse(reply.body).error.code, -32700);
  });

  it('answers requests that are valid JSON but not valid MCP with a JSON-RPC error', async () => {
    for (const body of [
      '[]',
      '42',
      '{"hello":"world"}',
      '{"jsonrpc":"2.0","id":1,"method":"tools/list"}',
    ]) {
      const reply = await send(engine.port, { headers: good, body });
      assert.ok(reply.status >= 400 && reply.status < 500, `${body}: ${reply.status}`);
      assert.ok(JSON.parse(reply.body).error, body);
    }
  });

  it('answers an unknown session with 404, other paths with 404 and other methods with 405', async () => {
    const unknown = await send(engine.port, {
      headers: { ...good, 'mcp-session-id': 'no-such-session' },
      body: '{"jsonrpc":"2.0","id":2,"method":"tools/list"}',
    });
    assert.equal(unknown.status, 404);
    assert.equal(
      (await send(engine.port, { path: '/other', headers: good, body: initialize })).status,
      404,
    );
    assert.equal(
      (await send(engine.port, { method: 'PUT', headers: good, body: initialize })).status,
      405,
    );
  });

  it('is still serving after all of that', async () => {
    const reply = await send(engine.port, { headers: good, body: initialize });
    assert.equal(reply.status, 200);
    assert.match(reply.body, /"serverInfo"/);
  });
});

describe('host.docker.internal', () => {
  it('is accepted only when the host turns it on', async () => {
    const sandbox = new Sandbox();
    const engine = await startEngine(sandbox, new RecordingEditor(), { allowContainerHost: true });
    try {
      const lock = JSON.parse(
        await readFile(`${sandbox.qwenHome}/ide/${engine.port}.lock`, 'utf8'),
      );
      const reply = await send(engine.port, {
        headers: {
          host: `host.docker.internal:${engine.port}`,
          authorization: `Bearer ${lock.authToken}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: initialize,
      });
      assert.equal(reply.status, 200);
    } finally {
      await engine.stop();
      await sandbox.remove();
    }
  });
});
