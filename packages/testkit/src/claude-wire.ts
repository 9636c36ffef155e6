import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { WebSocket } from 'ws';
import type { WireMessage } from '@tandem/inspect';
import { waitFor } from './wait.js';

/** A lock file of `<claudeConfigDir>/ide/`, as Claude Code reads it. */
export interface ClaudeLock {
  port: number;
  file: string;
  pid: number;
  workspaceFolders: string[];
  ideName: string;
  transport: string;
  authToken: string;
  runningInWindows: boolean;
}

/** Reads the lock file that names `port`. */
export async function readClaudeLock(claudeConfigDir: string, port: number): Promise<ClaudeLock> {
  const file = path.join(claudeConfigDir, 'ide', `${port}.lock`);
  const data = JSON.parse(await readFile(file, 'utf8')) as Omit<ClaudeLock, 'port' | 'file'>;
  return { ...data, port, file };
}

/** The headers of Claude Code's upgrade (2.1.110–2.1.332): its user agent and the token. */
export function claudeUpgradeHeaders(token: string): Record<string, string> {
  return {
    'User-Agent': 'claude-cli/2.1.332 (external, cli)',
    'X-Claude-Code-Ide-Authorization': token,
  };
}

/**
 * A connection made the way Claude Code makes it: a WebSocket on `ws://127.0.0.1:<port>/` with
 * subprotocol `mcp` and the token in a header, then `initialize`, `notifications/initialized`,
 * `ide_connected` and `tools/list`. Requests and their replies, notifications kept in order.
 */
export class ClaudeWire {
  readonly notifications: WireMessage[] = [];
  private readonly replies = new Map<number, (message: WireMessage) => void>();
  private nextId = 0;

  private constructor(readonly socket: WebSocket) {
    socket.on('message', (data) => {
      const message = JSON.parse(String(data)) as WireMessage;
      if (typeof message.id === 'number' && this.replies.has(message.id)) {
        this.replies.get(message.id)?.(message);
        this.replies.delete(message.id);
      } else if (message.method) {
        this.notifications.push(message);
      }
    });
  }

  /** Opens the WebSocket only; rejects with the refusal's status when the upgrade is refused. */
  static open(
    port: number,
    headers: Record<string, string>,
    options: { protocols?: string[]; host?: string } = {},
  ): Promise<ClaudeWire> {
    const socket = new WebSocket(`ws://127.0.0.1:${port}/`, options.protocols ?? ['mcp'], {
      headers: { ...headers, ...(options.host && { Host: options.host }) },
      perMessageDeflate: false,
    });
    return new Promise((resolve, reject) => {
      socket.once('open', () => resolve(new ClaudeWire(socket)));
      socket.once('unexpected-response', (_request, response) =>
        reject(new Error(`refused: ${response.statusCode}`)),
      );
      socket.once('error', reject);
    });
  }

  /** Opens and goes through Claude Code's handshake; resolves with `tools/list`'s tools. */
  static async connect(
    port: number,
    token: string,
  ): Promise<{ wire: ClaudeWire; tools: string[] }> {
    const wire = await ClaudeWire.open(port, claudeUpgradeHeaders(token));
    const init = await wire.request('initialize', {
      protocolVersion: '2025-11-25',
      capabilities: { roots: {}, elicitation: {} },
      clientInfo: { name: 'claude-code', version: '2.1.332' },
    });
    if (init.error) throw new Error(`initialize: ${init.error.message}`);
    wire.notify('notifications/initialized');
    wire.notify('ide_connected', { pid: process.pid });
    const listed = await wire.request('tools/list', {});
    const tools = (listed.result?.tools as { name: string }[]).map((tool) => tool.name);
    return { wire, tools };
  }

  /** Connects, as {@link connect} does, to the one companion with a lock file in `claudeConfigDir`. */
  static async connectByLock(claudeConfigDir: string): Promise<ClaudeWire> {
    const locks = (await readdir(path.join(claudeConfigDir, 'ide'))).filter((name) =>
      /^\d+\.lock$/.test(name),
    );
    if (locks.length !== 1) throw new Error(`not one lock file in ${claudeConfigDir}: ${locks}`);
    const lock = await readClaudeLock(claudeConfigDir, Number.parseInt(locks[0]!, 10));
    return (await ClaudeWire.connect(lock.port, lock.authToken)).wire;
  }

  /**
   * Waits until the editor told its user that no Claude Code is connected (`messages()` reads
   * what it showed), then connects as {@link connectByLock} does.
   */
  static async connectAfterRefusal(
    messages: () => Promise<string>,
    claudeConfigDir: string,
  ): Promise<ClaudeWire> {
    await waitFor('the user told', async () =>
      (await messages()).includes('Tandem: no Claude Code is connected to this editor.')
        ? true
        : undefined,
    );
    return ClaudeWire.connectByLock(claudeConfigDir);
  }

  /** The params of the first `count` notifications `method`, once that many came. */
  paramsOf(method: string, count: number): Promise<WireMessage['params'][]> {
    return waitFor(`${count} ${method}`, () => {
      const sent = this.notifications.filter((message) => message.method === method);
      return sent.length >= count
        ? sent.slice(0, count).map((message) => message.params)
        : undefined;
    });
  }

  /**
   * What a Claude Code connected by `claudeConfigDir`'s lock is told of the selection `select`
   * makes in the editor: the `selection` of its `selection_changed` whose text is `text`. `end`
   * ends the selection in the editor afterwards, whatever came of it.
   */
  static async selectionAfter(
    claudeConfigDir: string,
    text: string,
    editor: { select: () => Promise<void>; end: () => Promise<void> },
  ): Promise<unknown> {
    const wire = await ClaudeWire.connectByLock(claudeConfigDir);
    try {
      await editor.select();
      return await wire.selectionOf(text);
    } finally {
      await editor.end();
      await wire.close();
    }
  }

  /** The `selection` of the first `selection_changed` whose text is `text`, once one came. */
  selectionOf(text: string): Promise<unknown> {
    return waitFor(`selection_changed of ${JSON.stringify(text)}`, () => {
      const sent = this.notifications.find(
        (message) => message.method === 'selection_changed' && message.params?.text === text,
      );
      return sent?.params?.selection;
    });
  }

  request(method: string, params: Record<string, unknown>): Promise<WireMessage> {
    const id = ++this.nextId;
    return new Promise((resolve, reject) => {
      this.replies.set(id, resolve);
      this.socket.send(JSON.stringify({ jsonrpc: '2.0', id, method, params }), (error) => {
        if (error) reject(error);
      });
    });
  }

  notify(method: string, params?: Record<string, unknown>): void {
    this.socket.send(JSON.stringify({ jsonrpc: '2.0', method, ...(params && { params }) }));
  }

  /** Calls a tool; resolves with its result's texts, or rejects with a JSON-RPC error. */
  async callTool(
    name: string,
    args: Record<string, unknown>,
  ): Promise<{ texts: string[]; isError: boolean }> {
    const reply = await this.request('tools/call', { name, arguments: args });
    if (reply.error) throw new Error(`${name}: ${reply.error.message}`);
    const content = reply.result?.content as { type: string; text: string }[];
    return { texts: content.map((item) => item.text), isError: reply.result?.isError === true };
  }

  /** Resolves once the socket is closed (by either side). */
  closed(): Promise<void> {
    if (this.socket.readyState === WebSocket.CLOSED) return Promise.resolve();
    return new Promise((resolve) => this.socket.once('close', () => resolve()));
  }

  close(): Promise<void> {
    const closed = this.closed();
    this.socket.close();
    return closed;
  }
}

/** A `selection_changed` selection of whole lines `first`..`last` (0-based), ending at `endCharacter`. */
export function selectedLines(first: number, last: number, endCharacter: number) {
  return {
    start: { line: first, character: 0 },
    end: { line: last, character: endCharacter },
    isEmpty: false,
  };
}
