import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { connect, type Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';

const IDLE_MS = 1000;

/**
 * A server in a process of its own. Half an idle time after it answers `/hold-soon`, it keeps
 * its event loop busy for twice the idle time, as a loaded machine does: the connection's idle
 * timer comes due while nothing reads the sockets.
 */
function startServer(): Promise<{ child: ChildProcess; port: number }> {
  const module = new URL('./idle-connections.ts', import.meta.url).href;
  const code = `
    import { createServer } from 'node:http';
    const { closeIdleConnections } = await import(${JSON.stringify(module)});
    const server = createServer((request, response) => {
      if (request.url === '/hold-soon') {
        // From the loop's check phase, as a long callback does: its timers phase comes next.
        setTimeout(() => setImmediate(() => {
          const until = Date.now() + ${IDLE_MS * 2};
          while (Date.now() < until);
        }), ${IDLE_MS / 2});
      }
      response.end('served ' + request.url);
    });
    closeIdleConnections(server, ${IDLE_MS});
    server.listen(0, '127.0.0.1', () => console.log(server.address().port));
  `;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    child.stdout!.once('data', (data: Buffer) => resolve({ child, port: Number(String(data)) }));
    child.once('exit', (code) => reject(new Error(`the server exited (${code})`)));
  });
}

/** A kept-alive connection that reads one response at a time. */
class Connection {
  private received = '';
  readonly socket: Socket;
  readonly closed: Promise<unknown>;
  constructor(port: number) {
    this.socket = connect(port, '127.0.0.1');
    this.socket.setEncoding('utf8');
    this.socket.on('data', (chunk: string) => (this.received += chunk));
    this.closed = once(this.socket, 'close');
  }
  send(path: string): void {
    this.socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`);
  }
  /** The body of the response to `path`, or why none came. */
  async response(path: string): Promise<string> {
    const body = `served ${path}`;
    const arrived = (async () => {
      while (!this.received.includes(body)) await once(this.socket, 'data');
      return body;
    })();
    const gone = this.closed.then(() => `the connection closed before the response to ${path}`);
    return Promise.race([arrived, gone]);
  }
}

describe('idle connections', () => {
  let server: { child: ChildProcess; port: number };
  before(async () => (server = await startServer()));
  after(() => server.child.kill('SIGKILL'));

  it('a request sent while the server was held up past the idle time is served, not cut', async () => {
    const connection = new Connection(server.port);
    connection.send('/hold-soon');
    assert.equal(await connection.response('/hold-soon'), 'served /hold-soon');
    // Sent while the server is held, after the connection's idle time has run out.
    await sleep(IDLE_MS * 1.5);
    connection.send('/next');
    assert.equal(await connection.response('/next'), 'served /next');
    connection.socket.destroy();
  });

  it('a connection that sends nothing more is closed', async () => {
    const connection = new Connection(server.port);
    connection.send('/only');
    assert.equal(await connection.response('/only'), 'served /only');
    await connection.closed;
  });
});
