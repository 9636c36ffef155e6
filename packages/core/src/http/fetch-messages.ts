/**
 * Headers, Request and Response, as far as the engine and the MCP SDK's Web-standard transport use
 * them: a request's method, URL and headers; a response's status, headers and body. Node's own
 * come with its fetch implementation, which the first use of any of them loads: 7 MB more in a
 * sidecar with a CLI connected (docs/benchmarks.md). The engine makes its requests and answers
 * with these, and the build gives them to the SDK in place of the globals (packages/cli/build.js).
 * They behave as Node's do (fetch-messages.test.ts holds them side by side).
 */

export type HeadersInit = Record<string, string> | Iterable<readonly [string, string]>;

/** A name that HTTP allows (RFC 9110's token). */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** What a value may not hold: a line break or a NUL byte, as Node's Headers refuses. */
const FORBIDDEN_IN_VALUE = /[\0\r\n]/;
/** HTTP's whitespace, removed from both ends of a value. */
const OUTER_WHITESPACE = /^[\t\n\r ]+|[\t\n\r ]+$/g;

/**
 * Names are compared in lower case; a repeated name's values are joined by ", " as Node's Headers
 * does (Set-Cookie, which no MCP message carries, gets no line of its own).
 */
export class Headers implements Iterable<[string, string]> {
  private readonly values = new Map<string, string>();

  constructor(init?: HeadersInit) {
    if (!init) return;
    const pairs = Symbol.iterator in init ? init : Object.entries(init);
    for (const [name, value] of pairs as Iterable<readonly [string, string]>) {
      this.append(name, value);
    }
  }

  get(name: string): string | null {
    return this.values.get(normalName(name)) ?? null;
  }

  has(name: string): boolean {
    return this.values.has(normalName(name));
  }

  set(name: string, value: string): void {
    this.values.set(normalName(name), normalValue(value));
  }

  append(name: string, value: string): void {
    const key = normalName(name);
    const before = this.values.get(key);
    const added = normalValue(value);
    this.values.set(key, before === undefined ? added : `${before}, ${added}`);
  }

  /** The headers sorted by name, as Node's Headers lists them. */
  *entries(): IterableIterator<[string, string]> {
    const names = [...this.values.keys()].sort();
    for (const name of names) yield [name, this.values.get(name)!];
  }

  [Symbol.iterator](): IterableIterator<[string, string]> {
    return this.entries();
  }
}

export interface RequestInit {
  method?: string;
  headers?: HeadersInit;
}

/** Methods that Node's Request writes in upper case whatever case they come in. */
const NORMALIZED_METHODS = new Set(['DELETE', 'GET', 'HEAD', 'OPTIONS', 'POST', 'PUT']);

export class Request {
  readonly url: string;
  readonly method: string;
  readonly headers: Headers;

  constructor(url: string, init: RequestInit = {}) {
    const parsed = new URL(url);
    if (parsed.username || parsed.password) {
      throw new TypeError(`a request's URL may not hold credentials: ${url}`);
    }
    this.url = parsed.href;
    const method = init.method ?? 'GET';
    this.method = NORMALIZED_METHODS.has(method.toUpperCase()) ? method.toUpperCase() : method;
    this.headers = new Headers(init.headers);
  }
}

export interface ResponseInit {
  status?: number;
  headers?: HeadersInit;
}

/** What the engine writes out: Node's Response (from the SDK, run from sources) or this one. */
export interface WebResponse {
  readonly status: number;
  readonly ok: boolean;
  readonly headers: Iterable<[string, string]> & { get(name: string): string | null };
  readonly body: ReadableStream<Uint8Array> | null;
}

export class Response implements WebResponse {
  readonly status: number;
  readonly ok: boolean;
  readonly headers: Headers;
  readonly body: ReadableStream<Uint8Array> | null;

  /** An answer whose body is `data` in JSON. */
  static json(data: unknown, init: ResponseInit = {}): Response {
    const headers = new Headers(init.headers);
    if (!headers.has('content-type')) headers.set('content-type', 'application/json');
    return new Response(JSON.stringify(data), { ...init, headers });
  }

  constructor(body: string | ReadableStream<Uint8Array> | null = null, init: ResponseInit = {}) {
    const status = init.status ?? 200;
    if (!Number.isInteger(status) || status < 200 || status > 599) {
      throw new RangeError(`a response's status must be from 200 to 599, not ${status}`);
    }
    this.status = status;
    this.ok = status < 300;
    this.headers = new Headers(init.headers);
    if (typeof body === 'string') {
      if (!this.headers.has('content-type')) {
        this.headers.set('content-type', 'text/plain;charset=UTF-8');
      }
      this.body = streamOf(new TextEncoder().encode(body));
    } else {
      this.body = body;
    }
  }
}

function normalName(name: string): string {
  if (!TOKEN.test(name)) throw new TypeError(`not a header name: ${JSON.stringify(name)}`);
  return name.toLowerCase();
}

function normalValue(value: string): string {
  const normal = String(value).replace(OUTER_WHITESPACE, '');
  if (FORBIDDEN_IN_VALUE.test(normal)) {
    throw new TypeError(`not a header value: ${JSON.stringify(value)}`);
  }
  return normal;
}

function streamOf(bytes: Uint8Array): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      controller.enqueue(bytes);
      controller.close();
    },
  });
}
