import { readFileSync } from 'node:fs';
import type { IncomingMessage, Server } from 'node:http';
import type { Socket } from 'node:net';

/**
 * The connections one process holds, for every server it runs (`tandem serve` runs two): at most
 * half of its file descriptors, so that idle connections, which anyone on this machine can open
 * on any of its ports without a secret, never use them up and lock a CLI out. When full, the
 * oldest connection with no request under way makes room, one that never carried a trusted
 * request first (a CLI's idle keep-alive connection only when there is no other); a connection
 * with a request under way (a CLI's event stream, the page's) is never cut for a newcomer.
 */
export class ConnectionCap {
  /** Every open connection, oldest first: its requests under way, and whether it is trusted. */
  private readonly connections = new Map<Socket, { requests: number; trusted: boolean }>();

  constructor(private readonly max = connectionLimit()) {}

  /**
   * Holds `server`'s connections within the cap. `trusted` says whether a request shows its
   * server's secret; a connection that carried one gives way last.
   */
  guard(server: Server, trusted: (request: IncomingMessage) => boolean): void {
    server.on('connection', (socket: Socket) => this.admit(socket));
    server.on('request', (request, response) => {
      const connection = this.connections.get(request.socket);
      if (!connection) return;
      connection.requests += 1;
      connection.trusted ||= trusted(request);
      response.once('close', () => (connection.requests -= 1));
    });
  }

  /**
   * A connection upgraded after showing its server's secret (a WebSocket) is under way for the
   * rest of its life: it is never cut for a newcomer.
   */
  holdUpgraded(socket: Socket): void {
    const connection = this.connections.get(socket);
    if (!connection) return;
    connection.requests += 1;
    connection.trusted = true;
  }

  private admit(socket: Socket): void {
    if (this.connections.size >= this.max) {
      const idle = [...this.connections].filter(([, { requests }]) => requests === 0);
      const victim = (idle.find(([, { trusted }]) => !trusted) ?? idle[0])?.[0];
      if (!victim) return void socket.destroy();
      this.connections.delete(victim);
      victim.destroy();
    }
    this.connections.set(socket, { requests: 0, trusted: false });
    socket.once('close', () => this.connections.delete(socket));
  }
}

/**
 * Half of the process's limit of open files (the other half for everything else it opens),
 * between 16 and 1024; 256 where the limit cannot be read.
 */
function connectionLimit(): number {
  let soft = 512;
  try {
    const line = /^Max open files\s+(\d+|unlimited)/m.exec(
      readFileSync('/proc/self/limits', 'utf8'),
    );
    if (line?.[1] && line[1] !== 'unlimited') soft = Number(line[1]);
  } catch {
    // Not Linux: the default above.
  }
  return Math.min(1024, Math.max(16, Math.floor(soft / 2)));
}
