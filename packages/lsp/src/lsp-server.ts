import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Readable, Writable } from 'node:stream';
import {
  ConnectionCap,
  Engine,
  isProcessAlive,
  selectionLines,
  tandemCommandFor,
  type CompanionWarning,
  type Logger,
} from '@tandem/core';
import {
  createConnection,
  DidChangeWorkspaceFoldersNotification,
  ErrorCodes,
  MessageType,
  ResponseError,
  TextDocumentSyncKind,
  type Connection,
  type InitializeParams,
  type InitializeResult,
  type Range,
  type TextDocumentPositionParams,
  type WatchDog,
} from 'vscode-languageserver';
import {
  createProtocolConnection,
  StreamMessageReader,
  StreamMessageWriter,
} from 'vscode-languageserver/node';
import { COMMANDS, codeActionsAt } from './code-actions.js';
import { ContextFeed } from './context-feed.js';
import { OpenDocuments } from './documents.js';
import { editorFrom, workspaceFrom } from './editor-identity.js';
import { documentKey, fileKey, filePath } from './file-identity.js';
import { chooseEncoding } from './positions.js';
import { Proposals } from './proposals.js';
import { WarningMessages } from './warning-messages.js';

/** How often the editor's process is looked for: gone, the server ends within 1.5 s. */
const EDITOR_WATCH_MS = 500;
/**
 * How long a stop may take once it began (`exit`, stdin closed, the editor gone), whatever it
 * waits on: with the look for the editor's process, the server ends within 1.5 s (docs/lsp.md).
 */
export const STOP_WITHIN_MS = 1000;

/** What lives from `initialize` to the stop. */
interface Session {
  engine: Engine;
  documents: OpenDocuments;
  proposals: Proposals;
  feed: ContextFeed;
  workspaceFolders: string[];
}

/**
 * `tandem lsp`: a language server (LSP 3.17) on the editor's stdio, hosting one engine for the
 * editor window. Ends, cleaning up, on `shutdown`/`exit`, when its input closes, or when the
 * editor's process is gone.
 */
export class LspServer {
  private readonly connection: Connection;
  private session: Session | undefined;
  private starting: Promise<Session> | undefined;
  private editorWatch: NodeJS.Timeout | undefined;
  private stopping: Promise<void> | undefined;
  private readonly watchDog: WatchDog;
  private resolveDone!: (reason: string) => void;
  private resolveStopStarted!: (reason: string) => void;
  /** Resolves, with why, once the server begins to end (not on `shutdown`: it waits for `exit`). */
  readonly stopStarted = new Promise<string>((resolve) => (this.resolveStopStarted = resolve));
  /** Resolves, with why, once the server has cleaned up and should exit. */
  readonly done = new Promise<string>((resolve) => (this.resolveDone = resolve));
  /** How the user runs Tandem, for the warnings: looked up while `initialize` is on its way. */
  private readonly tandemCommand = tandemCommandFor(process.argv[1], process.env);
  /** The engine's warnings, told the user as they appear (the first list once initialized). */
  private readonly warnings = new WarningMessages((message) =>
    notifyQuietly(() =>
      this.connection.sendNotification('window/showMessage', {
        type: MessageType.Warning,
        message,
      }),
    ),
  );

  constructor(
    input: Readable,
    output: Writable,
    private readonly log: Logger,
  ) {
    const reader = new StreamMessageReader(input);
    const writer = new StreamMessageWriter(output);
    // The library's own watchdog exits the process at once; this one cleans up first.
    const watchDog: WatchDog = {
      shutdownReceived: false,
      initialize: () => undefined,
      exit: () => void this.stop('exit'),
    };
    this.watchDog = watchDog;
    this.connection = createConnection(() => createProtocolConnection(reader, writer), watchDog);
    reader.onClose(() => void this.stop('the editor closed the connection'));
    writer.onError(() => void this.stop('the editor stopped reading'));
    output.on('error', () => void this.stop('the editor stopped reading'));
    this.handleRequests();
    this.connection.listen();
  }

  /** Whether the editor asked for `shutdown` before the end (else the exit status is 1). */
  get cleanExit(): boolean {
    return this.watchDog.shutdownReceived;
  }

  /** Cleans up (`cleanUp`), then ends the server. */
  stop(reason: string): Promise<void> {
    this.resolveStopStarted(reason);
    return this.cleanUp(reason).then(() => this.resolveDone(reason));
  }

  /**
   * Rejects every open diff and removes the proposal and discovery files, once. After
   * `shutdown` the server does only this, and waits for `exit`.
   */
  private cleanUp(reason: string): Promise<void> {
    this.stopping ??= (async () => {
      clearInterval(this.editorWatch);
      this.log.info(`stopping: ${reason}`);
      if (this.session) this.rejectAllNow(this.session);
      const session = this.session ?? (await this.starting?.catch(() => undefined));
      // Whatever fails here, the rest still runs and the server still ends.
      await session?.engine.stop().catch((error) => this.fail(error));
      await session?.proposals.dispose().catch((error) => this.fail(error));
    })();
    return this.stopping;
  }

  /** The diffs rejected and the proposals removed before anything is awaited. */
  private rejectAllNow(session: Session): void {
    try {
      session.proposals.rejectAllNow();
    } catch (error) {
      this.fail(error);
    }
  }

  private handleRequests(): void {
    const connection = this.connection;
    connection.onInitialize((params) => this.initialize(params));
    connection.onInitialized(() => this.with((s) => this.warnings.changed(s.engine.warnings())));
    connection.onShutdown(() => this.cleanUp('shutdown'));

    connection.onDidOpenTextDocument((params) =>
      this.with((s) => {
        s.documents.opened(params);
        s.feed.opened(params.textDocument.uri);
        s.proposals.opened(params.textDocument.uri);
      }),
    );
    connection.onDidChangeTextDocument((params) => this.with((s) => s.documents.changed(params)));
    connection.onDidSaveTextDocument(({ textDocument: { uri }, text }) =>
      this.with((s) => void s.proposals.saved(uri, text).catch((error) => this.fail(error))),
    );
    connection.onDidCloseTextDocument(({ textDocument: { uri } }) =>
      this.with((s) => {
        s.feed.closed(uri);
        s.documents.closed(uri);
        void s.proposals.closed(uri).catch((error) => this.fail(error));
      }),
    );

    // The cursor moves: answered empty, so that the user's own language server is undisturbed.
    const cursorAt = ({ textDocument, position }: TextDocumentPositionParams) => {
      this.with((s) => s.feed.cursorAt(textDocument.uri, position));
      return null;
    };
    connection.onHover(cursorAt);
    connection.onDocumentHighlight(cursorAt);
    connection.onSignatureHelp(cursorAt);
    connection.onCodeAction(({ textDocument: { uri }, range }) => {
      const actions = this.with((s) => {
        const isProposal = s.proposals.isProposal(uri);
        if (!isProposal) s.feed.selected(uri, range);
        return codeActionsAt(uri, range, s.proposals.pendingAt(uri), isProposal);
      });
      return actions ?? [];
    });
    connection.onExecuteCommand(({ command, arguments: args = [] }) =>
      this.with((s) => this.execute(s, command, args)),
    );
    connection.onNotification(DidChangeWorkspaceFoldersNotification.type, ({ event }) =>
      this.with((s) => {
        // A folder is removed by the folder it names, however the editor spells it.
        const removed = new Set(event.removed.map((folder) => documentKey(folder.uri)));
        const added = event.added.flatMap((folder) => filePath(folder.uri) ?? []);
        s.workspaceFolders = [
          ...s.workspaceFolders.filter((folder) => !removed.has(fileKey(folder))),
          ...added,
        ];
        void realFolders(s.workspaceFolders)
          .then((folders) => s.engine.workspaceChanged(folders))
          .catch((error) => this.fail(error));
      }),
    );
  }

  private async initialize(params: InitializeParams): Promise<InitializeResult> {
    if (this.starting) throw new ResponseError(ErrorCodes.InvalidRequest, 'already initialized');
    if (this.stopping) throw new ResponseError(ErrorCodes.InvalidRequest, 'the server is stopping');
    const encoding = chooseEncoding(params.capabilities.general?.positionEncodings);
    const editor = editorFrom(params, isProcessAlive);
    this.starting = (async () => {
      const workspaceFolders = await realFolders(workspaceFrom(params, process.cwd()));
      const documents = new OpenDocuments(encoding);
      // By its real path: the editors that name files so (eglot) see the very path shown.
      const folder = await realpath(await mkdtemp(path.join(tmpdir(), 'tandem-lsp-')));
      // The companion and the review page draw on one budget of descriptors: idle sockets on
      // the page's port, which anyone may open, must not lock the CLIs out.
      const connections = new ConnectionCap();
      const proposals = new Proposals(
        folder,
        this.editorSide(),
        documents,
        encoding,
        { workspaceFolders, connections },
        this.log,
      );
      try {
        const engine = await Engine.start({
          editor,
          frontend: proposals,
          workspaceFolders,
          connections,
          tandemCommand: await this.tandemCommand,
          log: this.log,
        });
        proposals.answerTo(engine);
        const feed = new ContextFeed(
          engine,
          documents,
          (uri) => proposals.isProposal(uri),
          editor.name === 'kakoune',
        );
        return { engine, documents, proposals, feed, workspaceFolders };
      } catch (error) {
        await rm(folder, { recursive: true, force: true });
        throw error;
      }
    })();
    this.session = await this.starting;
    this.watchEditor(editor.pid);
    this.log.info(`serving ${editor.displayName} (PID ${editor.pid}), positions in ${encoding}`);
    return {
      capabilities: {
        positionEncoding: encoding,
        textDocumentSync: {
          openClose: true,
          change: TextDocumentSyncKind.Incremental,
          save: { includeText: true },
        },
        hoverProvider: true,
        documentHighlightProvider: true,
        signatureHelpProvider: {},
        codeActionProvider: true,
        executeCommandProvider: { commands: Object.values(COMMANDS) },
        workspace: { workspaceFolders: { supported: true, changeNotifications: true } },
      },
      serverInfo: { name: 'tandem', version: process.env.TANDEM_VERSION ?? '0.1.0' },
    };
  }

  private async execute(session: Session, command: string, args: unknown[]): Promise<null> {
    if (command === COMMANDS.sendSelection) {
      const [uri, range] = args as [string, Parameters<ContextFeed['selected']>[1]];
      session.feed.selected(uri, range);
      return null;
    }
    if (command === COMMANDS.sendToClaude) {
      const [uri, range] = args as [string, Range];
      const file = typeof uri === 'string' ? filePath(uri) : undefined;
      if (!file) throw new ResponseError(ErrorCodes.InvalidParams, `not a file: ${String(uri)}`);
      const answer = session.engine.mention(file, range && selectionLines(range));
      const show = this.connection.window;
      if (answer.ok) show.showInformationMessage(`Tandem: ${answer.message}`);
      else show.showWarningMessage(`Tandem: ${answer.message}`);
      return null;
    }
    const id = String(args[0]);
    if (command === COMMANDS.openReviewPage) {
      const url = await session.proposals.openOnPage(id);
      this.connection.window.showInformationMessage(
        `The review page: ${url} (the address opens one browser page)`,
      );
      return null;
    }
    if (command === COMMANDS.accept || command === COMMANDS.reject) {
      const answer =
        command === COMMANDS.accept
          ? await session.proposals.acceptById(id)
          : await session.proposals.rejectById(id);
      if (!answer.ok) throw new ResponseError(ErrorCodes.InvalidParams, answer.message);
      return null;
    }
    throw new ResponseError(ErrorCodes.InvalidParams, `unknown command ${command}`);
  }

  /** What the proposals ask of the editor. */
  private editorSide() {
    const connection = this.connection;
    return {
      showDocument: async (uri: string, line: number) => {
        const start = { line, character: 0 };
        return connection.window
          .showDocument({ uri, takeFocus: true, selection: { start, end: start } })
          .then(
            (result) => result.success,
            (error: unknown) => {
              this.log.warn(`window/showDocument failed: ${describe(error)}`);
              return false;
            },
          );
      },
      publishDiagnostics: (
        uri: string,
        diagnostics: Parameters<Connection['sendDiagnostics']>[0]['diagnostics'],
      ) => notifyQuietly(() => connection.sendDiagnostics({ uri, diagnostics })),
      showMessage: (type: number, message: string) =>
        notifyQuietly(() => connection.sendNotification('window/showMessage', { type, message })),
      warningsChanged: (warnings: CompanionWarning[]) => this.warnings.changed(warnings),
      ask: async (message: string, actions: string[]) => {
        const picked = await connection.window.showInformationMessage(
          message,
          ...actions.map((title) => ({ title })),
        );
        return picked?.title;
      },
      tell: (message: string) => connection.window.showErrorMessage(message),
    };
  }

  /** Runs `handle` with the session, if there is one (after `initialize`, before the stop). */
  private with<T>(handle: (session: Session) => T): T | undefined {
    if (!this.session || this.stopping) return undefined;
    return handle(this.session);
  }

  private fail(error: unknown): void {
    this.log.error(describe(error));
  }

  private watchEditor(pid: number): void {
    this.editorWatch = setInterval(() => {
      if (!isProcessAlive(pid)) void this.stop(`the editor (PID ${pid}) is gone`);
    }, EDITOR_WATCH_MS);
    this.editorWatch.unref();
  }
}

/** The CLIs compare real paths: so does the discovery data. */
/**
 * Sends a notification to the editor, which may be gone: a closed connection throws at once,
 * and a stop must still reject every diff and remove every file after it.
 */
function notifyQuietly(send: () => Promise<void>): void {
  try {
    send().catch(() => undefined);
  } catch {
    // The editor closed the connection: it hears nothing more.
  }
}

function realFolders(folders: string[]): Promise<string[]> {
  return Promise.all(folders.map((folder) => realpath(folder).catch(() => folder)));
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
