import { rmSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type {
  CompanionWarning,
  DiffAnswer,
  DiffClosedNotice,
  DiffOutcomeNotice,
  DiffRequest,
  EditorPort,
  Logger,
} from '@tandem/core';
import type { DiffAnswers } from '@tandem/serve';
import { DiagnosticSeverity, MessageType, type Diagnostic } from 'vscode-languageserver';
import type { OpenDocuments } from './documents.js';
import { filePath } from './editor-identity.js';
import { answeredMark, pendingMarks } from './proposal-marks.js';
import type { PositionEncoding } from './positions.js';
import { ReviewFallback, type PageAnnouncer, type PageSettings } from './review-fallback.js';

/** What the proposals ask of the editor, through its LSP client. */
export interface ProposalEditor extends PageAnnouncer {
  /** Opens `uri` with the focus; false when the editor cannot (an error or `success: false`). */
  showDocument(uri: string, line: number): Promise<boolean>;
  publishDiagnostics(uri: string, diagnostics: Diagnostic[]): void;
  showMessage(type: MessageType, message: string): void;
  /** The engine's warnings changed. */
  warningsChanged(warnings: CompanionWarning[]): void;
}

/**
 * How long an editor may take to tell Tandem (`didOpen`) that it opened a proposal. One that
 * shows it without telling (Tandem is not among the servers of its language) cannot answer it
 * by saving: past this, the review page is offered too.
 */
const OPEN_NOTICE_MS = 2000;

/** A pending diff, as the code actions name it. */
export interface PendingDiff {
  id: string;
  client: string;
}

interface Proposal {
  diff: DiffRequest;
  uri: string;
  /** The private folder holding the proposal file, removed with it. */
  folder: string;
  pending: boolean;
  /** The marks published last, published again when the editor opens the proposal. */
  marks: Diagnostic[];
}

/**
 * The `EditorPort` of `tandem lsp`: each diff is a proposal file, named as the user's file, in a
 * private folder; the editor shows it (`window/showDocument`), saving it accepts it with the
 * saved text, closing it unsaved rejects it. Tandem never writes the user's file. An editor that
 * cannot show it gets the diff on the review page instead.
 */
export class Proposals implements EditorPort {
  private readonly byId = new Map<string, Proposal>();
  private readonly byUri = new Map<string, Proposal>();
  /** The diffs on the review page alone (the editor could not show them). */
  private readonly pageOnly = new Map<string, DiffRequest>();
  private readonly page: ReviewFallback;
  private readonly openNotices = new Set<NodeJS.Timeout>();
  private answers: DiffAnswers | undefined;

  constructor(
    /** A private folder (0700) for the proposal files, removed by `dispose()`. */
    private readonly folder: string,
    private readonly editor: ProposalEditor,
    private readonly documents: OpenDocuments,
    private readonly encoding: PositionEncoding,
    /** What the review page needs: the folders it shows, the process's connection budget. */
    page: PageSettings,
    private readonly log: Logger,
  ) {
    this.page = new ReviewFallback(
      page,
      editor,
      () => this.engine(),
      (id) => this.answeredOnPage(id),
      log,
    );
  }

  /** Where accepts and rejects go: the engine, once it has started. */
  answerTo(answers: DiffAnswers): void {
    this.answers = answers;
  }

  isProposal(uri: string): boolean {
    return this.byUri.has(uri) || this.isInFolder(uri);
  }

  /**
   * The pending diffs a code action at `uri` answers: the proposal shown as `uri`, or the
   * diffs of the file `uri` that are on the review page because the editor could not show them
   * or showed them without telling Tandem (so that it cannot answer them by saving).
   */
  pendingAt(uri: string): PendingDiff[] {
    const proposal = this.byUri.get(uri);
    const diffs = proposal
      ? proposal.pending
        ? [proposal.diff]
        : []
      : [...this.pageOnly.values(), ...this.untoldOnPage()].filter(
          (diff) => diff.filePath === filePath(uri),
        );
    return diffs.map((diff) => ({ id: diff.id, client: diff.client.name }));
  }

  async showDiff(diff: DiffRequest): Promise<void> {
    if (this.byId.has(diff.id)) throw new Error(`Diff ${diff.id} is already open`);
    const folder = await mkdtemp(path.join(this.folder, 'diff-'));
    const file = path.join(folder, path.basename(diff.filePath));
    await writeFile(file, diff.newContent, { flag: 'wx', mode: 0o600 });
    const marks = pendingMarks(diff, this.encoding, this.unsavedInEditor(diff));
    const uri = pathToFileURL(file).href;
    const proposal: Proposal = { diff, uri, folder, pending: true, marks };
    this.byId.set(diff.id, proposal);
    this.byUri.set(proposal.uri, proposal);
    this.editor.publishDiagnostics(proposal.uri, marks);
    const firstChange =
      marks.find((mark) => mark.severity === DiagnosticSeverity.Hint)?.range.start.line ?? 0;
    if (await this.editor.showDocument(proposal.uri, firstChange)) {
      this.expectOpenNotice(proposal);
      return;
    }
    // No window/showDocument here (an error or `success: false`): the review page shows it.
    await this.forget(proposal);
    this.pageOnly.set(diff.id, diff);
    try {
      await this.page.show(diff, true);
    } catch (error) {
      this.pageOnly.delete(diff.id);
      throw new Error(
        `the editor cannot open the proposal, nor the review page: ${describe(error)}`,
        { cause: error },
      );
    }
  }

  async closeDiff(id: string): Promise<string> {
    if (this.pageOnly.delete(id)) return this.page.close(id);
    const proposal = this.byId.get(id);
    if (!proposal) throw new Error(`Diff ${id} is not open`);
    this.page.withdraw(id);
    const text = this.documents.text(proposal.uri) ?? proposal.diff.newContent;
    proposal.pending = false;
    if (this.documents.text(proposal.uri) === undefined) await this.forget(proposal);
    return text;
  }

  /**
   * What the engine says of a diff the CLI closed. LSP cannot close a document: the proposal
   * says it, until the user closes it (the edits it keeps are in that document). A diff shown
   * on the review page alone is told there.
   */
  diffClosed(id: string, notice: DiffClosedNotice): void {
    const proposal = this.byId.get(id);
    if (proposal) this.mark(proposal, answeredMark(notice.message));
    else this.page.closed(id, notice);
  }

  diffOutcome(id: string, outcome: DiffOutcomeNotice): void {
    const proposal = this.byId.get(id);
    if (proposal) this.mark(proposal, answeredMark(outcome.message));
    this.page.outcome(id, outcome);
    this.log.info(outcome.message);
  }

  warningsChanged(warnings: CompanionWarning[]): void {
    this.editor.warningsChanged(warnings);
  }

  /**
   * The editor opened `uri`: a proposal gets its marks again, since a client may drop the
   * diagnostics of a document it has not opened (eglot keeps them for its list alone).
   */
  opened(uri: string): void {
    const proposal = this.byUri.get(uri);
    if (proposal) this.editor.publishDiagnostics(uri, proposal.marks);
  }

  /** The editor saved `uri`: a pending proposal is accepted with the saved text. */
  async saved(uri: string, text: string | undefined): Promise<void> {
    const proposal = this.byUri.get(uri);
    if (!proposal?.pending) return;
    this.accept(
      proposal,
      text ?? this.documents.text(uri) ?? (await readFile(filePath(uri) ?? '', 'utf8')),
    );
  }

  /** The editor closed `uri`: a pending proposal closed unsaved is rejected. */
  async closed(uri: string): Promise<void> {
    const proposal = this.byUri.get(uri);
    if (!proposal) return;
    if (proposal.pending) this.reject(proposal);
    await this.forget(proposal);
  }

  /**
   * Accepts the diff `id` (the Accept action) with the text the editor holds, or the page's
   * for a diff on the page alone or shown without telling Tandem.
   */
  async acceptById(id: string): Promise<DiffAnswer> {
    const proposal = this.byId.get(id);
    if (this.pageOnly.has(id) || (proposal && this.isUntoldOnPage(proposal)))
      return this.page.accept(id);
    if (!proposal?.pending) return notPending(id);
    return this.accept(proposal, this.documents.text(proposal.uri) ?? proposal.diff.newContent);
  }

  /** Rejects the diff `id` (the Reject action). */
  async rejectById(id: string): Promise<DiffAnswer> {
    if (this.pageOnly.has(id)) return this.page.reject(id);
    const proposal = this.byId.get(id);
    if (!proposal?.pending) return notPending(id);
    return this.reject(proposal);
  }

  /**
   * Puts the diff `id` on the review page too, for its side-by-side view (with the text the
   * editor holds); resolves with the URL that opens the page.
   */
  async openOnPage(id: string): Promise<string> {
    const proposal = this.byId.get(id);
    if (proposal?.pending && !this.page.has(id)) {
      const text = this.documents.text(proposal.uri) ?? proposal.diff.newContent;
      await this.page.show({ ...proposal.diff, newContent: text }, false);
    }
    return this.page.url();
  }

  /**
   * The editor is going: rejects every pending diff and removes every proposal file at once,
   * in this turn of the event loop. Some editors kill their servers right after `exit` (Helix
   * 25.07 does not even wait for the reply to `shutdown`): the CLIs' answers must be on their
   * way before anything is awaited.
   */
  rejectAllNow(): void {
    for (const proposal of this.byId.values()) {
      if (proposal.pending) this.reject(proposal);
    }
    for (const id of this.pageOnly.keys()) this.engine().diffRejected(id);
    rmSync(this.folder, { recursive: true, force: true });
  }

  /** Removes every proposal file (the engine has answered every diff by then). */
  async dispose(): Promise<void> {
    for (const timer of this.openNotices) clearTimeout(timer);
    this.byId.clear();
    this.byUri.clear();
    this.pageOnly.clear();
    await this.page.dispose();
    await rm(this.folder, { recursive: true, force: true });
  }

  private accept(proposal: Proposal, content: string): DiffAnswer {
    const answer = this.engine().diffAccepted(proposal.diff.id, content);
    if (answer.ok) {
      this.settle(
        proposal,
        `Accepted: ${proposal.diff.client.name} writes ${this.fileName(proposal)}; an editor that ` +
          'does not reload it by itself shows its old text until you reload it (:reload in ' +
          'Helix). You may close this proposal.',
      );
    } else if (answer.code === 'not-open') {
      this.settle(proposal, `This proposal is no longer open: ${answer.message}`);
    } else {
      this.editor.showMessage(MessageType.Error, answer.message);
    }
    return answer;
  }

  private reject(proposal: Proposal): DiffAnswer {
    const answer = this.engine().diffRejected(proposal.diff.id);
    this.settle(
      proposal,
      `Rejected: ${proposal.diff.client.name} was told. You may close this proposal.`,
    );
    return answer;
  }

  /** Offers the review page for a proposal the editor shows without telling Tandem. */
  private expectOpenNotice(proposal: Proposal): void {
    const timer = setTimeout(() => {
      this.openNotices.delete(timer);
      const { diff } = proposal;
      if (!proposal.pending || this.documents.text(proposal.uri) !== undefined) return;
      if (this.page.has(diff.id)) return;
      this.log.warn(
        `the editor did not tell Tandem it opened the proposal of ${diff.filePath}: ` +
          'offering the review page',
      );
      this.page.show(diff, true).catch((error) => this.log.error(describe(error)));
    }, OPEN_NOTICE_MS);
    timer.unref();
    this.openNotices.add(timer);
  }

  /** The page (or its announcement) answered the diff `id`. */
  private answeredOnPage(id: string): void {
    this.pageOnly.delete(id);
    const proposal = this.byId.get(id);
    if (proposal?.pending)
      this.settle(proposal, 'Answered on the review page. You may close this proposal.');
  }

  private settle(proposal: Proposal, message: string): void {
    proposal.pending = false;
    this.page.withdraw(proposal.diff.id);
    if (this.byUri.has(proposal.uri)) this.mark(proposal, answeredMark(message));
  }

  /** The proposals the editor shows without telling Tandem, offered on the review page. */
  private untoldOnPage(): DiffRequest[] {
    return [...this.byId.values()]
      .filter((proposal) => this.isUntoldOnPage(proposal))
      .map((proposal) => proposal.diff);
  }

  /** A pending proposal the editor never told Tandem of, on the page (where it is edited). */
  private isUntoldOnPage(proposal: Proposal): boolean {
    return (
      proposal.pending &&
      this.page.has(proposal.diff.id) &&
      this.documents.text(proposal.uri) === undefined
    );
  }

  private mark(proposal: Proposal, marks: Diagnostic[]): void {
    proposal.marks = marks;
    this.editor.publishDiagnostics(proposal.uri, marks);
  }

  private async forget(proposal: Proposal): Promise<void> {
    this.byId.delete(proposal.diff.id);
    this.byUri.delete(proposal.uri);
    this.editor.publishDiagnostics(proposal.uri, []);
    await rm(proposal.folder, { recursive: true, force: true });
  }

  private unsavedInEditor(diff: DiffRequest): boolean {
    const text = this.documents.textOfFile(diff.filePath);
    return text !== undefined && text !== (diff.oldContent ?? '');
  }

  private isInFolder(uri: string): boolean {
    const file = filePath(uri);
    return file !== undefined && file.startsWith(this.folder + path.sep);
  }

  private fileName(proposal: Proposal): string {
    return path.basename(proposal.diff.filePath);
  }

  private engine(): DiffAnswers {
    if (!this.answers) throw new Error('the proposals have no engine to answer to');
    return this.answers;
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function notPending(id: string): DiffAnswer {
  return { ok: false, code: 'not-open', message: `diff ${id} is no longer pending` };
}
