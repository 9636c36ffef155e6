import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import {
  ConnectionCap,
  listenOnBothLoopbacks,
  MAX_ANSWER_BYTES,
  readBodyWithin,
} from '@tandem/core';
import { ReviewAccess, SECRET_HEADER, TOKEN_HEADER } from './review-access.js';
import { PageFiles } from './page-files.js';
import type { ReviewEvent, ReviewSnapshot } from '@tandem/web';
import type { ReviewQueue } from './review-queue.js';
import { escapeHtml } from './html-text.js';

export interface ReviewServerOptions {
  queue: ReviewQueue;
  /** The built review page: the `dist` folder of packages/web. */
  pageDir: string | URL;
  workspaceFolders: string[];
  /** The command that starts this server again, as the user runs it: the page shows it once stopped. */
  restartCommand?: string;
  /** 0 (the default) picks a free port. */
  port?: number;
  /**
   * The largest request body accepted, in bytes (default `MAX_ANSWER_BYTES`: any proposal the
   * engine accepted can be accepted back, JSON-escaped).
   */
  maxBodyBytes?: number;
  /** A page traded the URL's secret: the one printed URL no longer opens; this one does. */
  secretUsed?: (nextUrl: string) => void;
  /** The connections of the whole process, shared with its companion (default: its own). */
  connections?: ConnectionCap;
  log: { warn(message: string): void; error(message: string): void };
}

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
    /** The same page on 127.0.0.1 and on [::1]. */
    private readonly servers: Server[],
    readonly port: number,
    private readonly options: ReviewServerOptions,
  ) {
    this.access = new ReviewAccess(port);
    this.page = new PageFiles(options.pageDir);
    this.maxBodyBytes = options.maxBodyBytes ?? MAX_ANSWER_BYTES;
    const connections = options.connections ?? new ConnectionCap();
    for (const server of servers) {
      server.on('request', (request, response) => void this.handle(request, response));
      // The page's connections, which showed its token, give way last.
      connections.guard(server, (request) =>
        this.access.isPageToken(header(request, TOKEN_HEADER)),
      );
    }
  }

  static async start(options: ReviewServerOptions): Promise<ReviewServer> {
    const servers = [createServer(), createServer()] as const;
    // Held on both loopbacks: no other user's server can answer a `localhost` of this port.
    const port = await listenOnBothLoopbacks(...servers, options.port ?? 0);
    return new ReviewServer(
      servers.filter((server) => server.listening),
      port,
      options,
    );
  }

  /**
   * The URL to open: its fragment carries a secret that opens one page (a reload of that page
   * stays open; another browser needs the next URL).
   */
  get url(): string {
    return `http://127.0.0.1:${this.port}/#${this.access.secret}`;
  }

  /** Ends the event streams and closes every connection. */
  async stop(): Promise<void> {
    for (const stream of this.streams) stream.end();
    await Promise.all(
      this.servers.map((server) => {
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeAllConnections();
        return closed;
      }),
    );
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
    // The page and its code hold nothing of the user's: only the API asks who is asking.
    if (method === 'GET' && !url.pathname.startsWith('/api/')) {
      return this.getPage(url.pathname, response, nonce);
    }
    if (url.pathname === '/api/session') {
      if (method !== 'POST') throw new RequestError(405, 'Use POST');
      return this.signIn(request, response);
    }
    // EventSource cannot send a header: the event stream takes the token in its address.
    const token =
      header(request, TOKEN_HEADER) ??
      (method === 'GET' && url.pathname === '/api/events'
        ? (url.searchParams.get('token') ?? undefined)
        : undefined);
    if (!this.access.isPageToken(token)) throw unauthorized();

    if (method === 'GET') return this.getApi(url.pathname, response);
    const answer = /^\/api\/reviews\/([^/]+)\/(draft|accept|reject)$/.exec(url.pathname);
    if (!answer) throw new RequestError(404, 'Not found');
    const [, encodedId, action] = answer;
    const expected = action === 'draft' ? 'PUT' : 'POST';
    if (method !== expected) throw new RequestError(405, `Use ${expected}`);
    const body = await this.readJson(request);
    return this.answer(decodePart(encodedId!), action!, body, response);
  }

  private async getPage(pathname: string, response: ServerResponse, nonce: string) {
    if (pathname === '/') {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      response.end(await this.page.index(nonce));
    } else if (pathname.startsWith('/assets/')) {
      const file = await this.page.asset(decodePart(pathname.slice('/assets/'.length)));
      if (!file) throw new RequestError(404, 'Not found');
      response.writeHead(200, { 'content-type': file.contentType });
      response.end(file.body);
    } else {
      throw new RequestError(404, 'Not found');
    }
  }

  private getApi(pathname: string, response: ServerResponse): void {
    if (pathname === '/api/state') {
      sendJson(response, 200, this.snapshot());
    } else if (pathname === '/api/events') {
      this.openEventStream(response);
    } else {
      throw new RequestError(404, 'Not found');
    }
  }

  /** The page trades the secret of its URL's fragment for its token; the secret is spent. */
  private signIn(request: IncomingMessage, response: ServerResponse): void {
    const token = this.access.trade(header(request, SECRET_HEADER) ?? '');
    if (!token) throw unauthorized();
    sendJson(response, 200, { token });
    this.options.secretUsed?.(this.url);
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
      warnings: this.options.queue.warnings(),
      ...(this.options.restartCommand !== undefined && {
        restartCommand: this.options.restartCommand,
      }),
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

function header(request: IncomingMessage, name: string): string | undefined {
  const value = request.headers[name];
  return typeof value === 'string' ? value : undefined;
}

function unauthorized(): RequestError {
  return new RequestError(
    401,
    'Open the review page with a new URL from Tandem (tandem serve prints one in its terminal, ' +
      'tandem lsp shows one in your editor): each opens one page.',
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
