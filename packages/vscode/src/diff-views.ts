import * as path from 'node:path';
import * as vscode from 'vscode';
import type {
  DiffAnswer,
  DiffClosedNotice,
  DiffCloseReason,
  DiffOutcomeNotice,
  DiffRequest,
  EditorPort,
  Logger,
} from '@tandem/core';

/** The proposed side: an in-memory file the user edits; saving it accepts the proposal. */
export const PROPOSAL_SCHEME = 'tandem-proposal';
/** The left side: the file as the CLI read it, read-only. */
export const ORIGINAL_SCHEME = 'tandem-original';

/** Where the user's answers go (the engine). */
export interface DiffAnswers {
  accepted(id: string, content: string): DiffAnswer;
  rejected(id: string): DiffAnswer;
}

interface View {
  diff: DiffRequest;
  original: vscode.Uri;
  proposal: vscode.Uri;
  /** The proposal as last saved (or as proposed). */
  saved: Uint8Array;
  mtime: number;
  answered: boolean;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * The diffs in VS Code's own diff editor: the file on the left, the proposal on the right,
 * editable. Every view ends with exactly one answer: accept (title button, command, or saving
 * the proposal), reject (title button, command, or closing the tab), or a close from the CLI.
 */
export class DiffViews
  implements
    Pick<EditorPort, 'showDiff' | 'closeDiff' | 'diffClosed' | 'diffOutcome'>,
    vscode.FileSystemProvider,
    vscode.TextDocumentContentProvider,
    vscode.Disposable
{
  private readonly views = new Map<string, View>();
  private readonly changes = new vscode.EventEmitter<vscode.FileChangeEvent[]>();
  readonly onDidChangeFile = this.changes.event;
  private readonly subscriptions: vscode.Disposable[];
  /** Once the window goes away, views are answered without touching the UI. */
  private shuttingDown = false;
  /** Proposals whose save under way the user asked for (not an auto save), by URI. */
  private readonly manualSaves = new Set<string>();
  /** The language of each view the CLI closed, until the engine says what to tell the user. */
  private readonly closedLanguages = new Map<string, string | undefined>();

  constructor(
    private readonly answers: DiffAnswers,
    private readonly log: Logger,
  ) {
    this.subscriptions = [
      vscode.workspace.registerFileSystemProvider(PROPOSAL_SCHEME, this, {
        isCaseSensitive: true,
      }),
      vscode.workspace.registerTextDocumentContentProvider(ORIGINAL_SCHEME, this),
      vscode.window.tabGroups.onDidChangeTabs((event) => this.tabsClosed(event.closed)),
      vscode.workspace.onWillSaveTextDocument((event) => this.willSave(event)),
      vscode.workspace.onDidSaveTextDocument((document) => this.saved(document)),
      vscode.commands.registerCommand('tandem.acceptDiff', (uri?: vscode.Uri) =>
        this.acceptFromUser(this.viewFor(uri)),
      ),
      vscode.commands.registerCommand('tandem.rejectDiff', (uri?: vscode.Uri) =>
        this.rejectFromUser(this.viewFor(uri)),
      ),
    ];
    // Views of an earlier run of this window (before a reload) have no proposal behind them.
    const leftovers = vscode.window.tabGroups.all
      .flatMap((group) => group.tabs)
      .filter((tab) => proposalOf(tab));
    if (leftovers.length) void vscode.window.tabGroups.close(leftovers);
  }

  // EditorPort.

  async showDiff(diff: DiffRequest): Promise<void> {
    const query = `id=${encodeURIComponent(diff.id)}`;
    const filePath = path.resolve(diff.filePath);
    const view: View = {
      diff,
      original: vscode.Uri.from({ scheme: ORIGINAL_SCHEME, path: filePath, query }),
      proposal: vscode.Uri.from({ scheme: PROPOSAL_SCHEME, path: filePath, query }),
      saved: encoder.encode(diff.newContent),
      mtime: Date.now(),
      answered: false,
    };
    this.views.set(diff.id, view);
    this.updateContext();
    const warning = this.unsavedWarning(filePath);
    if (warning) vscode.window.showWarningMessage(warning);
    const title = `${path.basename(filePath)} ↔ ${diff.client.name}'s proposal${warning ? ` — ⚠ ${warning}` : ''}`;
    await vscode.commands.executeCommand('vscode.diff', view.original, view.proposal, title, {
      preview: false,
    });
  }

  async closeDiff(id: string, reason: DiffCloseReason): Promise<string> {
    const view = this.views.get(id);
    if (!view) throw new Error(`no diff ${id} is open`);
    const content = this.currentText(view);
    this.closedLanguages.set(id, this.document(view)?.languageId);
    view.answered = true;
    await this.close(view);
    this.log.info(`${view.diff.filePath}: closed (${reason})`);
    return content;
  }

  /** What the engine tells the user of a view the CLI closed, and the edits it keeps. */
  diffClosed(id: string, { message, keptText }: DiffClosedNotice): void {
    const language = this.closedLanguages.get(id);
    this.closedLanguages.delete(id);
    this.log.info(message);
    if (this.shuttingDown) return;
    void (async () => {
      if (keptText !== undefined) {
        const kept = await vscode.workspace.openTextDocument({ content: keptText, language });
        await vscode.window.showTextDocument(kept, { preview: false });
      }
      void vscode.window.showWarningMessage(message);
    })().catch((error: unknown) => this.log.warn(`cannot keep the edits: ${String(error)}`));
  }

  /** What the CLI did after the user answered in its terminal, found out by the engine on disk. */
  diffOutcome(_id: string, outcome: DiffOutcomeNotice): void {
    this.log.info(outcome.message);
    if (outcome.kind === 'changed') void vscode.window.showWarningMessage(outcome.message);
    else void vscode.window.showInformationMessage(outcome.message);
  }

  // The user's answers.

  /**
   * The title button, the command and Ctrl/Cmd+S (bound to the command in a proposal) accept the
   * text the user sees, not through a save: a save asked for while an auto save of the same text
   * is under way joins it, and no manual save is ever announced (the answer would be lost).
   */
  private async acceptFromUser(view: View | undefined): Promise<void> {
    if (!view || view.answered) return;
    await this.accept(view, this.currentText(view));
  }

  /**
   * Only a save the user asks for accepts (File > Save, "Save" as a dirty tab closes):
   * `files.autoSave` (on by default in code-server and VS Code for the Web) saves a proposal a
   * second after each edit, which is no answer.
   */
  private willSave(event: vscode.TextDocumentWillSaveEvent): void {
    if (event.document.uri.scheme !== PROPOSAL_SCHEME) return;
    const key = event.document.uri.toString();
    if (event.reason === vscode.TextDocumentSaveReason.Manual) this.manualSaves.add(key);
    else this.manualSaves.delete(key);
  }

  /** Saving the proposal (File > Save, or "Save" when its tab closes) accepts it. */
  private saved(document: vscode.TextDocument): void {
    const manual = this.manualSaves.delete(document.uri.toString());
    const view = this.viewFor(document.uri);
    if (manual && view && !view.answered && document.uri.scheme === PROPOSAL_SCHEME) {
      void this.accept(view, document.getText());
    }
  }

  private async rejectFromUser(view: View | undefined): Promise<void> {
    if (!view || view.answered) return;
    view.answered = true;
    this.answered(this.answers.rejected(view.diff.id));
    await this.close(view);
  }

  private async accept(view: View, content: string): Promise<void> {
    const answer = this.answers.accepted(view.diff.id, content);
    if (!answer.ok && answer.code === 'empty-accept') {
      // The view stays open: the user may undo the emptying, or reject.
      vscode.window.showWarningMessage(answer.message);
      return;
    }
    this.answered(answer);
    view.answered = true;
    await this.close(view);
  }

  private answered(answer: DiffAnswer): void {
    if (!answer.ok) this.log.warn(answer.message);
  }

  /** Closing the tab of an unanswered view, however it happens, rejects it. */
  private tabsClosed(closed: readonly vscode.Tab[]): void {
    for (const tab of closed) {
      const view = this.viewFor(proposalOf(tab));
      if (view && !view.answered && !this.tabsOf(view).length) void this.rejectFromUser(view);
    }
  }

  // The window is going away (reload, quit, extension disabled).

  /** From now on, views are answered without waiting on the window, which may be gone. */
  windowGone(): void {
    this.shuttingDown = true;
  }

  // FileSystemProvider, for the proposals.

  stat(uri: vscode.Uri): vscode.FileStat {
    const view = this.existing(uri);
    return {
      type: vscode.FileType.File,
      ctime: view.mtime,
      mtime: view.mtime,
      size: view.saved.length,
    };
  }

  readFile(uri: vscode.Uri): Uint8Array {
    return this.existing(uri).saved;
  }

  writeFile(uri: vscode.Uri, content: Uint8Array): void {
    const view = this.existing(uri);
    view.saved = content;
    view.mtime = Date.now();
  }

  watch(): vscode.Disposable {
    return new vscode.Disposable(() => undefined);
  }

  readDirectory(): [string, vscode.FileType][] {
    return [];
  }

  createDirectory(uri: vscode.Uri): void {
    throw vscode.FileSystemError.NoPermissions(uri);
  }

  delete(uri: vscode.Uri): void {
    throw vscode.FileSystemError.NoPermissions(uri);
  }

  rename(uri: vscode.Uri): void {
    throw vscode.FileSystemError.NoPermissions(uri);
  }

  // TextDocumentContentProvider, for the originals.

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.viewFor(uri)?.diff.oldContent ?? '';
  }

  dispose(): void {
    for (const subscription of this.subscriptions) subscription.dispose();
    this.changes.dispose();
  }

  // Helpers.

  private async close(view: View): Promise<void> {
    if (!this.shuttingDown) {
      const document = this.document(view);
      // A dirty tab would ask "Save changes?" although the answer is given (view.answered is
      // set, so this save accepts nothing).
      if (document?.isDirty) await document.save();
      await vscode.window.tabGroups.close(this.tabsOf(view)).then(undefined, (error: unknown) => {
        this.log.warn(`could not close the diff of ${view.diff.filePath}: ${String(error)}`);
      });
    }
    this.views.delete(view.diff.id);
    this.updateContext();
  }

  private currentText(view: View): string {
    return this.document(view)?.getText() ?? decoder.decode(view.saved);
  }

  private document(view: View): vscode.TextDocument | undefined {
    const key = view.proposal.toString();
    return vscode.workspace.textDocuments.find((document) => document.uri.toString() === key);
  }

  private tabsOf(view: View): vscode.Tab[] {
    const key = view.proposal.toString();
    return vscode.window.tabGroups.all
      .flatMap((group) => group.tabs)
      .filter((tab) => proposalOf(tab)?.toString() === key);
  }

  /** The view of a proposal or original URI; without one, the view in the active tab. */
  private viewFor(uri: vscode.Uri | undefined): View | undefined {
    uri ??= proposalOf(vscode.window.tabGroups.activeTabGroup.activeTab);
    if (!uri || (uri.scheme !== PROPOSAL_SCHEME && uri.scheme !== ORIGINAL_SCHEME))
      return undefined;
    const id = new URLSearchParams(uri.query).get('id');
    return id === null ? undefined : this.views.get(id);
  }

  private existing(uri: vscode.Uri): View {
    const view = this.viewFor(uri);
    if (!view) throw vscode.FileSystemError.FileNotFound(uri);
    return view;
  }

  /** The warning for a file whose editor holds unsaved changes: the CLI writes to disk only. */
  private unsavedWarning(filePath: string): string | undefined {
    const dirty = vscode.workspace.textDocuments.some(
      (document) =>
        document.uri.scheme === 'file' && document.uri.fsPath === filePath && document.isDirty,
    );
    return dirty
      ? `${path.basename(filePath)} has unsaved changes, which an accept leaves in its editor`
      : undefined;
  }

  private updateContext(): void {
    void vscode.commands.executeCommand('setContext', 'tandem.diffOpen', this.views.size > 0);
  }
}

/** The proposal shown in a tab, if the tab is one of Tandem's diffs. */
function proposalOf(tab: vscode.Tab | undefined): vscode.Uri | undefined {
  const input = tab?.input;
  if (input instanceof vscode.TabInputTextDiff && input.modified.scheme === PROPOSAL_SCHEME) {
    return input.modified;
  }
  return undefined;
}
