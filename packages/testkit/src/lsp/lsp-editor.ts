/**
 * A test program that is an editor's LSP client to a real `tandem lsp` over stdio: it keeps its
 * open documents, sends what the editor would (open, edit, save, close, the requests of a
 * cursor move), answers the server's requests as the editor it plays does, and keeps what the
 * server tells it (diagnostics, messages).
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { pathToFileURL, fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';
import {
  createProtocolConnection,
  StreamMessageReader,
  StreamMessageWriter,
  type Diagnostic,
  type InitializeParams,
  type InitializeResult,
  type ProtocolConnection,
  ResponseError,
  type Range,
  type ShowDocumentParams,
  type ShowMessageRequestParams,
} from 'vscode-languageserver-protocol/node';
import { TANDEM } from '../bridge-editor.js';
import { waitFor } from '../wait.js';

/** The position encodings of LSP, and how many of its units a piece of text takes. */
export type PositionEncoding = 'utf-8' | 'utf-16' | 'utf-32';

export function unitLength(text: string, encoding: PositionEncoding): number {
  if (encoding === 'utf-8') return Buffer.byteLength(text, 'utf8');
  return encoding === 'utf-16' ? text.length : [...text].length;
}

/**
 * How the editor answers `window/showDocument`: `opens` the document and tells the server
 * (`didOpen`), `opens-untold` without telling it (it is not among the servers of the file's
 * language), `fails`, `errors`, `ignores` it (never answers), or answers `later`, when the
 * test calls `answerShowDocument`.
 */
export type ShowDocumentBehaviour =
  'opens' | 'opens-untold' | 'fails' | 'errors' | 'ignores' | 'later';

export interface LspEditorOptions {
  env: NodeJS.ProcessEnv;
  cwd?: string;
  showDocument?: ShowDocumentBehaviour;
  /** The title of the action the user picks in a `window/showMessageRequest`, if any. */
  pickAction?: (params: ShowMessageRequestParams) => string | undefined;
  /** Options of `tandem lsp` (none by default). */
  serverOptions?: string[];
  /** A command the server runs under, its own arguments given (`['prlimit', '--fsize=…']`). */
  runUnder?: string[];
  /** How the editor writes the URI of a file (Node's `pathToFileURL` by default). */
  uriOf?: (path: string) => string;
}

interface OpenDocument {
  version: number;
  text: string;
}

export class LspEditor {
  readonly process: ChildProcessWithoutNullStreams;
  readonly connection: ProtocolConnection;
  readonly stderr: string[] = [];
  readonly exited: Promise<number | null>;
  /** The latest diagnostics of each URI. */
  readonly diagnostics = new Map<string, Diagnostic[]>();
  /** Every `window/showMessage` and `window/showMessageRequest` text, in order. */
  readonly messages: string[] = [];
  /** Every `window/showDocument` the server asked for, in order. */
  readonly shownDocuments: ShowDocumentParams[] = [];
  readonly documents = new Map<string, OpenDocument>();
  /** The encoding the server chose at `initialize`. */
  encoding: PositionEncoding = 'utf-16';
  /** How the editor answers `window/showDocument` now. */
  showDocumentBehaviour: ShowDocumentBehaviour;
  /** The title of the action the user picks in a `window/showMessageRequest`, if any. */
  pickAction: (params: ShowMessageRequestParams) => string | undefined;
  /** The `window/showDocument` requests held by `later`, answered by `answerShowDocument`. */
  private readonly heldShows: (() => Promise<void>)[] = [];

  constructor(private readonly options: LspEditorOptions) {
    this.showDocumentBehaviour = options.showDocument ?? 'opens';
    this.pickAction = options.pickAction ?? (() => undefined);
    if (!existsSync(TANDEM)) throw new Error(`${TANDEM} is missing: run \`npm run build\` first`);
    const [command = process.execPath, ...args] = [
      ...(options.runUnder ?? []),
      process.execPath,
      TANDEM,
      'lsp',
      ...(options.serverOptions ?? []),
    ];
    this.process = spawn(command, args, { env: options.env, cwd: options.cwd, stdio: 'pipe' });
    createInterface({ input: this.process.stderr }).on('line', (line) => this.stderr.push(line));
    this.exited = new Promise((resolve) => this.process.once('exit', (code) => resolve(code)));
    this.connection = createProtocolConnection(
      new StreamMessageReader(this.process.stdout),
      new StreamMessageWriter(this.process.stdin),
    );
    this.connection.onNotification('textDocument/publishDiagnostics', ({ uri, diagnostics }) => {
      this.diagnostics.set(uri, diagnostics);
    });
    this.connection.onNotification('window/showMessage', ({ message }) => {
      this.messages.push(message);
    });
    this.connection.onNotification('window/logMessage', () => undefined);
    this.connection.onRequest('window/showMessageRequest', (params: ShowMessageRequestParams) => {
      this.messages.push(params.message);
      const title = this.pickAction(params);
      return title === undefined ? null : { title };
    });
    this.connection.onRequest('window/showDocument', (params: ShowDocumentParams) =>
      this.showDocument(params),
    );
    // The server's own process errors show in the test's failure, with its log.
    this.connection.onError(() => undefined);
    this.connection.onClose(() => undefined);
    this.connection.listen();
  }

  async initialize(params: Partial<InitializeParams>): Promise<InitializeResult> {
    const result = await this.connection.sendRequest<InitializeResult>('initialize', {
      processId: process.pid,
      rootUri: null,
      capabilities: {},
      ...params,
    });
    this.encoding = (result.capabilities.positionEncoding as PositionEncoding) ?? 'utf-16';
    await this.connection.sendNotification('initialized', {});
    return result;
  }

  /** Opens `path` (its text on disk unless given), as the editor does when it shows a file. */
  async open(path: string, text = readFileSync(path, 'utf8'), languageId = 'plaintext') {
    const uri = this.uriOf(path);
    this.documents.set(uri, { version: 1, text });
    await this.connection.sendNotification('textDocument/didOpen', {
      textDocument: { uri, languageId, version: 1, text },
    });
    return uri;
  }

  /** Replaces the whole text of an open document, as one incremental edit. */
  async edit(uri: string, text: string): Promise<void> {
    const document = this.document(uri);
    const lines = document.text.split('\n');
    const last = lines.length - 1;
    const end = { line: last, character: unitLength(lines[last] as string, this.encoding) };
    document.version += 1;
    document.text = text;
    await this.connection.sendNotification('textDocument/didChange', {
      textDocument: { uri, version: document.version },
      contentChanges: [{ range: { start: { line: 0, character: 0 }, end }, text }],
    });
    // The edit is a person's: it is in the editor before they do anything else, such as answer
    // in the CLI, which reaches the server another way (HTTP).
    await this.handled();
  }

  /**
   * Resolves once the server has handled everything sent before: it answers requests in order,
   * and a method it does not know at once.
   */
  async handled(): Promise<void> {
    await this.connection.sendRequest('tandem/test-barrier').catch(() => undefined);
  }

  async save(uri: string, includeText = true): Promise<void> {
    const { text } = this.document(uri);
    await this.connection.sendNotification('textDocument/didSave', {
      textDocument: { uri },
      ...(includeText && { text }),
    });
  }

  async close(uri: string): Promise<void> {
    this.documents.delete(uri);
    await this.connection.sendNotification('textDocument/didClose', { textDocument: { uri } });
  }

  /** The LSP position of a code-point place (both 1-based) in an open document. */
  position(uri: string, line: number, character: number) {
    const text = this.document(uri).text.split('\n')[line - 1] ?? '';
    const before = [...text].slice(0, character - 1).join('');
    return { line: line - 1, character: unitLength(before, this.encoding) };
  }

  request<R>(method: string, params: object): Promise<R> {
    return this.connection.sendRequest<R>(method, params);
  }

  codeActions(uri: string, range: Range) {
    return this.request<{ title: string; command?: { command: string; arguments?: unknown[] } }[]>(
      'textDocument/codeAction',
      { textDocument: { uri }, range, context: { diagnostics: [] } },
    );
  }

  /**
   * Runs the code action titled like `title` at `range` of `uri`; an error it answers is shown
   * as a message, as editors show it.
   */
  async runCodeAction(uri: string, range: Range, title: RegExp): Promise<void> {
    const actions = await this.codeActions(uri, range);
    const action = actions.find((candidate) => title.test(candidate.title));
    if (!action?.command) {
      throw new Error(`no code action ${title} among ${actions.map((a) => a.title).join(', ')}`);
    }
    try {
      await this.request('workspace/executeCommand', {
        command: action.command.command,
        arguments: action.command.arguments,
      });
    } catch (error) {
      if (!(error instanceof ResponseError)) throw error;
      this.messages.push(error.message);
    }
  }

  /** Sends `shutdown`, then `exit`, as an editor that quits; resolves with the exit status. */
  async quit(): Promise<number | null> {
    await this.connection.sendRequest('shutdown');
    await this.connection.sendNotification('exit');
    return this.exited;
  }

  /** Waits until the server's log has a line containing `text`. */
  waitForLog(text: string): Promise<void> {
    return waitFor(`the log line "${text}"`, () =>
      this.stderr.some((line) => line.includes(text)) ? true : undefined,
    ).then(() => undefined);
  }

  async kill(): Promise<void> {
    this.connection.dispose();
    if (this.process.exitCode === null && this.process.signalCode === null) {
      this.process.kill('SIGKILL');
      await this.exited;
    }
  }

  /** The URI of `path` as this editor writes it. */
  uriOf(path: string): string {
    return (this.options.uriOf ?? uriOf)(path);
  }

  /**
   * Answers the oldest `window/showDocument` held by `later` as an editor that opens it: the
   * document opens (with the text on disk, none when the file is gone), then the answer leaves.
   */
  async answerShowDocument(): Promise<void> {
    const answer = this.heldShows.shift();
    if (!answer) throw new Error('no window/showDocument is waiting for an answer');
    await answer();
  }

  private document(uri: string): OpenDocument {
    const document = this.documents.get(uri);
    if (!document) throw new Error(`${uri} is not open`);
    return document;
  }

  private async showDocument(params: ShowDocumentParams) {
    this.shownDocuments.push(params);
    const behaviour = this.showDocumentBehaviour;
    if (behaviour === 'errors') throw new Error('window/showDocument is not supported');
    if (behaviour === 'fails') return { success: false };
    if (behaviour === 'ignores') return new Promise<never>(() => undefined);
    if (behaviour === 'opens-untold') return { success: true };
    const path = fileURLToPath(params.uri);
    if (behaviour === 'later') {
      return new Promise((resolve) =>
        this.heldShows.push(async () => {
          await this.open(path, existsSync(path) ? readFileSync(path, 'utf8') : '');
          resolve({ success: true });
        }),
      );
    }
    if (!this.documents.has(this.uriOf(path))) await this.open(path);
    return { success: true };
  }
}

export function uriOf(path: string): string {
  return pathToFileURL(path).href;
}
