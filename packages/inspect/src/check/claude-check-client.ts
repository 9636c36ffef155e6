import { randomBytes } from 'node:crypto';
import { request } from 'node:http';
import { WebSocket } from 'ws';
import { CLAUDE_SUBPROTOCOL, CLAUDE_TOKEN_HEADER } from '@tandem/core';
import { firstArriving } from './check-client.js';

/** The MCP protocol version Claude Code sends (2.1.110 to 2.1.332). */
const CLAUDE_PROTOCOL_VERSION = '2025-11-25';

/** A message of the JSON-RPC conversation, as it travels. */
export interface WireMessage {
  jsonrpc: '2.0';
  id?: number | string | null;
  method?: string;
  params?: Record<string, unknown>;
  result?: Record<string, unknown>;
  error?: { code: number; message: string };
}

/** A tool's answer as Claude Code reads it: the texts of its content, in order. */
export interface ToolAnswer {
  texts: string[];
  isError: boolean;
  /** The JSON-RPC error, when the call got one instead of a result. */
  error?: string;
}

/** How an upgrade request was answered: 101 with its subprotocol, or a refusal. */
export interface UpgradeAnswer {
  status?: number;
  protocol?: string;
  error?: string;
}

// As long as any request may take on a loaded machine: a refusal comes at once all the same.
const UPGRADE_MS = 10_000;

/**
 * A WebSocket upgrade with exactly these headers (Host included), answered 101 or refused; the
 * connection is closed either way. What a hostile program or page would send.
 */
export function tryUpgrade(port: number, headers: Record<string, string>): Promise<UpgradeAnswer> {
  return new Promise((resolve) => {
    const req = request({
      host: '127.0.0.1',
      port,
      path: '/',
      headers: {
        host: `127.0.0.1:${port}`,
        connection: 'Upgrade',
        upgrade: 'websocket',
        'sec-websocket-version': '13',
        'sec-websocket-key': randomBytes(16).toString('base64'),
        'sec-websocket-protocol': CLAUDE_SUBPROTOCOL,
        ...headers,
      },
    });
    req.on('upgrade', (res, socket) => {
      const protocol = res.headers['sec-websocket-protocol'];
      socket.destroy();
      resolve({ status: 101, ...(protocol !== undefined && { protocol }) });
    });
    req.on('response', (res) => {
      res.destroy();
      req.destroy();
      resolve({ status: res.statusCode });
    });
    req.setTimeout(UPGRADE_MS, () => req.destroy(new Error(`no answer within ${UPGRADE_MS} ms`)));
    req.on('error', (error) => resolve({ error: error.message }));
    req.end();
  });
}

/**
 * One connection made the way Claude Code makes it: a WebSocket on `ws://127.0.0.1:<port>/`
 * with subprotocol `mcp` and the token in its header, then `initialize` with its protocol
 * version, `notifications/initialized` and `ide_connected`. Every notification is kept.
 */
export class ClaudeCheckClient {
  readonly notifications: WireMessage[] = [];
  private readonly replies = new Map<number, (message: WireMessage) => void>();
  private nextId = 0;
  private closedAt?: Promise<void>;

  private constructor(private readonly socket: WebSocket) {
    socket.on('message', (data) => {
      let message: WireMessage;
      try {
        message = JSON.parse(String(data)) as WireMessage;
      } catch {
        return;
      }
      if (typeof message.id === 'number' && this.replies.has(message.id)) {
        this.replies.get(message.id)?.(message);
        this.replies.delete(message.id);
      } else if (message.method) {
        this.notifications.push(message);
      }
    });
    this.closedAt = new Promise((resolve) => socket.once('close', () => resolve()));
    socket.on('error', () => undefined);
  }

  /** Opens the WebSocket; rejects when the upgrade is refused or the subprotocol is not `mcp`. */
  static open(port: number, token: string | undefined): Promise<ClaudeCheckClient> {
    const socket = new WebSocket(`ws://127.0.0.1:${port}/`, [CLAUDE_SUBPROTOCOL], {
      headers: {
        'User-Agent': 'claude-cli/2.1.332 (external, cli) tandem-check',
        ...(token !== undefined && { [CLAUDE_TOKEN_HEADER]: token }),
      },
      perMessageDeflate: false,
      handshakeTimeout: UPGRADE_MS,
    });
    return new Promise((resolve, reject) => {
      socket.once('open', () => resolve(new ClaudeCheckClient(socket)));
      socket.once('unexpected-response', (_request, response) => {
        socket.terminate();
        reject(new Error(`the upgrade was refused: HTTP ${response.statusCode}`));
      });
      socket.once('error', reject);
    });
  }

  /** `initialize` as Claude Code sends it, then what it sends once answered; the answer. */
  async initialize(timeoutMs: number): Promise<WireMessage> {
    const answer = await this.request(
      'initialize',
      {
        protocolVersion: CLAUDE_PROTOCOL_VERSION,
        capabilities: { roots: {}, elicitation: {} },
        clientInfo: { name: 'claude-code', version: '2.1.332' },
      },
      timeoutMs,
    );
    if (answer.result) {
      this.notify('notifications/initialized');
      this.notify('ide_connected', { pid: process.pid });
    }
    return answer;
  }

  /** A request's answer; rejects after `timeoutMs` or when the connection closes first. */
  request(
    method: string,
    params: Record<string, unknown>,
    timeoutMs: number,
  ): Promise<WireMessage> {
    const id = ++this.nextId;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.replies.delete(id);
        reject(new Error(`no answer to ${method} within ${timeoutMs} ms`));
      }, timeoutMs);
      timer.unref();
      this.replies.set(id, (message) => {
        clearTimeout(timer);
        resolve(message);
      });
      void this.closedAt?.then(() => {
        if (!this.replies.delete(id)) return;
        clearTimeout(timer);
        reject(new Error(`the connection closed before ${method} was answered`));
      });
      this.socket.send(JSON.stringify({ jsonrpc: '2.0', id, method, params }), (error) => {
        if (error) reject(error);
      });
    });
  }

  notify(method: string, params?: Record<string, unknown>): void {
    if (this.socket.readyState !== WebSocket.OPEN) return;
    this.socket.send(JSON.stringify({ jsonrpc: '2.0', method, ...(params && { params }) }));
  }

  /** Calls a tool as Claude Code does and reads its answer's texts. */
  async callTool(
    name: string,
    args: Record<string, unknown>,
    timeoutMs: number,
  ): Promise<ToolAnswer> {
    const reply = await this.request('tools/call', { name, arguments: args }, timeoutMs);
    if (reply.error) return { texts: [], isError: true, error: reply.error.message };
    const content = Array.isArray(reply.result?.content)
      ? (reply.result.content as { text?: unknown }[])
      : [];
    return {
      texts: content.map((item) => (typeof item.text === 'string' ? item.text : '')),
      isError: reply.result?.isError === true,
    };
  }

  /** The first notification (already received or later) that matches, or undefined after `ms`. */
  async waitFor(
    predicate: (message: WireMessage) => boolean,
    ms: number,
  ): Promise<WireMessage | undefined> {
    return firstArriving(this.notifications, predicate, () => this.isClosed, ms);
  }

  get isClosed(): boolean {
    return this.socket.readyState === WebSocket.CLOSED;
  }

  /** Resolves once the connection is closed, by either side. */
  closed(): Promise<void> {
    return this.closedAt ?? Promise.resolve();
  }

  async close(): Promise<void> {
    if (this.isClosed) return;
    this.socket.close();
    setTimeout(() => this.socket.terminate(), 1000).unref();
    await this.closed();
  }
}
