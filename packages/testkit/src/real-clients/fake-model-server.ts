import http from 'node:http';
import { listenOnLoopback } from '@tandem/core';

/** A reply of a fake model: its status, content type and whole body. */
export interface ModelReply {
  status: number;
  contentType: string;
  body: string;
}

/** Answers one POSTed JSON request to `path`; `undefined` for a path the model does not serve. */
export type ModelHandler = (path: string, request: unknown) => ModelReply | undefined;

/** How a fake model writes its chosen reply: as an event stream, or as one JSON body. */
export interface ReplyFormat<Reply> {
  /** The model named in the reply when the request names none. */
  defaultModel: string;
  stream(reply: Reply, model: string): string;
  json(reply: Reply, model: string): string;
}

/**
 * One scripted turn of a fake model: the reply `choose` picks for `request`, its kind recorded in
 * `replies`, written as a stream exactly when the request asks for one.
 */
export function scriptedTurn<
  Request extends { model?: string; stream?: boolean },
  Reply extends { kind: string },
>(
  request: Request,
  choose: (request: Request) => Reply,
  replies: Reply['kind'][],
  format: ReplyFormat<Reply>,
): ModelReply {
  const reply = choose(request);
  replies.push(reply.kind);
  const model = request.model ?? format.defaultModel;
  return request.stream
    ? { status: 200, contentType: 'text/event-stream', body: format.stream(reply, model) }
    : { status: 200, contentType: 'application/json', body: format.json(reply, model) };
}

function jsonError(status: number, message: string): ModelReply {
  return {
    status,
    contentType: 'application/json',
    body: JSON.stringify({ type: 'error', error: { type: 'invalid_request_error', message } }),
  };
}

/**
 * The server loop every fake model shares: a loopback HTTP server that reads each request's JSON
 * body and sends the handler's reply whole (a streamed reply is its event-stream text at once).
 */
export class FakeModelServer {
  private closed = false;

  private constructor(
    private readonly server: http.Server,
    readonly port: number,
  ) {}

  static async start(handle: ModelHandler): Promise<FakeModelServer> {
    const server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const path = new URL(req.url ?? '/', 'http://localhost').pathname;
        let reply: ModelReply | undefined;
        try {
          const body = Buffer.concat(chunks).toString('utf8');
          reply = req.method === 'POST' ? handle(path, JSON.parse(body)) : undefined;
          reply ??= jsonError(404, `no such endpoint: ${req.method} ${req.url}`);
        } catch {
          reply = jsonError(400, 'request body is not JSON');
        }
        res.writeHead(reply.status, {
          'content-type': reply.contentType,
          'cache-control': 'no-cache',
        });
        res.end(reply.body);
      });
    });
    return new FakeModelServer(server, await listenOnLoopback(server));
  }

  /** Safe to call twice. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
