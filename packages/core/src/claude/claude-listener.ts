import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { CLAUDE_SUBPROTOCOL, CLAUDE_TOKEN_HEADER } from '../clients/claude-rules.js';
import { ConnectionCap } from '../http/connection-cap.js';
import { checkRequest, type GuardOptions, type Refusal } from '../http/guards.js';
import { listenOnLoopback } from '../http/loopback.js';
import type { Logger } from '../log.js';

/** Takes over an upgrade request that passed every check. */
export type UpgradeHandler = (request: IncomingMessage, socket: Duplex, head: Buffer) => void;

export interface ClaudeListenerOptions {
  token: string;
  allowContainerHost: boolean;
  /** The connections the process holds (default: a cap of this listener's own). */
  connections?: ConnectionCap;
  log: Logger;
  upgrade: UpgradeHandler;
}

/** A connection must have sent its request's headers within this. */
const HEADERS_TIMEOUT_MS = 10_000;

/**
 * Claude Code's listener on 127.0.0.1, port 0: WebSocket upgrades only. Each passes the shared
 * guards (`Host`, no `Origin`, the token of `x-claude-code-ide-authorization`) and must ask for
 * the `mcp` subprotocol before anything else of it is handled; every other request is refused.
 */
export class ClaudeListener {
  private readonly server: Server;
  private readonly connections: ConnectionCap;
  private guard: GuardOptions | undefined;

  constructor(private readonly options: ClaudeListenerOptions) {
    this.server = createServer((req, res) => {
      const refusal = this.refusal(req) ?? {
        status: 426,
        message: 'Upgrade Required: Claude Code connects with a WebSocket',
      };
      res.writeHead(refusal.status, { 'Content-Type': 'text/plain', Connection: 'close' });
      res.end(`${refusal.message}\n`);
    });
    this.server.on('upgrade', (req: IncomingMessage, socket: Socket, head: Buffer) => {
      const refusal = this.refusal(req) ?? this.notMcp(req);
      if (refusal) {
        options.log.warn(`refused a WebSocket upgrade: ${refusal.message}`);
        return refuse(socket, refusal);
      }
      this.connections.holdUpgraded(socket);
      options.upgrade(req, socket, head);
    });
    this.server.on('clientError', (_error, socket) => socket.destroy());
    this.connections = options.connections ?? new ConnectionCap();
    this.connections.guard(this.server, () => false);
    this.server.headersTimeout = HEADERS_TIMEOUT_MS;
  }

  /** The port listened on (0 before `listen`). */
  get port(): number {
    return this.guard?.port ?? 0;
  }

  async listen(): Promise<number> {
    const port = await listenOnLoopback(this.server);
    this.guard = claudeGuard(port, this.options);
    return port;
  }

  /** Stops listening; the sessions close their own WebSockets. */
  async close(): Promise<void> {
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.server.closeAllConnections();
    await closed;
  }

  private refusal(req: IncomingMessage): Refusal | undefined {
    return this.guard
      ? checkRequest(req.headers, this.guard)
      : { status: 403, message: 'Forbidden' };
  }

  private notMcp(req: IncomingMessage): Refusal | undefined {
    const offered = (req.headers['sec-websocket-protocol'] ?? '').split(',').map((p) => p.trim());
    if (
      req.headers.upgrade?.toLowerCase() === 'websocket' &&
      offered.includes(CLAUDE_SUBPROTOCOL)
    ) {
      return undefined;
    }
    return {
      status: 403,
      message: `Forbidden: a WebSocket with subprotocol ${CLAUDE_SUBPROTOCOL}`,
    };
  }
}

/** The shared guards, with the token where Claude Code sends it. */
function claudeGuard(port: number, options: ClaudeListenerOptions): GuardOptions {
  return {
    port,
    token: options.token,
    allowContainerHost: options.allowContainerHost,
    // An upgrade has no body; a WebSocket frame's size is bounded by the session.
    maxBodyBytes: 0,
    tokenOf: (headers) => {
      const value = headers[CLAUDE_TOKEN_HEADER];
      return Array.isArray(value) ? undefined : value;
    },
  };
}

/** Answers a refused upgrade with an HTTP status and closes the connection. */
function refuse(socket: Duplex, refusal: Refusal): void {
  const body = `${refusal.message}\n`;
  socket.end(
    `HTTP/1.1 ${refusal.status} Refused\r\nConnection: close\r\nContent-Type: text/plain\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
}
