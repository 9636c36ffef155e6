import { CompanionWarnings } from './warnings/companion-warnings.js';
import { ClaudeBinding } from './claude/claude-binding.js';
import { ClaudeListener } from './claude/claude-listener.js';
import { claudeMention, mentionAnswer, mentionInvalidity } from './claude/at-mention.js';
import { containerFacts } from './clients/container-rules.js';
import { terminalVariables, type TerminalCli } from './clients/discovery-rules.js';
import { ContextTracker } from './context/context-tracker.js';
import { UpdatePacer } from './context/update-pacer.js';
import { DiffCoordinator } from './diffs/diff-coordinator.js';
import { DiscoveryFiles, type DiscoveryOptions } from './discovery/discovery-files.js';
import type {
  CompanionWarning,
  ConnectedClient,
  DiffAnswer,
  EditorEvents,
  EditorInfo,
  EditorPort,
  LineRange,
  MentionAnswer,
} from './editor-port.js';
import { MAX_PROPOSAL_BYTES } from './editor-port.js';
import { ConnectionCap } from './http/connection-cap.js';
import { McpListener } from './gemini-qwen/mcp-listener.js';
import { newSecret } from './http/secret.js';
import { silentLogger, type Logger } from './log.js';
import { SessionHub } from './gemini-qwen/session-hub.js';

export interface EngineOptions {
  editor: EditorInfo;
  /** The editor's side: what shows diffs (an extension, the bridge, the review page). */
  frontend: EditorPort;
  workspaceFolders: string[];
  /** Only when the editor really knows: `false` makes the CLI treat the folder as untrusted. */
  isTrusted?: boolean;
  discovery?: DiscoveryOptions;
  /**
   * Whether the editor shows diffs (default true). An editor that does not lists no diff tools,
   * so the CLIs ask in the terminal instead of waiting on a view that never appears.
   */
  showsDiffs?: boolean;
  /** Accept `Host: host.docker.internal:<port>`, for a CLI inside a container. Off by default. */
  allowContainerHost?: boolean;
  /** The largest request body accepted (default `MAX_PROPOSAL_BYTES`, 64 MiB). */
  maxBodyBytes?: number;
  /** The connections of the whole process, when it runs other servers too (`tandem serve`). */
  connections?: ConnectionCap;
  /**
   * At most one context update per this window (default 50 ms): the first editor event after a
   * quiet moment is sent at once, the rest of the window's events as one trailing update.
   */
  contextDebounceMs?: number;
  /** How long a session whose stream closed may take to reopen it before it is ended. */
  sessionGraceMs?: number;
  /**
   * How long a session that never opens its event stream lives (default 30 s): a probe, or a
   * client that gave up, holds nothing for longer.
   */
  streamlessSessionMs?: number;
  /**
   * For the warnings: whether the editor opens terminals with `terminalEnv()` (default true;
   * false for `tandem serve`), and how the user runs Tandem (default `tandem`).
   */
  ownTerminals?: boolean;
  tandemCommand?: string;
  log?: Logger;
}

/**
 * The companion: the client bindings (Gemini CLI and Qwen Code over MCP on HTTP, Claude Code
 * over MCP on a WebSocket), each with its listener and one session per CLI; the context sent to
 * every session, the diffs between the CLIs and the editor, and the discovery files. Start it
 * with `Engine.start()`; feed it editor events; `stop()` it.
 */
export class Engine implements EditorEvents {
  private readonly log: Logger;
  private readonly token = newSecret();
  private readonly listener: McpListener;
  private readonly discovery: DiscoveryFiles;
  private readonly tracker: ContextTracker;
  private readonly diffs: DiffCoordinator;
  private readonly sessions: SessionHub;
  private readonly claudeListener: ClaudeListener;
  private readonly claude: ClaudeBinding;
  private readonly contextPacer: UpdatePacer;
  private readonly advice: CompanionWarnings;
  private workspaceFolders: string[];
  private stopping: Promise<void> | undefined;

  private constructor(private readonly options: EngineOptions) {
    this.log = options.log ?? silentLogger;
    this.workspaceFolders = [...options.workspaceFolders];
    this.contextPacer = new UpdatePacer(() => {
      const context = this.tracker.snapshot();
      this.sessions.broadcast(context);
      this.claude.broadcast(context);
    }, options.contextDebounceMs ?? 50);
    this.tracker = new ContextTracker(() => this.contextPacer.changed());
    this.tracker.trustChanged(options.isTrusted);
    this.discovery = new DiscoveryFiles(options.discovery ?? {}, this.log);
    this.diffs = new DiffCoordinator(
      options.frontend,
      (sessionId, outcome) =>
        this.claude.has(sessionId)
          ? this.claude.sendOutcome(sessionId, outcome)
          : this.sessions.sendOutcome(sessionId, outcome),
      this.log,
    );
    // The diff tools, as every binding calls them: `silent` when the user answered in the terminal.
    const diffTools = {
      openDiff: (client: ConnectedClient, filePath: string, newContent: string) =>
        this.diffs.open(client, filePath, newContent),
      closeDiff: (client: ConnectedClient, filePath: string, silent: boolean) =>
        this.diffs.close(client.sessionId, filePath, silent),
    };
    this.sessions = new SessionHub({
      ...diffTools,
      sessionEnded: (sessionId) => this.diffs.abandon(sessionId),
      clientsChanged: () => this.clientsChanged(),
      currentContext: () => this.tracker.snapshot(),
      graceMs: options.sessionGraceMs ?? 5000,
      streamlessMs: options.streamlessSessionMs ?? 30_000,
      showsDiffs: options.showsDiffs ?? true,
      log: this.log,
    });
    // Every server of the process shares one cap.
    const connections = options.connections ?? new ConnectionCap();
    this.listener = new McpListener({
      token: this.token,
      allowContainerHost: options.allowContainerHost ?? false,
      maxBodyBytes: options.maxBodyBytes ?? MAX_PROPOSAL_BYTES,
      connections,
      log: this.log,
      handle: (request, body, reply) => this.sessions.route(request, body, reply),
    });
    this.claude = new ClaudeBinding({
      diffTools: (options.showsDiffs ?? true) ? diffTools : undefined,
      diagnostics: options.frontend.diagnostics?.bind(options.frontend),
      sessionEnded: (sessionId) => this.diffs.abandon(sessionId),
      clientsChanged: () => this.clientsChanged(),
      currentContext: () => this.tracker.snapshot(),
      maxPayloadBytes: options.maxBodyBytes ?? MAX_PROPOSAL_BYTES,
      log: this.log,
    });
    this.claudeListener = new ClaudeListener({
      token: this.token,
      allowContainerHost: options.allowContainerHost ?? false,
      connections,
      log: this.log,
      upgrade: (request, socket, head) => this.claude.upgrade(request, socket, head),
    });
    this.advice = new CompanionWarnings(
      () => ({
        // The places the discovery files go are where other editors' files are too.
        env: {
          ...process.env,
          ...(options.discovery?.tmpDir && { TMPDIR: options.discovery.tmpDir }),
          ...(options.discovery?.qwenHome && { QWEN_HOME: options.discovery.qwenHome }),
          ...(options.discovery?.claudeConfigDir && {
            CLAUDE_CONFIG_DIR: options.discovery.claudeConfigDir,
          }),
        },
        workspaceFolders: this.workspaceFolders,
        port: this.port,
        container: containerFacts(process.env),
        tandem: options.tandemCommand ?? 'tandem',
        ownTerminals: options.ownTerminals ?? true,
        showsDiffs: options.showsDiffs ?? true,
        connectedClients: this.sessions.clients().map((client) => client.name),
        servesClaude: options.discovery?.claude !== false,
      }),
      // A stopping engine tells its frontend nothing more.
      (warnings) => {
        if (!this.stopping) options.frontend.warningsChanged?.(warnings);
      },
    );
  }

  /**
   * Listening first, then the discovery files: a CLI that finds a file can connect. What does not
   * depend on the other goes side by side: stale files are swept while the server starts to
   * listen, and the warnings, which read only other editors' files, while this one's are written.
   */
  static async start(options: EngineOptions): Promise<Engine> {
    const engine = new Engine(options);
    const [listened, claudeListened, swept] = await Promise.allSettled([
      engine.listener.listen(),
      engine.claudeListener.listen(),
      engine.discovery.sweep(),
    ]);
    try {
      if (listened.status === 'rejected') throw listened.reason;
      if (claudeListened.status === 'rejected') throw claudeListened.reason;
      if (swept.status === 'rejected') throw swept.reason;
      await Promise.all([engine.writeDiscovery(), engine.advice.refresh()]);
    } catch (error) {
      await engine.stop();
      throw error;
    }
    return engine;
  }

  get port(): number {
    return this.listener.port;
  }

  /** The port of the Claude Code listener (its lock file's name, `CLAUDE_CODE_SSE_PORT`). */
  get claudePort(): number {
    return this.claudeListener.port;
  }

  get discoveryFiles(): readonly string[] {
    return this.discovery.files;
  }

  /**
   * The variables a terminal of this editor needs so that a CLI started there connects here;
   * `clis` for an editor that serves only some of them.
   */
  terminalEnv(clis?: readonly TerminalCli[]): Record<string, string> {
    const idePid = this.discovery.geminiIdePid(this.options.editor.pid);
    const container = containerFacts(process.env);
    const ports = { mcp: this.port, claude: this.claudePort };
    return terminalVariables(ports, this.workspaceFolders, idePid, container, clis);
  }

  /** What the user must know before a CLI silently does not do what they expect (now). */
  warnings(): CompanionWarning[] {
    return this.advice.list;
  }

  clients(): ConnectedClient[] {
    return [...this.sessions.clients(), ...this.claude.clients()];
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

  cursorChanged(...cursor: Parameters<EditorEvents['cursorChanged']>): void {
    this.tracker.cursorChanged(...cursor);
  }

  diffAccepted(id: string, content: string): DiffAnswer {
    return this.diffs.accepted(id, content);
  }

  diffRejected(id: string): DiffAnswer {
    return this.diffs.rejected(id);
  }

  /**
   * Sends the file, or `lines` of it, to the CLIs that take mentions (Claude Code, as
   * `at_mentioned`); the answer says whether any received it, in words for the user.
   */
  mention(path: string, lines?: LineRange): MentionAnswer {
    const invalid = mentionInvalidity(path, lines);
    if (invalid) return { ok: false, message: invalid };
    const reached = this.stopping ? 0 : this.claude.mention(claudeMention(path, lines));
    return mentionAnswer(reached, path, lines);
  }

  /** Resolves once the discovery files name the new folders. */
  async workspaceChanged(folders: string[], isTrusted?: boolean): Promise<void> {
    this.workspaceFolders = [...folders];
    this.tracker.trustChanged(isTrusted);
    if (this.stopping) return;
    await this.writeDiscovery().catch((error: unknown) => {
      this.log.error(`could not rewrite the discovery files: ${String(error)}`);
    });
    void this.advice.refresh();
  }

  /**
   * Every open diff is rejected first (a CLI whose diff is left pending can never diff again),
   * then the files are removed, the sessions closed, and the listener closed without waiting on
   * open streams.
   */
  stop(): Promise<void> {
    this.stopping ??= (async () => {
      this.contextPacer.stop();
      await this.diffs.rejectAll();
      await this.discovery.remove();
      await Promise.all([this.sessions.closeAll(), this.claude.closeAll()]);
      await Promise.all([this.listener.close(), this.claudeListener.close()]);
      this.log.info('stopped');
    })();
    return this.stopping;
  }

  /** A stopping engine tells its frontend nothing more, and reads no warnings again. */
  private clientsChanged(): void {
    if (this.stopping) return;
    this.options.frontend.clientsChanged?.(this.clients());
    void this.advice.refresh();
  }

  private async writeDiscovery(): Promise<void> {
    await this.discovery.write({
      port: this.port,
      claudePort: this.claudePort,
      token: this.token,
      workspaceFolders: this.workspaceFolders,
      editor: this.options.editor,
    });
  }
}
