import assert from 'node:assert/strict';
import { request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { test } from 'node:test';
import { memoryLogger, rawRequest, waitFor } from '@tandem/testkit';
import { ConnectionCap } from './connection-cap.js';
import { McpListener } from '../gemini-qwen/mcp-listener.js';

const TOKEN = 'a'.repeat(43);

test('idle and slowloris connections beyond the limit make room for a CLI; a CLI’s stream and its keep-alive connection are kept', async () => {
  const listener = new McpListener({
    token: TOKEN,
    allowContainerHost: false,
    maxBodyBytes: 1024,
    connections: new ConnectionCap(4),
    log: memoryLogger(),
    // A GET is a CLI's event stream, open until it leaves; a POST is answered at once.
    handle: async (incoming, _body, reply) => {
      if (incoming.method === 'GET') {
        const stream = new ReadableStream({
          start: (c) => c.enqueue(new TextEncoder().encode(': open\n\n')),
        });
        return reply(new Response(stream, { headers: { 'content-type': 'text/event-stream' } }));
      }
      return reply(Response.json({ jsonrpc: '2.0', id: 1, result: {} }));
    },
  });
  const port = await listener.listen();
  const headers = { host: `127.0.0.1:${port}`, authorization: `Bearer ${TOKEN}` };
  const sockets: Socket[] = [];
  try {
    let streamClosed = false;
    await new Promise<void>((resolve, reject) => {
      request({ port, host: '127.0.0.1', path: '/mcp', headers }, (response) => {
        response.once('data', () => resolve());
        response.on('close', () => (streamClosed = true));
      })
        .on('error', reject)
        .end();
    });
    // A CLI's keep-alive connection, idle between two requests.
    const cli = connect(port, '127.0.0.1');
    const post =
      `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${TOKEN}\r\n` +
      'Content-Type: application/json\r\nContent-Length: 2\r\n\r\n{}';
    let cliReplies = 0;
    cli.on('data', (chunk: Buffer) => {
      cliReplies += chunk.toString().match(/^HTTP\/1\.1 200/gm)?.length ?? 0;
    });
    cli.write(post);
    await waitFor('the first reply to the CLI', () => (cliReplies === 1 ? true : undefined));
    for (let i = 0; i < 10; i++) {
      const socket = connect(port, '127.0.0.1');
      socket.on('error', () => undefined);
      sockets.push(socket);
      await new Promise((resolve) => socket.once('connect', resolve));
      // Half of them trickle headers that never end (slowloris): no request, so idle all the same.
      if (i % 2 === 0) socket.write(`GET /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nX-Slow: `);
    }
    // The oldest idle connections were closed to keep within the limit.
    await waitFor('idle connections closed', () =>
      sockets.filter((s) => s.closed).length >= 8 ? true : undefined,
    );
    const { status } = await rawRequest(port, {
      method: 'POST',
      path: '/mcp',
      headers: { ...headers, 'content-type': 'application/json' },
      body: '{"jsonrpc":"2.0","id":1,"method":"ping"}',
    });
    assert.equal(status, 200);
    assert.equal(streamClosed, false, 'the open stream was kept');
    assert.equal(cli.closed, false, 'the CLI’s idle connection was kept');
    cli.write(post);
    await waitFor('the second reply to the CLI', () => (cliReplies === 2 ? true : undefined));
    cli.destroy();
  } finally {
    for (const socket of sockets) socket.destroy();
    await listener.close();
  }
});
