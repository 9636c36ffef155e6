/**
 * Test-only: a small Claude Code companion (a WebSocket, JSON-RPC by hand) that does everything
 * right, except the defects it is started with — one for each check of `tandem check --cli
 * claude`. The kit must find each; the real binary shows what some of them do to a user.
 */
import { randomUUID } from 'node:crypto';
import { chmodSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Duplex } from 'node:stream';
import { pathToFileURL } from 'node:url';
import { WebSocketServer, type WebSocket } from 'ws';
import { claudeConfigDir, claudeIdeDir, claudeLockPath } from '@tandem/core';

export const CLAUDE_DEFECTS = [
  'foreign-folders',
  'no-ide-name',
  'dead-pid',
  'sse-transport',
  'world-readable',
  'no-subprotocol',
  'no-token',
  'any-token',
  'any-origin',
  'any-host',
  'dies-on-refusal',
  'refuses-initialize',
  'no-close-tab',
  'plain-diagnostics',
  'one-based-selection',
  'answers-at-once',
  'saves-proposal',
  'tab-closed-on-reject',
  'ignores-close-tab',
  'quit-closes-tabs',
  'quit-leaves-lock',
] as const;
export type ClaudeDefect = (typeof CLAUDE_DEFECTS)[number];

interface Message {
  id?: number | string;
  method?: string;
  params?: Record<string, unknown>;
}

export interface ClaudeDiff {
  socket: WebSocket;
  filePath: string;
  tabName: string;
  proposal: string;
  answer(texts: string[]): void;
}

/** The lines the person selects in `selected.txt`: its second and third, 0-based 1 to 2. */
export const SELECTED_FILE_TEXT = 'one\ntwo\nthree\nfour\n';

export class BrokenClaudeCompanion {
  readonly token = randomUUID();
  port = 0;
  lockFile = '';
  /** The diffs waiting for the person, oldest first. */
  readonly diffs: ClaudeDiff[] = [];
  /** The `tab_name` of every close_tab call, in order. */
  readonly closedTabs: string[] = [];
  /** The connections that said `ide_connected`. */
  readonly listening = new Set<WebSocket>();
  /** How many upgrades were answered 101 (with or without the subprotocol). */
  upgrades = 0;
  private readonly sockets = new Set<WebSocket>();
  private readonly wss: WebSocketServer;
  private selection?: Record<string, unknown>;
  private stopped = false;

  private constructor(
    private readonly defects: Set<ClaudeDefect>,
    private readonly http: Server,
    private readonly workspace: string,
  ) {
    this.wss = new WebSocketServer({
      noServer: true,
      perMessageDeflate: false,
      handleProtocols: (offered) =>
        !this.has('no-subprotocol') && offered.has('mcp') ? 'mcp' : false,
    });
    http.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) =>
      this.upgrade(req, socket, head),
    );
    http.on('request', (_req, res) => res.writeHead(426).end());
  }

  /** Listens on 127.0.0.1 and writes its lock where `env` says Claude Code looks. */
  static async start(
    defects: ClaudeDefect[],
    options: { env: NodeJS.ProcessEnv; workspace: string },
  ): Promise<BrokenClaudeCompanion> {
    const companion = new BrokenClaudeCompanion(
      new Set(defects),
      createServer(),
      options.workspace,
    );
    await new Promise<void>((resolve) => companion.http.listen(0, '127.0.0.1', resolve));
    companion.port = (companion.http.address() as AddressInfo).port;
    companion.writeLock(options.env);
    return companion;
  }

  has(defect: ClaudeDefect): boolean {
    return this.defects.has(defect);
  }

  // The person at this "editor".

  newestDiff(): ClaudeDiff | undefined {
    return this.diffs.at(-1);
  }

  /** Selects the second and third lines of `selected.txt` in the workspace. */
  select(): void {
    const filePath = join(this.workspace, 'selected.txt');
    writeFileSync(filePath, SELECTED_FILE_TEXT);
    const shift = this.has('one-based-selection') ? 1 : 0;
    const params = {
      text: 'two\nthree',
      filePath,
      fileUrl: pathToFileURL(filePath).href,
      selection: {
        start: { line: 1 + shift, character: 0 },
        end: { line: 2 + shift, character: 5 },
        isEmpty: false,
      },
    };
    this.selection = params;
    for (const socket of this.listening) send(socket, { method: 'selection_changed', params });
  }

  accept(diff: ClaudeDiff, text: string): void {
    this.settle(diff, ['FILE_SAVED', this.has('saves-proposal') ? diff.proposal : text]);
  }

  reject(diff: ClaudeDiff): void {
    this.settle(diff, [this.has('tab-closed-on-reject') ? 'TAB_CLOSED' : 'DIFF_REJECTED']);
  }

  /** The editor quits. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    for (const diff of [...this.diffs]) {
      this.settle(diff, [this.has('quit-closes-tabs') ? 'TAB_CLOSED' : 'DIFF_REJECTED']);
    }
    if (!this.has('quit-leaves-lock')) rmSync(this.lockFile, { force: true });
    for (const socket of this.sockets) socket.close();
    const closed = new Promise((resolve) => this.http.close(resolve));
    this.http.closeAllConnections();
    setTimeout(() => this.sockets.forEach((socket) => socket.terminate()), 1000).unref();
    await closed;
  }

  private settle(diff: ClaudeDiff, texts: string[]): void {
    const at = this.diffs.indexOf(diff);
    if (at < 0) return;
    this.diffs.splice(at, 1);
    diff.answer(texts);
  }

  private writeLock(env: NodeJS.ProcessEnv): void {
    const config = claudeConfigDir(env);
    mkdirSync(claudeIdeDir(config), { recursive: true, mode: 0o700 });
    this.lockFile = claudeLockPath(config, this.port);
    const lock: Record<string, unknown> = {
      pid: this.has('dead-pid') ? 2 ** 22 + 1 : process.pid,
      workspaceFolders: [
        this.has('foreign-folders') ? '/nonexistent/another-project' : this.workspace,
      ],
      ideName: 'Broken Editor',
      transport: this.has('sse-transport') ? 'sse' : 'ws',
      authToken: this.token,
      runningInWindows: false,
    };
    if (this.has('no-ide-name')) delete lock.ideName;
    writeFileSync(this.lockFile, JSON.stringify(lock), { mode: 0o600 });
    if (this.has('world-readable')) chmodSync(this.lockFile, 0o644);
  }

  private upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    const token = req.headers['x-claude-code-ide-authorization'];
    const refusal =
      !this.has('any-host') && req.headers.host !== `127.0.0.1:${this.port}`
        ? 403
        : !this.has('any-origin') && req.headers.origin !== undefined
          ? 403
          : this.has('no-token') || (this.has('any-token') && token)
            ? undefined
            : token !== this.token
              ? 401
              : undefined;
    if (refusal) {
      socket.end(`HTTP/1.1 ${refusal} Refused\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
      if (this.has('dies-on-refusal')) this.http.close();
      return;
    }
    this.wss.handleUpgrade(req, socket, head, (ws) => {
      this.upgrades += 1;
      this.sockets.add(ws);
      ws.on('close', () => {
        this.sockets.delete(ws);
        this.listening.delete(ws);
      });
      ws.on('message', (data) => {
        let message: Message;
        try {
          message = JSON.parse(String(data)) as Message;
        } catch {
          return send(ws, { id: null, error: { code: -32700, message: 'Parse error' } });
        }
        this.handle(ws, message);
      });
    });
  }

  private handle(ws: WebSocket, message: Message): void {
    const reply = (result: unknown) => send(ws, { id: message.id, result });
    const fail = (code: number, text: string) =>
      send(ws, { id: message.id, error: { code, message: text } });
    const texts = (...items: string[]) =>
      reply({ content: items.map((text) => ({ type: 'text', text })) });
    switch (message.method) {
      case 'initialize':
        if (this.has('refuses-initialize')) return fail(-32602, 'Unsupported protocol version');
        return reply({
          protocolVersion: message.params?.protocolVersion,
          capabilities: { tools: { listChanged: true } },
          serverInfo: { name: 'broken', version: '1' },
        });
      case 'ide_connected':
        // Claude Code hears the selection from now on: the current one is sent again.
        this.listening.add(ws);
        if (this.selection) send(ws, { method: 'selection_changed', params: this.selection });
        return;
      case 'tools/list': {
        const names = ['openDiff', 'close_tab', 'closeAllDiffTabs', 'getDiagnostics'].filter(
          (name) => name !== 'close_tab' || !this.has('no-close-tab'),
        );
        return reply({
          tools: names.map((name) => ({ name, inputSchema: { type: 'object', properties: {} } })),
        });
      }
      case 'tools/call':
        return this.call(ws, message, texts, fail);
      default:
        if (message.id !== undefined) fail(-32601, 'Method not found');
    }
  }

  private call(
    ws: WebSocket,
    message: Message,
    texts: (...items: string[]) => void,
    fail: (code: number, text: string) => void,
  ): void {
    const args = (message.params?.arguments ?? {}) as Record<string, string>;
    switch (message.params?.name) {
      case 'openDiff': {
        if (this.has('answers-at-once')) return texts('TAB_CLOSED');
        this.diffs.push({
          socket: ws,
          filePath: args.new_file_path ?? '',
          tabName: args.tab_name ?? '',
          proposal: args.new_file_contents ?? '',
          answer: (items) => texts(...items),
        });
        return;
      }
      case 'close_tab': {
        if (this.has('no-close-tab')) return fail(-32602, 'Tool close_tab not found');
        this.closedTabs.push(args.tab_name ?? '');
        const diff = this.diffs.find((d) => d.tabName === args.tab_name);
        if (diff && !this.has('ignores-close-tab')) this.settle(diff, ['DIFF_REJECTED']);
        return texts('TAB_CLOSED');
      }
      case 'closeAllDiffTabs': {
        const mine = this.diffs.filter((diff) => diff.socket === ws);
        mine.forEach((diff) => this.settle(diff, ['DIFF_REJECTED']));
        return texts(`CLOSED_${mine.length}_DIFF_TABS`);
      }
      case 'getDiagnostics':
        return texts(this.has('plain-diagnostics') ? 'No diagnostics' : '[]');
      default:
        return fail(-32602, `Tool ${String(message.params?.name)} not found`);
    }
  }
}

function send(ws: WebSocket, message: Record<string, unknown>): void {
  if (ws.readyState === ws.OPEN) ws.send(JSON.stringify({ jsonrpc: '2.0', ...message }));
}
