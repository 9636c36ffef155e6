import { request, type IncomingHttpHeaders } from 'node:http';
import { connect, type Socket } from 'node:net';
import { initializeRequest } from '@tandem/core';
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

/**
 * Opens an MCP session on a companion the way a CLI does (initialize, then initialized), without
 * its event stream; resolves with its session id.
 */
export async function openMcpSession(port: number, token: string): Promise<string> {
  const headers = mcpHeaders(token);
  const initialize = await fetch(`http://127.0.0.1:${port}/mcp`, {
    method: 'POST',
    headers,
    body: initializeRequest('load'),
  });
  await initialize.text();
  const sessionId = initialize.headers.get('mcp-session-id')!;
  const initialized = await fetch(`http://127.0.0.1:${port}/mcp`, {
    method: 'POST',
    headers: { ...headers, 'mcp-session-id': sessionId },
    body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
  });
  await initialized.text();
  return sessionId;
}

/**
 * Calls the tool `name` on an MCP session as a CLI does, without its event stream; resolves
 * with the reply's text as the server sent it.
 */
export async function callMcpTool(
  port: number,
  token: string,
  sessionId: string,
  call: { id: number; name: string; arguments: object },
): Promise<string> {
  const reply = await fetch(`http://127.0.0.1:${port}/mcp`, {
    method: 'POST',
    headers: mcpHeaders(token, sessionId),
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: call.id,
      method: 'tools/call',
      params: { name: call.name, arguments: call.arguments },
    }),
  }).catch((error: unknown) => {
    // fetch says only "fetch failed": what failed is its cause.
    const cause = error instanceof Error && error.cause ? `: ${String(error.cause)}` : '';
    throw new Error(`${call.name} call ${call.id} failed${cause}`, { cause: error });
  });
  return reply.text();
}

/**
 * The headers of a CLI's request with `token` (and, once it has one, its session). Each request
 * has a connection of its own: one kept alive between requests may be closed by the server (5 s
 * idle) just as the next request takes it, which a busy machine's late timers make likely.
 */
export function mcpHeaders(token: string, sessionId?: string): Record<string, string> {
  return {
    authorization: `Bearer ${token}`,
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    connection: 'close',
    ...(sessionId && { 'mcp-session-id': sessionId }),
  };
}
