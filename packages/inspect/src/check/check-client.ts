import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { MCP_PROTOCOL_VERSIONS, notificationInvalidity, type IdeNotification } from '@tandem/core';
import type { ClientKind } from '../doctor/prediction.js';

/** The notifications the clients parse with a schema (others they ignore). */
const JUDGED = new Set(['ide/contextUpdate', 'ide/diffAccepted', 'ide/diffRejected']);

export interface CompanionAddress {
  port: number;
  token?: string;
}

/** A notification as it arrived, with why the client's schema would refuse it. */
export interface Received {
  method: string;
  params: unknown;
  /** Milliseconds since the session was initialized. */
  atMs: number;
  invalid?: string;
}

/**
 * One connection made the way a real CLI makes it: the MCP SDK client over Streamable HTTP,
 * the bearer token on every request, that client's protocol version, the GET event stream
 * opened after `initialized`, no reconnection. Every notification is kept and judged with the
 * schemas the clients apply.
 */
export class CheckClient {
  readonly received: Received[] = [];
  /** The answer to the GET that opens the event stream, once it came. */
  stream?: { status: number; contentType: string };
  private readonly client: Client;
  private readonly transport: StreamableHTTPClientTransport;
  private connectedAt = 0;
  private ended = false;

  private constructor(
    address: CompanionAddress,
    readonly kind: ClientKind,
  ) {
    const headers: Record<string, string> = address.token
      ? { Authorization: `Bearer ${address.token}` }
      : {};
    this.transport = new StreamableHTTPClientTransport(
      new URL(`http://127.0.0.1:${address.port}/mcp`),
      {
        requestInit: { headers },
        // The CLIs never reconnect a stream that ended.
        reconnectionOptions: {
          maxRetries: 0,
          initialReconnectionDelay: 1000,
          maxReconnectionDelay: 1000,
          reconnectionDelayGrowFactor: 1,
        },
        fetch: (url, init) => this.fetchNoting(url, init),
      },
    );
    const send = this.transport.send.bind(this.transport);
    this.transport.send = (message, options) =>
      send(Array.isArray(message) ? message : introducedAs(message, kind), options);
    this.client = new Client({ name: 'tandem-check', version: '1' });
    this.client.fallbackNotificationHandler = async (notification) => {
      this.note(notification.method, notification.params);
    };
    this.client.onerror = () => undefined;
  }

  /** Connects as `kind`; rejects when the handshake fails. */
  static async connect(
    address: CompanionAddress,
    kind: ClientKind,
    timeoutMs: number,
  ): Promise<CheckClient> {
    const session = new CheckClient(address, kind);
    try {
      await session.client.connect(session.transport, { timeout: timeoutMs });
    } catch (error) {
      await session.drop();
      throw error;
    }
    session.connectedAt = Date.now();
    return session;
  }

  get sessionId(): string | undefined {
    return this.transport.sessionId;
  }

  /** The protocol version the companion answered with. */
  get protocolVersion(): string | undefined {
    return this.transport.protocolVersion;
  }

  async toolNames(timeoutMs: number): Promise<string[]> {
    const { tools } = await this.client.listTools(undefined, { timeout: timeoutMs });
    return tools.map((tool) => tool.name);
  }

  callTool(name: string, args: Record<string, unknown>, timeoutMs: number) {
    return this.client.callTool({ name, arguments: args }, undefined, { timeout: timeoutMs });
  }

  /** The first notification (already received or later) that matches, or undefined after `ms`. */
  async waitFor(
    predicate: (notification: Received) => boolean,
    ms: number,
  ): Promise<Received | undefined> {
    return firstArriving(this.received, predicate, () => this.ended, ms);
  }

  /** Ends the session as a well-behaved client: DELETE, then close. Leaves nothing behind. */
  async end(): Promise<void> {
    if (this.ended) return;
    await this.transport.terminateSession().catch(() => undefined);
    await this.drop();
  }

  /** Goes away as the CLIs do: the connection drops, no DELETE. */
  async drop(): Promise<void> {
    this.ended = true;
    await this.client.close().catch(() => undefined);
  }

  private note(method: string, params: unknown): void {
    const invalid = JUDGED.has(method)
      ? notificationInvalidity({ method, params } as IdeNotification)
      : undefined;
    this.received.push({
      method,
      params,
      atMs: Date.now() - this.connectedAt,
      ...(invalid !== undefined && { invalid }),
    });
  }

  private async fetchNoting(url: string | URL, init?: RequestInit): Promise<Response> {
    const response = await fetch(url, init);
    if (init?.method === 'GET') {
      this.stream = {
        status: response.status,
        contentType: response.headers.get('content-type') ?? '',
      };
    }
    return response;
  }
}

/** The `initialize` request as client `kind` sends it: with that client's protocol version. */
function introducedAs(message: JSONRPCMessage, kind: ClientKind): JSONRPCMessage {
  if (!('method' in message) || message.method !== 'initialize' || !('id' in message)) {
    return message;
  }
  return {
    ...message,
    params: { ...message.params, protocolVersion: MCP_PROTOCOL_VERSIONS[kind] },
  };
}

/**
 * The first of `messages` (already there or pushed later) that matches; undefined once the
 * connection has `ended()` or after `ms`.
 */
export async function firstArriving<Message>(
  messages: readonly Message[],
  predicate: (message: Message) => boolean,
  ended: () => boolean,
  ms: number,
): Promise<Message | undefined> {
  const end = Date.now() + ms;
  for (;;) {
    const found = messages.find(predicate);
    if (found || Date.now() >= end || ended()) return found;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
