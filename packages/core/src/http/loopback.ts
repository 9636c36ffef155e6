import type { IncomingMessage } from 'node:http';
import type { AddressInfo, Server } from 'node:net';

/** The names a browser or a CLI on this machine reaches a loopback listener by. */
const LOOPBACK_NAMES = ['127.0.0.1', 'localhost', '[::1]'];

/**
 * The `Host` values a loopback listener on `port` may be reached by; any other name (a DNS
 * rebinding) is refused. `extraNames` for the few a caller allows on purpose.
 */
export function loopbackHosts(port: number, extraNames: string[] = []): string[] {
  return [...LOOPBACK_NAMES, ...extraNames].map((name) => `${name}:${port}`);
}

/** Listens on 127.0.0.1 only (`port` 0: a free one) and resolves with the port. */
export async function listenOnLoopback(server: Server, port = 0): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  return (server.address() as AddressInfo).port;
}

/**
 * Reads a request's body, or `undefined` once it grows past `limit` bytes. Stops reading
 * without destroying the request, so that a 413 reply can still be sent.
 */
export function readBodyWithin(
  request: IncomingMessage,
  limit: number,
): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) return void chunks.push(chunk);
      request.off('data', onData).off('end', onEnd).pause();
      resolve(undefined);
    };
    const onEnd = () => resolve(Buffer.concat(chunks));
    request.on('data', onData).on('end', onEnd).on('error', reject);
  });
}
