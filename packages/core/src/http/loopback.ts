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
export function listenOnLoopback(server: Server, port = 0): Promise<number> {
  return listenOn(server, '127.0.0.1', port);
}

/**
 * Listens with `v4` on 127.0.0.1 and with `v6` on [::1], on one port (`port` 0: a free one), so
 * that no other user can take that port on the other loopback, where a browser given
 * `localhost` may go first. A machine without an IPv6 loopback has no such port to take.
 */
export async function listenOnBothLoopbacks(v4: Server, v6: Server, port = 0): Promise<number> {
  for (let attempt = 1; ; attempt++) {
    const chosen = await listenOn(v4, '127.0.0.1', port);
    try {
      await listenOn(v6, '::1', chosen);
      return chosen;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EADDRNOTAVAIL' || code === 'EAFNOSUPPORT') return chosen;
      await new Promise((resolve) => v4.close(resolve));
      // Taken on [::1] by someone else: a free port is drawn again; a chosen one is refused.
      if (port !== 0 || attempt === 10) throw error;
    }
  }
}

async function listenOn(server: Server, host: string, port: number): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
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
