import type { Readable, Writable } from 'node:stream';
import {
  createJSONRPCErrorResponse,
  createJSONRPCRequest,
  JSONRPCClient,
  JSONRPCErrorCode,
  JSONRPCErrorException,
  JSONRPCServer,
  JSONRPCServerAndClient,
  type JSONRPCID,
} from 'json-rpc-2.0';
import type { Logger } from '@tandem/core';
import type * as z from 'zod/mini';
import { readBoundedLines } from './bounded-lines.js';

/** What the peer accepts of a line, stated in the protocol page ("Limits"). */
export interface LineLimits {
  /** The longest line read, in bytes; a longer one is refused and dropped unread. */
  maxLineBytes: number;
  /** The deepest nesting of arrays and objects in a message. */
  maxDepth: number;
}

/**
 * JSON-RPC 2.0, one message per line, both ways over a pair of streams. Whatever the other side
 * sends — a broken line, an unknown method, wrong params, a reply nobody asked for — becomes a
 * JSON-RPC error or a logged warning, never an exception.
 */
export class JsonLinesPeer {
  private readonly rpc: JSONRPCServerAndClient;
  private readonly notificationHandlers = new Map<string, (params: unknown) => void>();
  /** The ids of our requests still waiting for their reply: any other reply is ignored. */
  private readonly awaitingReply = new Set<JSONRPCID>();
  private nextId = 1;
  private inputEnded = false;
  /** Resolves when the input ends. */
  readonly closed: Promise<void>;

  constructor(
    input: Readable,
    private readonly output: Writable,
    private readonly log: Logger,
    private readonly limits: LineLimits,
  ) {
    const send = (message: unknown) => this.write(message);
    this.rpc = new JSONRPCServerAndClient(
      new JSONRPCServer({ errorListener: (message) => log.error(message) }),
      new JSONRPCClient(send),
      { errorListener: (message) => log.warn(message) },
    );
    this.closed = new Promise((resolve) => {
      readBoundedLines(input, limits.maxLineBytes, {
        line: (line) => this.receive(line),
        tooLong: (head) => this.refuseLongLine(head),
        end: resolve,
      });
    });
    // An editor that closed its end can answer nothing: fail what waits, and what comes.
    void this.closed.then(() => {
      this.inputEnded = true;
      this.rejectPending('the editor closed the connection');
    });
  }

  /** Answers requests named `method` whose params pass `schema`. */
  onRequest<S extends z.ZodMiniType>(
    method: string,
    schema: S,
    handler: (params: z.infer<S>) => Promise<unknown>,
  ): void {
    this.rpc.addMethod(method, async (params: unknown) => {
      const parsed = schema.safeParse(params ?? {});
      if (!parsed.success) {
        throw new JSONRPCErrorException(
          `invalid params for ${method}: ${describe(parsed.error)}`,
          JSONRPCErrorCode.InvalidParams,
        );
      }
      try {
        return (await handler(parsed.data)) ?? {};
      } catch (error) {
        if (error instanceof JSONRPCErrorException) throw error;
        throw new JSONRPCErrorException(
          error instanceof Error ? error.message : String(error),
          JSONRPCErrorCode.InternalError,
        );
      }
    });
  }

  onNotification<S extends z.ZodMiniType>(
    method: string,
    schema: S,
    handler: (params: z.infer<S>) => void,
  ): void {
    this.notificationHandlers.set(method, (params) => {
      const parsed = schema.safeParse(params ?? {});
      if (!parsed.success) {
        this.log.warn(`ignored ${method}: invalid params: ${describe(parsed.error)}`);
        return;
      }
      handler(parsed.data);
    });
  }

  /**
   * Sends a request; the reply's result must pass `schema`. Without a reply within `timeoutMs`
   * it fails, and a reply that comes later is ignored as one to an unknown id.
   */
  async request<S extends z.ZodMiniType>(
    method: string,
    params: object,
    schema: S,
    timeoutMs: number,
  ): Promise<z.infer<S>> {
    if (this.inputEnded) throw new Error(`${method}: the editor closed the connection`);
    const id = this.nextId++;
    this.awaitingReply.add(id);
    const unanswered = `the editor did not answer ${method} within ${seconds(timeoutMs)}`;
    let reply;
    try {
      reply = await this.rpc.client
        .timeout(timeoutMs, () =>
          createJSONRPCErrorResponse(id, JSONRPCErrorCode.InternalError, unanswered),
        )
        .requestAdvanced(createJSONRPCRequest(id, method, params));
    } finally {
      // Answered, timed out or failed: it waits for nothing any more.
      this.awaitingReply.delete(id);
    }
    if (reply.error) throw new JSONRPCErrorException(reply.error.message, reply.error.code);
    const parsed = schema.safeParse(reply.result);
    if (!parsed.success) {
      const message = `the editor's reply to ${method} is invalid: ${describe(parsed.error)}`;
      this.log.warn(message);
      throw new Error(message);
    }
    return parsed.data;
  }

  notify(method: string, params: object): void {
    this.rpc.notify(method, params, undefined);
  }

  /** Fails every request still waiting for the editor's reply. */
  rejectPending(reason: string): void {
    this.rpc.rejectAllPendingRequests(reason);
  }

  private receive(line: string): void {
    if (line.trim() === '') return;
    let message: unknown;
    try {
      message = JSON.parse(line);
    } catch {
      this.log.warn(`not JSON: ${truncate(line)}`);
      return this.replyError(null, JSONRPCErrorCode.ParseError, 'Parse error: not a JSON line');
    }
    if (typeof message !== 'object' || message === null || Array.isArray(message)) {
      return this.replyError(
        null,
        JSONRPCErrorCode.InvalidRequest,
        'Invalid Request: not an object',
      );
    }
    const { id, method, params } = message as {
      id?: unknown;
      method?: unknown;
      params?: unknown;
    };
    const isReply = method === undefined && ('result' in message || 'error' in message);
    // An id is echoed in replies and logs: only the scalars JSON-RPC allows are.
    if (id !== undefined && !isValidId(id)) {
      this.log.warn('refused a message whose id is not a string, a number or null');
      if (isReply) return;
      return this.replyError(
        null,
        JSONRPCErrorCode.InvalidRequest,
        'Invalid Request: id must be a string, a number or null',
      );
    }
    if (nestedDeeperThan(message, this.limits.maxDepth)) {
      return this.refuse(
        id ?? null,
        isReply,
        `Invalid Request: nested deeper than ${this.limits.maxDepth} levels`,
      );
    }
    if (isReply) {
      if (id === undefined || !this.awaitingReply.delete(id)) {
        this.log.warn(`ignored a reply to unknown request id ${JSON.stringify(id)}`);
        return;
      }
      const malformed = replyFault(message);
      if (malformed) {
        this.log.warn(`refused the reply to request ${id}: ${malformed}`);
        return this.failRequest(id, `the editor's reply: ${malformed}`);
      }
      this.rpc.client.receive(message as never);
      return;
    }
    if (typeof method !== 'string') {
      return this.replyError(
        id ?? null,
        JSONRPCErrorCode.InvalidRequest,
        'Invalid Request: no method',
      );
    }
    if (id === undefined) {
      const handler = this.notificationHandlers.get(method);
      if (handler) handler(params);
      else this.log.warn(`ignored unknown notification ${method}`);
      return;
    }
    // The library rejects what is not JSON-RPC 2.0 (no `"jsonrpc": "2.0"`, say): answer that.
    this.rpc.receiveAndSend(message, undefined, undefined).catch(() => {
      this.replyError(id, JSONRPCErrorCode.InvalidRequest, 'Invalid Request: not JSON-RPC 2.0');
    });
  }

  /** Refuses a line too long to read, for the message its first bytes name. */
  private refuseLongLine(head: string): void {
    const id = idInHead(head) ?? null;
    const isReply = !/"method"\s*:/.test(head) && id !== null && this.awaitingReply.has(id);
    this.refuse(
      id,
      isReply,
      `Invalid Request: a line longer than ${this.limits.maxLineBytes} bytes`,
    );
  }

  /**
   * Refuses a message: a request gets the error as its reply; a reply to one of ours fails that
   * request at once, rather than letting it wait for its deadline.
   */
  private refuse(id: JSONRPCID, isReply: boolean, message: string): void {
    this.log.warn(`refused ${isReply ? 'a reply' : 'a message'}: ${message}`);
    if (!isReply) return this.replyError(id, JSONRPCErrorCode.InvalidRequest, message);
    if (id === null || !this.awaitingReply.delete(id)) return;
    this.failRequest(id, `the editor's reply: ${message}`);
  }

  /** Fails our request `id` at once, with `message`. */
  private failRequest(id: JSONRPCID, message: string): void {
    this.rpc.client.receive(
      createJSONRPCErrorResponse(id, JSONRPCErrorCode.InvalidRequest, message),
    );
  }

  private replyError(id: JSONRPCID, code: number, message: string): void {
    this.write({ jsonrpc: '2.0', id, error: { code, message } });
  }

  private write(message: unknown): void {
    this.output.write(`${JSON.stringify(message)}\n`);
  }
}

function describe(error: z.core.$ZodError): string {
  return error.issues
    .map((issue) => `${issue.path.join('.') || '(params)'}: ${issue.message}`)
    .join('; ');
}

/** What is wrong with the shape of a reply: exactly one of `result` and `error`, a proper error. */
function replyFault(reply: object): string | undefined {
  if ('result' in reply && 'error' in reply) return 'it has both result and error';
  if (!('error' in reply)) return undefined;
  const { error } = reply as { error: unknown };
  const { code, message } = (typeof error === 'object' && error !== null ? error : {}) as {
    code?: unknown;
    message?: unknown;
  };
  if (!Number.isInteger(code) || typeof message !== 'string') {
    return 'its error is not an object with an integer code and a string message';
  }
  return undefined;
}

function seconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(1))} s`;
}

function isValidId(id: unknown): id is JSONRPCID {
  return id === null || typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id));
}

/** Whether arrays and objects nest deeper than `max` in `value` (without recursion). */
function nestedDeeperThan(value: unknown, max: number): boolean {
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length > 0) {
    const [item, depth] = stack.pop()!;
    if (typeof item !== 'object' || item === null) continue;
    if (depth > max) return true;
    for (const child of Object.values(item)) {
      if (typeof child === 'object' && child !== null) stack.push([child, depth + 1]);
    }
  }
  return false;
}

/**
 * The `id` of a message read from its first bytes alone: found only among the leading members
 * whose values are plain (as every adapter writes `{"jsonrpc":"2.0","id":…,"method":…}`).
 */
function idInHead(head: string): JSONRPCID | undefined {
  const string = '"(?:[^"\\\\]|\\\\.){0,256}"';
  const plain = `(?:${string}|-?\\d+(?:\\.\\d+)?|null|true|false)`;
  const leading = new RegExp(
    `^\\s*\\{(?:\\s*${string}\\s*:\\s*${plain}\\s*,){0,8}?\\s*"id"\\s*:\\s*(-?\\d{1,16}|${string})\\s*[,}]`,
  );
  const found = leading.exec(head)?.[1];
  if (found === undefined) return undefined;
  try {
    const id: unknown = JSON.parse(found);
    return isValidId(id) ? id : undefined;
  } catch {
    return undefined;
  }
}

function truncate(text: string): string {
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}
