/**
 * Test-only: a small companion on the MCP SDK that does everything right, except the defects it
 * is started with — each one a mistake found in real companions. `tandem check` must find each.
 */
import { randomUUID } from 'node:crypto';
import { chmodSync, chownSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { discoveryContent, discoveryFilePath, discoveryLocations } from '@tandem/core';
import { z } from 'zod';

export const DEFECTS = [
  'no-ide-info',
  'dead-ppid',
  'foreign-owner',
  'world-readable',
  'no-token',
  'any-host',
  'any-origin',
  'grants-cors',
  'reads-body-first',
  'crashes-on-garbage',
  'no-event-stream',
  'no-close-diff',
  'no-context',
  'invalid-context',
  'newest-session-only',
  'keeps-sessions',
  'open-diff-waits',
  'open-diff-errors',
  'normalizes-path',
  'plain-close-diff',
  'ignores-suppress',
  'passes-empty-accept',
  'writes-file',
  'quit-leaves-diffs',
  'quit-leaves-files',
] as const;
export type Defect = (typeof DEFECTS)[number];

/** The error text of `open-diff-errors`. */
export const OPEN_ERROR = 'the diff view could not be opened';

/** The user `foreign-owner` gives the discovery files to: nobody. */
const ANOTHER_USER = 65534;

/**
 * Why `defect` cannot be planted here (printed as the skip reason), or false. Under CI, where
 * the tests run as root, it is always false: a missing root is then a failure.
 */
export function cannotPlant(defect: Defect | undefined): string | false {
  if (defect !== 'foreign-owner' || process.getuid?.() === 0 || process.env.CI) return false;
  return 'foreign-owner gives the discovery files to another user: that needs root';
}

interface Session {
  id?: string;
  server: McpServer;
  transport: StreamableHTTPServerTransport;
  streaming: boolean;
}

export interface OpenDiff {
  session: Session;
  /** The path as the CLI sent it. */
  filePath: string;
  proposal: string;
  draft: string;
  resolve?: () => void;
}

export class BrokenCompanion {
  readonly files: string[] = [];
  private readonly sessions = new Map<string, Session>();
  private newest?: Session;
  private readonly diffs = new Map<string, OpenDiff>();
  readonly token = randomUUID();
  private stopped = false;
  port = 0;

  private constructor(
    private readonly defects: Set<Defect>,
    private readonly http: Server,
  ) {}

  /** Listens on 127.0.0.1 and writes its discovery files where `env` says the CLIs look. */
  static async start(
    defects: Defect[],
    options: { env: NodeJS.ProcessEnv; workspace: string },
  ): Promise<BrokenCompanion> {
    const http = createServer();
    const companion = new BrokenCompanion(new Set(defects), http);
    // A request the kit gives up on (an oversized body) ends here, unanswered.
    http.on('request', (req, res) => void companion.serve(req, res).catch(() => undefined));
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    companion.port = (http.address() as AddressInfo).port;
    companion.writeFiles(options.env, options.workspace);
    return companion;
  }

  /** How many CLI sessions are open. */
  get sessionCount(): number {
    return this.sessions.size;
  }

  has(defect: Defect): boolean {
    return this.defects.has(defect);
  }

  // The person at this "editor".

  /** The diff opened last. */
  newestDiff(): OpenDiff | undefined {
    return [...this.diffs.values()].at(-1);
  }

  async accept(diff: OpenDiff, content: string): Promise<boolean> {
    if (content === '' && diff.proposal !== '' && !this.has('passes-empty-accept')) return false;
    this.diffs.delete(diff.filePath);
    if (this.has('writes-file')) writeFileSync(diff.filePath, content);
    await this.notify(diff, 'ide/diffAccepted', { content });
    return true;
  }

  async reject(diff: OpenDiff): Promise<void> {
    this.diffs.delete(diff.filePath);
    await this.notify(diff, 'ide/diffRejected', {});
  }

  edit(diff: OpenDiff, draft: string): void {
    diff.draft = draft;
  }

  /** The editor quits. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    if (!this.has('quit-leaves-diffs')) {
      for (const diff of [...this.diffs.values()]) await this.reject(diff);
    }
    if (!this.has('quit-leaves-files')) {
      for (const file of this.files) rmSync(file, { force: true });
    }
    // Ending each transport ends its streams after their last bytes; then the sockets go.
    for (const session of this.sessions.values()) await session.transport.close();
    const closed = new Promise((resolve) => this.http.close(resolve));
    this.http.closeIdleConnections();
    setTimeout(() => this.http.closeAllConnections(), 1000).unref();
    await closed;
  }

  private writeFiles(env: NodeJS.ProcessEnv, workspace: string): void {
    const at = discoveryLocations(env, workspace);
    const data = {
      port: this.port,
      authToken: this.token,
      workspaceFolders: [workspace],
      ideInfo: { name: 'broken', displayName: 'Broken Editor' },
      editorPid: this.has('dead-ppid') ? 2 ** 22 + 1 : process.pid,
    };
    for (const kind of ['gemini', 'qwen-lock'] as const) {
      const content = discoveryContent(kind, data);
      if (this.has('no-ide-info')) delete content.ideInfo;
      if (this.has('no-token')) delete content.authToken;
      const path = discoveryFilePath(at, kind, { pid: process.pid, port: this.port });
      mkdirSync(at[kind === 'gemini' ? 'geminiIdeDir' : 'qwenIdeDir'], { recursive: true });
      writeFileSync(path, JSON.stringify(content), { mode: 0o600 });
      if (this.has('world-readable')) chmodSync(path, 0o644);
      if (this.has('foreign-owner')) chownSync(path, ANOTHER_USER, ANOTHER_USER);
      this.files.push(path);
    }
  }

  private async serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const refuse = (status: number) => void res.writeHead(status).end();
    if (this.has('grants-cors') && req.method === 'OPTIONS') {
      res.writeHead(204, {
        'access-control-allow-origin': '*',
        'access-control-allow-headers': '*',
        'access-control-allow-methods': 'GET, POST, DELETE',
      });
      return void res.end();
    }
    const body = this.has('reads-body-first') ? await readBody(req) : undefined;
    if (!this.has('any-host') && req.headers.host !== `127.0.0.1:${this.port}`) return refuse(403);
    if (!this.has('any-origin') && req.headers.origin !== undefined) return refuse(403);
    if (!this.has('no-token') && req.headers.authorization !== `Bearer ${this.token}`) {
      return refuse(401);
    }
    const text = body ?? (req.method === 'POST' ? await readBody(req) : undefined);
    let parsed: unknown;
    try {
      parsed = text === undefined ? undefined : JSON.parse(text);
    } catch {
      if (this.has('crashes-on-garbage')) {
        this.http.closeAllConnections();
        this.http.close();
        return;
      }
      return refuse(400);
    }
    const id = req.headers['mcp-session-id'];
    let session = typeof id === 'string' ? this.sessions.get(id) : undefined;
    if (typeof id === 'string' && !session) return refuse(404);
    if (!session) session = await this.newSession();
    if (req.method === 'GET') {
      if (this.has('no-event-stream')) return refuse(405);
      const streaming = session;
      streaming.streaming = true;
      res.on('close', () => this.streamClosed(streaming));
      setTimeout(() => void this.sendContext(streaming), 20);
    }
    await session.transport.handleRequest(req, res, parsed);
  }

  private async newSession(): Promise<Session> {
    const server = new McpServer({ name: 'broken', version: '1' }, { capabilities: { tools: {} } });
    const session: Session = {
      server,
      streaming: false,
      transport: new StreamableHTTPServerTransport({
        sessionIdGenerator: randomUUID,
        onsessioninitialized: (id) => {
          session.id = id;
          this.sessions.set(id, session);
          this.newest = session;
        },
      }),
    };
    this.registerTools(session);
    await server.connect(session.transport);
    return session;
  }

  private registerTools(session: Session): void {
    session.server.registerTool(
      'openDiff',
      { inputSchema: { filePath: z.string(), newContent: z.string() } },
      async ({ filePath, newContent }) => {
        await this.newestOnly(session);
        const diff: OpenDiff = { session, filePath, proposal: newContent, draft: newContent };
        this.diffs.set(filePath, diff);
        if (this.has('open-diff-waits')) {
          await new Promise<void>((resolve) => (diff.resolve = resolve));
        }
        if (this.has('open-diff-errors')) {
          return { isError: true, content: [{ type: 'text' as const, text: OPEN_ERROR }] };
        }
        return { content: [] };
      },
    );
    if (this.has('no-close-diff')) return;
    session.server.registerTool(
      'closeDiff',
      { inputSchema: { filePath: z.string(), suppressNotification: z.boolean().optional() } },
      async ({ filePath, suppressNotification }, extra) => {
        await this.newestOnly(session);
        const diff = this.diffs.get(filePath);
        this.diffs.delete(filePath);
        if (diff && !suppressNotification) await this.notify(diff, 'ide/diffRejected', {});
        if (diff && suppressNotification && this.has('ignores-suppress')) {
          // On the call's own stream: it reaches the client before the reply, every time.
          await session.server.server.notification(
            { method: 'ide/diffRejected', params: { filePath } },
            { relatedRequestId: extra.requestId },
          );
        }
        const content = diff?.draft ?? null;
        const text = this.has('plain-close-diff') ? String(content) : JSON.stringify({ content });
        return { content: [{ type: 'text', text }] };
      },
    );
  }

  /** The official VS Code companion's mistake: only the newest session gets tool answers. */
  private async newestOnly(session: Session): Promise<void> {
    if (this.has('newest-session-only') && session !== this.newest) {
      await new Promise(() => undefined);
    }
  }

  private async notify(diff: OpenDiff, method: string, extra: object): Promise<void> {
    diff.resolve?.();
    const filePath = this.has('normalizes-path') ? diff.filePath.normalize('NFD') : diff.filePath;
    await diff.session.server.server
      .notification({ method, params: { filePath, ...extra } })
      .catch(() => undefined);
  }

  private async sendContext(session: Session): Promise<void> {
    if (this.has('no-context')) return;
    const file = this.has('invalid-context')
      ? { path: '/x', timestamp: String(Date.now()), cursor: { line: 0, character: 0 } }
      : { path: '/x', timestamp: Date.now(), isActive: true, cursor: { line: 1, character: 1 } };
    await session.server.server
      .notification({
        method: 'ide/contextUpdate',
        params: { workspaceState: { openFiles: [file] } },
      })
      .catch(() => undefined);
  }

  private streamClosed(session: Session): void {
    session.streaming = false;
    if (this.has('keeps-sessions') || !session.id) return;
    this.sessions.delete(session.id);
    void session.transport.close();
  }
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}
