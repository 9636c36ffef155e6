import { readFile } from 'node:fs/promises';
import { isAbsolute } from 'node:path';
import { isInitializeRequest, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { ContextTracker } from './context/context-tracker.js';
import { DiffRegistry, type OpenDiff } from './diffs/diff-registry.js';
import { DiscoveryFiles, type DiscoveryOptions } from './discovery/discovery-files.js';
import type { ConnectedClient, EditorEvents, EditorInfo, EditorPort } from './editor-port.js';
import { McpListener } from './http/mcp-listener.js';
import { newSecret } from './http/secret.js';
import { silentLogger, type Logger } from './log.js';
import { ClientSession, type SessionHost } from './mcp/client-session.js';
import { terminalEnv } from './terminal-env.js';

export interface EngineOptions {
  editor: EditorInfo;
  port: EditorPort;
  workspaceFolders: string[];
  /** Only when the editor really knows: `false` makes the CLI treat the folder as untrusted. */
  isTrusted?: boolean;
  discovery?: DiscoveryOptions;
  /** Accept `Host: host.docker.internal:<port>`, for a CLI inside a container. Off by default. */
  allowContainerHost?: boolean;
  /** The largest request body accepted (default 64 MiB: a large source file, JSON-escaped). */
  maxBodyBytes?: number;
  /** Editor events within this window are sent as one context update (default 50 ms). */
  contextDebounceMs?: number;
  /** How long a session whose stream closed may take to reopen it before it is ended. */
  sessionGraceMs?: number;
  log?: Logger;
}

const DEFAULTS = { maxBodyBytes: 64 * 1024 * 1024, contextDebounceMs: 50, sessionGraceMs: 5000 };
/** A session that never opens its stream (a probe, a client that gave up) is ended after this. */
const STREAMLESS_SESSION_MS = 30_000;

/**
 * The companion: the MCP listener, one session per CLI, the context sent to every session, the
 * diffs between the CLIs and the editor, and the discovery files. Start it with
 * `Engine.start()`; feed it editor events; `stop()` it.
 */
export class Engine implements EditorEvents, SessionHost {
  private readonly log: Logger;
  private readonly token = newSecret();
  private readonly listener: McpListener;
  private readonly discovery: DiscoveryFiles;
  private readonly tracker: ContextTracker;
  private readonly diffs = new DiffRegistry();
  private readonly sessions = new Map<string, ClientSession>();
  private readonly reapers = new Map<ClientSession, NodeJS.Timeout>();
  private workspaceFolders: string[];
  private contextTimer: NodeJS.Timeout | undefined;
  private stopping: Promise<void> | undefined;
  private readonly settings: typeof DEFAULTS;

  private constructor(private readonly options: EngineOptions) {
    this.log = options.log ?? silentLogger;
    this.settings = {
      maxBodyBytes: options.maxBodyBytes ?? DEFAULTS.maxBodyBytes,
      contextDebounceMs: options.contextDebounceMs ?? DEFAULTS.contextDebounceMs,
      sessionGraceMs: options.sessionGraceMs ?? DEFAULTS.sessionGraceMs,
    };
    this.workspaceFolders = [...options.workspaceFolders];
    this.tracker = new ContextTracker(() => this.scheduleContext());
    this.tracker.trustChanged(options.isTrusted);
    this.discovery = new DiscoveryFiles(options.discovery ?? {}, this.log);
    this.listener = new McpListener({
      token: this.token,
      allowContainerHost: options.allowContainerHost ?? false,
      maxBodyBytes: this.settings.maxBodyBytes,
      log: this.log,
      handle: (request, body, reply) => this.route(request, body, reply),
    });
  }

  /** Listening first, then the discovery files: a CLI that finds a file can connect. */
  static async start(options: EngineOptions): Promise<Engine> {
    const engine = new Engine(options);
    await engine.listener.listen();
    try {
      await engine.discovery.sweep();
      await engine.writeDiscovery();
    } catch (error) {
      await engine.stop();
      throw error;
    }
    engine.log.info(`listening on 127.0.0.1:${engine.port}`);
    return engine;
  }

  get port(): number {
    return this.listener.port;
  }

  get discoveryFiles(): readonly string[] {
    return this.discovery.files;
  }

  /** The variables a terminal of this editor needs so that a CLI started there connects here. */
  terminalEnv(): Record<string, string> {
    const idePid = this.discovery.geminiIdePid(this.options.editor.pid);
    return terminalEnv(this.port, this.workspaceFolders, idePid);
  }

  clients(): ConnectedClient[] {
    return [...this.sessions.values()].map((session) => session.client);
  }

  // Editor events.

  fileOpened(path: string): void {
    this.tracker.fileOpened(path);
  }

  fileClosed(path: string): void {
    this.tracker.fileClosed(path);
  }

  fileFocused(path: string): void {
    this.tracker.fileFocused(path);
  }

  cursorChanged(path: string, line: number, character: number, selectedText?: string): void {
    this.tracker.cursorChanged(path, line, character, selectedText);
  }

  diffAccepted(id: string, content: string): void {
    const diff = this.takeDiff(id, 'accepted');
    if (diff)
      this.tell(diff, { method: 'ide/diffAccepted', params: { filePath: diff.filePath, content } });
  }

  diffRejected(id: string): void {
    const diff = this.takeDiff(id, 'rejected');
    if (diff) this.tell(diff, { method: 'ide/diffRejected', params: { filePath: diff.filePath } });
  }

  workspaceChanged(folders: string[], isTrusted?: boolean): void {
    this.workspaceFolders = [...folders];
    this.tracker.trustChanged(isTrusted);
    if (this.stopping) return;
    this.writeDiscovery().catch((error: unknown) => {
      this.log.error(`could not rewrite the discovery files: ${String(error)}`);
    });
  }

  /**
   * Every open diff is rejected first (a CLI whose diff is left pending can never diff again),
   * then the sessions are closed, the files removed and the listener closed without waiting on
   * open streams.
   */
  stop(): Promise<void> {
    this.stopping ??= (async () => {
      clearTimeout(this.contextTimer);
      const open = this.diffs.all();
      await Promise.all(
        open.map(async (diff) => {
          this.diffs.remove(diff.id);
          await this.tell(diff, {
            method: 'ide/diffRejected',
            params: { filePath: diff.filePath },
          });
          await this.options.port.closeDiff(diff.id).catch(() => undefined);
        }),
      );
      await this.discovery.remove();
      for (const session of [...this.sessions.values()]) await this.endSession(session);
      await this.listener.close();
      this.log.info('stopped');
    })();
    return this.stopping;
  }

  // Sessions.

  sessionInitialized(session: ClientSession): void {
    this.sessions.set(session.id, session);
    this.reapUnlessStreaming(session, STREAMLESS_SESSION_MS);
  }

  sessionReady(session: ClientSession): void {
    this.log.info(`${session.client.name} ${session.client.version} connected (${session.id})`);
    this.clientsChanged();
  }

  sessionClosed(session: ClientSession): void {
    void this.endSession(session);
  }

  streamOpened(session: ClientSession): void {
    clearTimeout(this.reapers.get(session));
    session.sendContext(this.tracker.snapshot());
  }

  async openDiff(
    session: ClientSession,
    filePath: string,
    newContent: string,
  ): Promise<CallToolResult> {
    if (this.stopping) return failure('The editor is shutting down.');
    if (!isAbsolute(filePath)) return failure(`filePath must be absolute: ${filePath}`);
    let oldContent: string | null;
    try {
      oldContent = await readFile(filePath, 'utf8');
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT') return failure(`Cannot diff ${filePath}: ${describeFsError(code)}`);
      oldContent = null;
    }
    const replaced = this.diffs.find(session.id, filePath);
    if (replaced) {
      // The client has already dropped its wait on the old diff: close its view silently.
      this.diffs.remove(replaced.id);
      await this.options.port.closeDiff(replaced.id).catch(() => undefined);
    }
    const diff = this.diffs.add(session.id, filePath, session.client);
    try {
      await this.options.port.showDiff({ ...diff, oldContent, newContent });
    } catch (error) {
      this.diffs.remove(diff.id);
      return failure(`The editor could not show the diff: ${errorMessage(error)}`);
    }
    return { content: [] };
  }

  async closeDiff(
    session: ClientSession,
    filePath: string,
    suppressNotification: boolean,
  ): Promise<CallToolResult> {
    const diff = this.diffs.find(session.id, filePath);
    if (!diff) return closed(null);
    this.diffs.remove(diff.id);
    let content: string;
    try {
      content = await this.options.port.closeDiff(diff.id);
    } catch (error) {
      return failure(`The editor could not close the diff: ${errorMessage(error)}`);
    }
    if (!suppressNotification) {
      await this.tell(diff, { method: 'ide/diffRejected', params: { filePath } });
    }
    return closed(content);
  }

  private async route(
    request: Request,
    body: unknown,
    reply: (response: Response) => Promise<void>,
  ): Promise<void> {
    const sessionId = request.headers.get('mcp-session-id');
    let session = sessionId ? this.sessions.get(sessionId) : undefined;
    if (sessionId && !session) {
      return reply(jsonRpcError(404, 'Session not found: reconnect to start a new one'));
    }
    const isNew = !session && request.method === 'POST' && isInitializeRequest(body);
    if (isNew) {
      if (this.stopping) return reply(jsonRpcError(503, 'The editor is shutting down'));
      session = new ClientSession(this, this.log);
      session.noteProtocolVersion(
        (body as { params: { protocolVersion?: unknown } }).params.protocolVersion,
      );
      await session.connect();
    }
    if (!session) {
      return reply(jsonRpcError(400, 'Bad Request: initialize first, then send mcp-session-id'));
    }
    const response = await session.transport.handleRequest(request, { parsedBody: body });
    if (isNew && !this.sessions.has(session.id)) await session.close();
    const isStream =
      request.method === 'GET' &&
      response.ok &&
      response.headers.get('content-type')?.startsWith('text/event-stream');
    if (!isStream) return reply(response);
    const streaming = reply(response);
    session.streamStarted();
    await streaming;
    session.streamEnded();
    this.reapUnlessStreaming(session, this.settings.sessionGraceMs);
  }

  /** Ends the session unless it (re)opens a stream within `ms`. */
  private reapUnlessStreaming(session: ClientSession, ms: number): void {
    clearTimeout(this.reapers.get(session));
    const timer = setTimeout(() => {
      if (!session.hasStream) void this.endSession(session);
    }, ms);
    timer.unref();
    this.reapers.set(session, timer);
  }

  /** Frees a session; the diffs it left open are closed in the editor. */
  private async endSession(session: ClientSession): Promise<void> {
    clearTimeout(this.reapers.get(session));
    this.reapers.delete(session);
    if (!this.sessions.delete(session.id)) return;
    this.log.info(`${session.client.name} left (${session.id})`);
    for (const diff of this.diffs.ofSession(session.id)) {
      this.diffs.remove(diff.id);
      await this.options.port.closeDiff(diff.id).catch(() => undefined);
    }
    await session.close();
    this.clientsChanged();
  }

  private clientsChanged(): void {
    if (this.stopping) return;
    this.options.port.clientsChanged?.(this.clients());
  }

  private scheduleContext(): void {
    if (this.contextTimer || this.stopping) return;
    this.contextTimer = setTimeout(() => {
      this.contextTimer = undefined;
      const context = this.tracker.snapshot();
      for (const session of this.sessions.values()) session.sendContext(context);
    }, this.settings.contextDebounceMs);
  }

  private takeDiff(id: string, outcome: string): OpenDiff | undefined {
    const diff = this.diffs.get(id);
    if (!diff || !this.diffs.remove(id)) {
      this.log.warn(`diff ${id} ${outcome}, but it is not open (already answered or closed)`);
      return undefined;
    }
    return diff;
  }

  private tell(diff: OpenDiff, notification: Parameters<ClientSession['notify']>[0]) {
    const session = this.sessions.get(diff.sessionId);
    if (!session) {
      this.log.warn(`${diff.filePath}: its CLI session is gone, the answer is dropped`);
      return Promise.resolve();
    }
    return session.notify(notification);
  }

  private async writeDiscovery(): Promise<void> {
    await this.discovery.write({
      port: this.port,
      token: this.token,
      workspaceFolders: this.workspaceFolders,
      editor: this.options.editor,
    });
  }
}

function failure(text: string): CallToolResult {
  return { isError: true, content: [{ type: 'text', text }] };
}

/** The clients read `JSON.parse(text).content` (SPEC-NOTES §2). */
function closed(content: string | null): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify({ content }) }] };
}

function jsonRpcError(status: number, message: string): Response {
  return Response.json({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }, { status });
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function describeFsError(code: string | undefined): string {
  switch (code) {
    case 'EISDIR':
      return 'it is a directory';
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    default:
      return code ?? 'unreadable';
  }
}
