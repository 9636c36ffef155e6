import { request, type IncomingHttpHeaders } from 'node:http';
import { connect, type Socket } from 'node:net';
import { waitFor } from './wait.js';

export interface RawReply {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface RawRequest {
  /** `GET` by default. */
  method?: string;
  /** `/` by default. */
  path?: string;
  /** Sent as they are; `Host` is `127.0.0.1:<port>` unless given. */
  headers?: Record<string, string>;
  body?: string | Buffer;
}

/**
 * One HTTP request to 127.0.0.1 with full control of the headers (fetch lets no test forge
 * `Host` or `Origin`), and the whole reply.
 */
export function rawRequest(port: number, options: RawRequest = {}): Promise<RawReply> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        method: options.method ?? 'GET',
        path: options.path ?? '/',
        headers: options.headers,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(chunks).toString('utf8'),
          }),
        );
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

/**
 * `count` connections to 127.0.0.1:`port` that never send a byte, as anyone on the machine can
 * open them; resolves once each is made (or refused). Destroy them when done.
 */
export async function idleSockets(port: number, count: number): Promise<Socket[]> {
  const sockets = Array.from({ length: count }, () =>
    connect(port, '127.0.0.1').on('error', () => undefined),
  );
  await waitFor('the idle connections to be made', () =>
    sockets.every((socket) => socket.readyState !== 'opening') ? true : undefined,
  );
  return sockets;
}
