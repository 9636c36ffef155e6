/**
 * The adapter conformance suite's driver for an editor that cannot run here, replayed: its LSP
 * client's `initialize` and the requests it sends by itself as the cursor moves, with their
 * timing, as its source says (each replay names the file and line), sent to a real
 * `tandem lsp` by an `LspEditor`.
 */
import { existsSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import type { InitializeParams, Range } from 'vscode-languageserver-protocol/node';
import type {
  AdapterDriver,
  EditorUnderTest,
  Position,
  ShownDiff,
} from '../conformance/adapter-driver.js';
import type { Sandbox } from '../sandbox.js';
import { waitFor } from '../wait.js';
import { LspEditor, uriOf, type ShowDocumentBehaviour } from './lsp-editor.js';
import { ReviewPage } from '../review-page-api.js';

/** Where a replayed behaviour comes from: the client's repository, file and lines. */
export type Source = string;

/** A request the client sends by itself once the cursor or the selection has moved. */
export interface CursorRequest {
  method: 'textDocument/documentHighlight' | 'textDocument/codeAction' | 'textDocument/hover';
  /** After how long the selection has stayed put, in ms. */
  afterMs: number;
  /** `head`: the cursor's position; `selection`: the selection's range. */
  at: 'head' | 'selection';
  source: Source;
}

/** One editor's LSP client, as its source shows it. */
export interface ClientReplay {
  /** The editor and its LSP client, for the tests' titles. */
  name: string;
  /** Its `initialize` params, less the workspace (added for the sandbox). */
  initialize: Omit<InitializeParams, 'rootUri' | 'workspaceFolders' | 'processId'> & {
    /** `editor`: the editor's own process (this test's); `null`: none is sent. */
    processId: 'editor' | null;
  };
  initializeSource: Source;
  /** What it sends as the cursor moves and the selection changes, in order. */
  cursorRequests: CursorRequest[];
  /**
   * How the selection reaches the server when no request carries it by itself: the user asks
   * for the code actions (a menu), which sends the selection's range.
   */
  selectionByCodeActionMenu?: Source;
  /** Whether its cursor is a one-character selection (Kakoune's is). */
  cursorIsACharacter?: boolean;
  /** How it answers `window/showDocument`. */
  showDocument: ShowDocumentBehaviour;
  showDocumentSource: Source;
}

const PENDING_CODE = 'tandem.pending';

/** The conformance driver of `replay`. */
export function replayDriver(replay: ClientReplay): AdapterDriver {
  const onPage = replay.showDocument !== 'opens';
  return {
    name: `${replay.name} (replayed)`,
    skip: false,
    gestures: onPage
      ? {
          // First the code actions: the editor shows what the engine answers them.
          accept: ['the Accept code action', 'Accept on the review page'],
          reject: ['the Reject code action', 'Reject on the review page'],
        }
      : {
          accept: ['save', 'the Accept code action'],
          reject: ['close unsaved', 'the Reject code action'],
        },
    start: (sandbox) => ReplayedEditor.start(sandbox, replay),
  };
}

class ReplayedEditor implements EditorUnderTest {
  private active: string | undefined;
  private selection: Range | undefined;
  private page: ReviewPage | undefined;
  private readonly seenUrls = new Set<string>();

  private constructor(
    private readonly editor: LspEditor,
    private readonly replay: ClientReplay,
  ) {}

  static async start(sandbox: Sandbox, replay: ClientReplay): Promise<EditorUnderTest> {
    const editor = new LspEditor({
      env: sandbox.env(),
      cwd: sandbox.workspace,
      showDocument: replay.showDocument,
    });
    const { processId, ...initialize } = replay.initialize;
    await editor.initialize({
      ...initialize,
      processId: processId === 'editor' ? process.pid : null,
      rootUri: uriOf(sandbox.workspace),
      workspaceFolders: [{ uri: uriOf(sandbox.workspace), name: 'workspace' }],
    });
    await waitFor('the discovery files', () =>
      existsSync(`${sandbox.tmpDir}/gemini/ide`) ? true : undefined,
    );
    return new ReplayedEditor(editor, replay);
  }

  async openFile(filePath: string): Promise<void> {
    const uri = uriOf(filePath);
    if (!this.editor.documents.has(uri)) await this.editor.open(filePath);
    this.active = uri;
    await this.moveCursor({ line: 1, character: 1 });
  }

  async moveCursor(position: Position): Promise<void> {
    const uri = this.activeUri();
    const at = this.editor.position(uri, position.line, position.character);
    const end = this.replay.cursorIsACharacter
      ? this.editor.position(uri, position.line, position.character + 1)
      : at;
    await this.selectionMoved({ start: at, end });
  }

  async select(first: Position, last: Position): Promise<void> {
    const uri = this.activeUri();
    await this.selectionMoved({
      start: this.editor.position(uri, first.line, first.character),
      end: this.editor.position(uri, last.line, last.character + 1),
    });
    if (this.replay.selectionByCodeActionMenu) {
      await this.editor.codeActions(uri, this.selection as Range);
    }
  }

  async clearSelection(): Promise<void> {
    const end = (this.selection as Range).end;
    const uri = this.activeUri();
    const line = this.editor.documents.get(uri)?.text.split('\n')[end.line] ?? '';
    // The cursor stays at the selection's end: on its last character in Kakoune.
    const points = [...line.slice(0, end.character)].length;
    await this.moveCursor({
      line: end.line + 1,
      character: this.replay.cursorIsACharacter ? points : points + 1,
    });
  }

  async diffViews(): Promise<ShownDiff[]> {
    if (this.page || this.announcedUrl()) return this.pageViews();
    const views: ShownDiff[] = [];
    for (const [uri, document] of this.editor.documents) {
      const pending = this.editor.diagnostics.get(uri)?.find((d) => d.code === PENDING_CODE);
      const original = pending?.relatedInformation?.[0]?.location.uri;
      if (original) views.push({ filePath: fileURLToPath(original), proposal: document.text });
    }
    return views;
  }

  async editProposal(filePath: string, text: string): Promise<void> {
    if (this.page) {
      const review = await this.review(filePath);
      await this.page.act(review.id, 'draft', text);
      return;
    }
    await this.editor.edit(this.proposalUri(filePath), text);
  }

  async appendLine(filePath: string, line: string): Promise<void> {
    const current = (await this.diffViews()).find((view) => view.filePath === filePath);
    await this.editProposal(filePath, `${current?.proposal ?? ''}${line}\n`);
  }

  async accept(filePath: string, gesture: string): Promise<void> {
    if (gesture === 'save') return this.editor.save(this.proposalUri(filePath));
    if (gesture === 'Accept on the review page') {
      const review = await this.review(filePath);
      await this.page?.act(review.id, 'accept', review.draft);
      return;
    }
    await this.runAction(filePath, /accept .*'s proposal/);
  }

  async reject(filePath: string, gesture: string): Promise<void> {
    if (gesture === 'close unsaved') return this.editor.close(this.proposalUri(filePath));
    if (gesture === 'Reject on the review page') {
      await this.page?.act((await this.review(filePath)).id, 'reject');
      return;
    }
    await this.runAction(filePath, /reject .*'s proposal/);
  }

  async messages(): Promise<string> {
    return this.editor.messages.join('\n');
  }

  async quit(): Promise<void> {
    await this.editor.quit();
  }

  async close(): Promise<void> {
    await this.editor.kill();
  }

  /** Sends what the client sends once the selection stays at `range`, with its timing. */
  private async selectionMoved(range: Range): Promise<void> {
    this.selection = range;
    const textDocument = { uri: this.activeUri() };
    let waited = 0;
    for (const request of this.replay.cursorRequests) {
      await sleep(Math.max(0, request.afterMs - waited));
      waited = Math.max(waited, request.afterMs);
      if (request.at === 'selection') {
        await this.editor.codeActions(textDocument.uri, range);
      } else {
        // The head: where the selection's cursor is (its end).
        const position = this.replay.cursorIsACharacter ? range.start : range.end;
        await this.editor.request(request.method, { textDocument, position });
      }
    }
  }

  /** The Accept or Reject code action, where this editor offers it. */
  private async runAction(filePath: string, title: RegExp): Promise<void> {
    const uri = this.page ? uriOf(filePath) : this.proposalUri(filePath);
    if (this.page && !this.editor.documents.has(uri)) await this.editor.open(filePath);
    const here = { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } };
    await this.editor.runCodeAction(uri, here, title);
  }

  private proposalUri(filePath: string): string {
    for (const [uri] of this.editor.documents) {
      const pending = this.editor.diagnostics.get(uri)?.find((d) => d.code === PENDING_CODE);
      if (pending?.relatedInformation?.[0]?.location.uri === uriOf(filePath)) return uri;
    }
    throw new Error(`no proposal of ${filePath} is open`);
  }

  /** The address the latest announcement gave, not yet used. */
  private announcedUrl(): string | undefined {
    for (const message of [...this.editor.messages].reverse()) {
      const url = /(http:\/\/127\.0\.0\.1:\d+\/#\S+)/.exec(message)?.[1];
      if (url && !this.seenUrls.has(url)) return url;
    }
    return undefined;
  }

  private async pageViews(): Promise<ShownDiff[]> {
    if (!this.page) {
      const url = this.announcedUrl() as string;
      this.seenUrls.add(url);
      this.page = await ReviewPage.open(url);
    }
    return (await this.page.reviews()).map((review) => ({
      filePath: review.filePath,
      proposal: review.draft,
    }));
  }

  private async review(filePath: string) {
    const reviews = (await this.page?.reviews()) ?? [];
    const review = reviews.find((candidate) => candidate.filePath === filePath);
    if (!review) throw new Error(`${filePath} is not on the review page`);
    return review;
  }

  private activeUri(): string {
    if (!this.active) throw new Error('no file is open');
    return this.active;
  }
}
