import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { once } from 'node:events';
import type { Logger } from '../log.js';
import { ConnectionCap } from '../http/connection-cap.js';
import { closeIdleConnections } from '../http/idle-connections.js';
import { Headers, Request, type WebResponse } from '../http/fetch-messages.js';
import { checkRequest, tooLarge, type GuardOptions } from '../http/guards.js';
import { listenOnLoopback, readBodyWithin } from '../http/loopback.js';

/** Routes an authenticated MCP request; the listener has done every check before this. */
export type McpRequestHandler = (
  request: Request,
  body: unknown,
  reply: (response: WebResponse) => Promise<void>,
) => Promise<void>;

export interface McpListenerOptions {
  token: string;
  allowContainerHost: boolean;
  maxBodyBytes: number;
  /** The connections the process holds (default: a cap of this listener's own). */
  connections?: ConnectionCap;
  log: Logger;
  handle: McpRequestHandler;
}

/** A connection must have sent its request's headers within this. */
const HEADERS_TIMEOUT_MS = 10_000;
/**
 * How long an idle connection is kept. The CLIs' fetch stops reusing one after 4 s (its default,
 * as the listener sends no keep-alive time): closing long after it, not at Node's 5 s, leaves no
 * moment when a busy client sends its next request on a connection the listener is closing.
 * Idle connections are few (the connection cap ends the oldest when they are not).
 */
const IDLE_CONNECTION_MS = 60_000;

/**
 * The HTTP listener on 127.0.0.1, port 0. Every request passes the guards before any byte of
 * its body is read; bodies are bounded; malformed JSON gets a JSON-RPC parse error. Nothing a
 * client sends can take the listener down.
 */
export class McpListener {
  private readonly server: Server;
  private guard: GuardOptions | undefined;
  /** Responses still being written, so that closing lets their last bytes out. */
  private readonly inFlight = new Set<Promise<void>>();
  constructor(private readonly options: McpListenerOptions) {
    this.server = createServer((req, res) => {
      this.serve(req, res).catch((error: unknown) => {
        options.log.error(`request failed: ${String(error)}`);
        if (!res.headersSent) sendJsonRpcError(res, 500, -32603, 'Internal error');
        else res.destroy();
      });
    });
    this.server.on('clientError', (_error, socket) => socket.destroy());
    // A connection that carried the token gives way last.
    (options.connections ?? new ConnectionCap()).guard(
      this.server,
      (req) => this.guard !== undefined && !checkRequest(req.headers, this.guard),
    );
    this.server.headersTimeout = HEADERS_TIMEOUT_MS;
    closeIdleConnections(this.server, IDLE_CONNECTION_MS);
  }

  /** The port listened on: 0 before `listen`, and still the same once closed. */
  get port(): number {
    return this.guard?.port ?? 0;
  }

  async listen(): Promise<number> {
    const port = await listenOnLoopback(this.server);
    this.guard = {
      port,
      token: this.options.token,
      allowContainerHost: this.options.allowContainerHost,
      maxBodyBytes: this.options.maxBodyBytes,
    };
    return port;
  }

  /**
   * Stops without waiting on idle streams (they would never end): responses get a moment to
   * flush what was already sent on them, then every connection is cut.
   */
  async close(): Promise<void> {
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    const grace = new Promise((resolve) => setTimeout(resolve, 1000).unref());
    await Promise.race([Promise.all(this.inFlight), grace]);
    this.server.closeAllConnections();
    await closed;
  }

  private async serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const refusal = this.guard && checkRequest(req.headers, this.guard);
    if (!this.guard || refusal) {
      const { status, message } = refusal ?? { status: 403, message: 'Forbidden' };
      return sendJsonRpcError(res, status, -32000, message, true);
    }
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    if (path !== '/mcp') return sendJsonRpcError(res, 404, -32000, 'Not Found: use /mcp', true);
    if (!['GET', 'POST', 'DELETE'].includes(req.method ?? '')) {
      return sendJsonRpcError(res, 405, -32000, 'Method Not Allowed', true);
    }

    let body: unknown;
    if (req.method === 'POST') {
      const raw = (await readBodyWithin(req, this.guard.maxBodyBytes))?.toString('utf8');
      if (raw === undefined) {
        return sendJsonRpcError(res, 413, -32000, tooLarge(this.guard.maxBodyBytes), true);
      }
      try {
        body = JSON.parse(raw);
      } catch {
        return sendJsonRpcError(res, 400, -32700, 'Parse error: the body is not valid JSON');
      }
    }

    const request = new Request(`http://${req.headers.host}${req.url}`, {
      method: req.method,
      headers: toHeaders(req),
    });
    await this.options.handle(request, body, (response) => {
      const writing = writeResponse(response, res);
      this.inFlight.add(writing);
      return writing.finally(() => this.inFlight.delete(writing));
    });
  }
}

function toHeaders(req: IncomingMessage): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (Array.isArray(value)) value.forEach((item) => headers.append(name, item));
    else if (value !== undefined) headers.set(name, value);
  }
  return headers;
}

/** Writes a Web `Response` to Node's response, chunk by chunk, until either side ends. */
async function writeResponse(response: WebResponse, res: ServerResponse): Promise<void> {
  res.writeHead(response.status, Object.fromEntries(response.headers));
  if (!response.body) {
    res.end();
    return;
  }
  res.flushHeaders();
  const reader = response.body.getReader();
  const cancel = () => void reader.cancel().catch(() => undefined);
  res.once('close', cancel);
  const closed = new Promise((resolve) => res.once('close', resolve));
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done || res.destroyed) break;
      if (!res.write(value)) await Promise.race([once(res, 'drain'), closed]);
    }
  } catch {
    // The client went away mid-stream: nothing more to write.
  } finally {
    res.off('close', cancel);
    res.end();
  }
}

function sendJsonRpcError(
  res: ServerResponse,
  status: number,
  code: number,
  message: string,
  closeConnection = false,
): void {
  const body = JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null });
  res.writeHead(status, {
    'Content-Type': 'application/json',
    'Content-Length': Buffer.byteLength(body),
    ...(closeConnection ? { Connection: 'close' } : {}),
  });
  res.end(body);
}
