import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { listenOnLoopback, readBodyWithin } from '@tandem/core';
import { ReviewAccess } from './review-access.js';
import { PageFiles } from './page-files.js';
import type { ReviewEvent, ReviewSnapshot } from './review-protocol.js';
import type { ReviewQueue } from './review-queue.js';

export interface ReviewServerOptions {
  queue: ReviewQueue;
  /** The built review page: the `dist` folder of packages/web. */
  pageDir: string | URL;
  workspaceFolders: string[];
  /** 0 (the default) picks a free port. */
  port?: number;
  /** The largest request body accepted, in bytes. */
  maxBodyBytes?: number;
  log: { warn(message: string): void; error(message: string): void };
}

const defaultMaxBodyBytes = 32 * 1024 * 1024;
/** Keeps idle streams alive through SSH tunnels and proxies that drop silent connections. */
const heartbeatMilliseconds = 15_000;

/** An error that ends a request with its status and message. */
class RequestError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/**
 * The HTTP side of `tandem serve`, on 127.0.0.1 only: the review page, a stream of review
 * events, and the user's answers, all behind the secret of the printed URL.
 */
export class ReviewServer {
  private readonly access: ReviewAccess;
  private readonly page: PageFiles;
  private readonly streams = new Set<ServerResponse>();
  private readonly maxBodyBytes: number;

  private constructor(
    private readonly server: Server,
    readonly port: number,
    private readonly options: ReviewServerOptions,
  ) {
    this.access = new ReviewAccess(port);
    this.page = new PageFiles(options.pageDir);
    this.maxBodyBytes = options.maxBodyBytes ?? defaultMaxBodyBytes;
    server.on('request', (request, response) => void this.handle(request, response));
  }

  static async start(options: ReviewServerOptions): Promise<ReviewServer> {
    const server = createServer();
    const port = await listenOnLoopback(server, options.port ?? 0);
    return new ReviewServer(server, port, options);
  }

  /** The one URL to open: it carries the secret. */
  get url(): string {
    return `http://127.0.0.1:${this.port}/?secret=${this.access.secret}`;
  }

  /** Ends the event streams and closes every connection. */
  async stop(): Promise<void> {
    for (const stream of this.streams) stream.end();
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.server.closeAllConnections();
    await closed;
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const nonce = randomBytes(16).toString('base64');
    setSecurityHeaders(response, nonce);
    try {
      await this.route(request, response, nonce);
    } catch (error) {
      if (!(error instanceof RequestError)) {
        this.options.log.error(`Review server: ${(error as Error).stack ?? String(error)}`);
      }
      const status = error instanceof RequestError ? error.status : 500;
      const message = error instanceof RequestError ? error.message : 'Internal error';
      if (response.headersSent) response.destroy();
      else sendError(response, status, message, request.url?.startsWith('/api/') ?? false);
    }
  }

  private async route(
    request: IncomingMessage,
    response: ServerResponse,
    nonce: string,
  ): Promise<void> {
    const method = request.method ?? 'GET';
    const changesState = method !== 'GET' && method !== 'HEAD';
    const refusal =
      this.access.checkHost(request) ?? this.access.checkOrigin(request, changesState);
    if (refusal) throw new RequestError(refusal.status, refusal.message);

    const url = parseTarget(request.url);
    const secret = url.searchParams.get('secret');
    if (method === 'GET' && url.pathname === '/' && secret !== null) {
      if (!this.access.isSecret(secret)) throw unauthorized();
      // Trade the secret for a cookie and drop it from the address bar and history.
      response.writeHead(303, { location: './', 'set-cookie': this.access.sessionCookie() });
      response.end();
      return;
    }
    if (!this.access.hasSession(request)) throw unauthorized();

    if (method === 'GET') return this.get(url.pathname, response, nonce);
    const answer = /^\/api\/reviews\/([^/]+)\/(draft|accept|reject)$/.exec(url.pathname);
    if (!answer) throw new RequestError(404, 'Not found');
    const [, encodedId, action] = answer;
    const expected = action === 'draft' ? 'PUT' : 'POST';
    if (method !== expected) throw new RequestError(405, `Use ${expected}`);
    const body = await this.readJson(request);
    return this.answer(decodePart(encodedId!), action!, body, response);
  }

  private async get(pathname: string, response: ServerResponse, nonce: string): Promise<void> {
    if (pathname === '/') {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      response.end(await this.page.index(nonce));
    } else if (pathname.startsWith('/assets/')) {
      const file = await this.page.asset(decodePart(pathname.slice('/assets/'.length)));
      if (!file) throw new RequestError(404, 'Not found');
      response.writeHead(200, { 'content-type': file.contentType });
      response.end(file.body);
    } else if (pathname === '/api/state') {
      sendJson(response, 200, this.snapshot());
    } else if (pathname === '/api/events') {
      this.openEventStream(response);
    } else {
      throw new RequestError(404, 'Not found');
    }
  }

  private answer(id: string, action: string, body: unknown, response: ServerResponse): void {
    const content = (body as { content?: unknown } | null)?.content;
    if (action !== 'reject' && typeof content !== 'string') {
      throw new RequestError(400, 'The body must be JSON: {"content": "<text>"}');
    }
    const queue = this.options.queue;
    if (action === 'draft') {
      if (!queue.updateDraft(id, content as string)) {
        throw new RequestError(409, 'This diff is no longer pending');
      }
    } else {
      const answer = action === 'accept' ? queue.accept(id, content as string) : queue.reject(id);
      if (!answer.ok)
        throw new RequestError(answer.code === 'not-open' ? 409 : 422, answer.message);
    }
    response.writeHead(204);
    response.end();
  }

  private openEventStream(response: ServerResponse): void {
    response.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8' });
    const send = (event: ReviewEvent) => response.write(`data: ${JSON.stringify(event)}\n\n`);
    send({ type: 'snapshot', snapshot: this.snapshot() });
    const unsubscribe = this.options.queue.subscribe(send);
    const heartbeat = setInterval(() => response.write(': alive\n\n'), heartbeatMilliseconds);
    this.streams.add(response);
    response.on('close', () => {
      unsubscribe();
      clearInterval(heartbeat);
      this.streams.delete(response);
    });
  }

  private snapshot(): ReviewSnapshot {
    return {
      workspaceFolders: this.options.workspaceFolders,
      clients: this.options.queue.clients(),
      reviews: this.options.queue.pending(),
    };
  }

  /** Reads a JSON body, refusing other content types and bodies over the size limit. */
  private async readJson(request: IncomingMessage): Promise<unknown> {
    const type = request.headers['content-type']?.split(';')[0]?.trim().toLowerCase();
    if (type !== 'application/json') {
      throw new RequestError(415, 'The body must be JSON (Content-Type: application/json)');
    }
    const tooLarge = new RequestError(
      413,
      `The body is larger than the limit of ${this.maxBodyBytes} bytes`,
    );
    if (Number(request.headers['content-length'] ?? 0) > this.maxBodyBytes) throw tooLarge;
    const body = await readBodyWithin(request, this.maxBodyBytes);
    if (!body) throw tooLarge;
    try {
      return JSON.parse(body.toString('utf8'));
    } catch {
      throw new RequestError(400, 'The body is not valid JSON');
    }
  }
}

/** The request's path and query; the host part of the URL is the `Host` header's business. */
function parseTarget(target: string | undefined): URL {
  if (target?.startsWith('/') && !target.startsWith('//')) {
    try {
      return new URL(target, 'http://host.invalid');
    } catch {
      // Reported below.
    }
  }
  throw new RequestError(400, 'Malformed address');
}

function decodePart(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    throw new RequestError(400, 'Malformed address');
  }
}

function unauthorized(): RequestError {
  return new RequestError(
    401,
    'Open the review page with the URL that tandem serve printed in its terminal.',
  );
}

function setSecurityHeaders(response: ServerResponse, nonce: string): void {
  response.setHeader(
    'content-security-policy',
    [
      "default-src 'none'",
      "script-src 'self'",
      // CodeMirror injects its style sheets; the page hands it this response's nonce.
      `style-src 'self' 'nonce-${nonce}'`,
      "img-src 'self' data:",
      "font-src 'self'",
      "connect-src 'self'",
      "base-uri 'none'",
      "form-action 'none'",
      "frame-ancestors 'none'",
    ].join('; '),
  );
  response.setHeader('x-content-type-options', 'nosniff');
  response.setHeader('x-frame-options', 'DENY');
  response.setHeader('referrer-policy', 'no-referrer');
  response.setHeader('cross-origin-opener-policy', 'same-origin');
  response.setHeader('cross-origin-resource-policy', 'same-origin');
  response.setHeader('cache-control', 'no-store');
}

function sendJson(response: ServerResponse, status: number, value: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
  response.end(JSON.stringify(value));
}

/**
 * JSON for the page's requests, a bare page for a person. The body of a refused request is
 * left unread, so the connection closes after the answer.
 */
function sendError(response: ServerResponse, status: number, message: string, api: boolean): void {
  response.setHeader('connection', 'close');
  if (api) return sendJson(response, status, { error: message });
  response.writeHead(status, { 'content-type': 'text/html; charset=utf-8' });
  response.end(
    '<!doctype html><meta charset="utf-8"><meta name="color-scheme" content="light dark">' +
      `<title>Tandem</title><h1>${headings[status] ?? 'Refused'}</h1>` +
      `<p>${escapeHtml(message)}</p>`,
  );
}

const headings: Record<number, string> = {
  401: 'Not signed in',
  404: 'Not found',
  500: 'Something went wrong',
};

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
