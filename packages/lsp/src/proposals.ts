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
import { fileKey, filePath } from './file-identity.js';
import { answeredMark, pendingMarks } from './proposal-marks.js';
import type { PositionEncoding } from './positions.js';
import { ReviewFallback, type PageAnnouncer, type PageSettings } from './review-fallback.js';

/** What the proposals ask of the editor, through its LSP client. */
export interface ProposalEditor extends PageAnnouncer {
  /**
   * Asks the editor to open `uri` with the focus; resolves with its answer, whenever it comes:
   * false when it cannot (an error or `success: false`).
   */
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
/**
 * How long an editor may take to answer `window/showDocument`. Some never answer a request they
 * do not know (Zed logs it): past this, the diff goes to the review page.
 */
const SHOW_DOCUMENT_TIMEOUT_MS = 1500;

/** A pending diff, as the code actions name it. */
export interface PendingDiff {
  id: string;
  client: string;
}

interface Proposal {
  diff: DiffRequest;
  /** The proposal file's URI as Tandem wrote it, and the file's key (`file-identity.ts`). */
  uri: string;
  key: string;
  /** The URI the editor opened it with, in its own spelling: where its marks go from then on. */
  editorUri?: string;
  /** The private folder holding the proposal file, removed with it. */
  folder: string;
  pending: boolean;
  /**
   * The editor has not answered `window/showDocument` yet: it may still open the file, which
   * stays until it has answered.
   */
  asked: boolean;
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
  /** The proposals by the key of their file, whatever the spelling of the editor's URIs. */
  private readonly byKey = new Map<string, Proposal>();
  /** The key of the folder of the proposal files. */
  private readonly folderKey: string;
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
    this.folderKey = fileKey(folder);
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
    const key = this.documents.keyOf(uri);
    return this.byKey.has(key) || key.startsWith(this.folderKey + path.sep);
  }

  /**
   * The pending diffs a code action at `uri` answers: the proposal shown as `uri`, or the
   * diffs of the file `uri` that are on the review page because the editor could not show them
   * or showed them without telling Tandem (so that it cannot answer them by saving).
   */
  pendingAt(uri: string): PendingDiff[] {
    const key = this.documents.keyOf(uri);
    const proposal = this.byKey.get(key);
    const diffs = proposal
      ? proposal.pending
        ? [proposal.diff]
        : []
      : [...this.pageOnly.values(), ...this.untoldOnPage()].filter(
          (diff) => fileKey(diff.filePath) === key,
        );
    return diffs.map((diff) => ({ id: diff.id, client: diff.client.name }));
  }

  async showDiff(diff: DiffRequest): Promise<void> {
    if (this.byId.has(diff.id)) throw new Error(`Diff ${diff.id} is already open`);
    const folder = await mkdtemp(path.join(this.folder, 'diff-'));
    const file = path.join(folder, path.basename(diff.filePath));
    try {
      await writeFile(file, diff.newContent, { flag: 'wx', mode: 0o600 });
    } catch (error) {
      // What a full disk let through must not stay to fail the next proposals too.
      await rm(folder, { recursive: true, force: true });
      throw error;
    }
    const marks = pendingMarks(diff, this.encoding, this.unsavedInEditor(diff));
    const uri = pathToFileURL(file).href;
    const key = fileKey(file);
    const proposal: Proposal = { diff, uri, key, folder, pending: true, asked: true, marks };
    this.byId.set(diff.id, proposal);
    this.byKey.set(key, proposal);
    this.editor.publishDiagnostics(proposal.uri, marks);
    const firstChange =
      marks.find((mark) => mark.severity === DiagnosticSeverity.Hint)?.range.start.line ?? 0;
    // A connection already closed throws: no editor to open it.
    const answer = this.editor.showDocument(proposal.uri, firstChange).catch(() => false);
    const inTime = await within(answer, SHOW_DOCUMENT_TIMEOUT_MS);
    if (inTime === 'late') return this.showLate(proposal, answer);
    proposal.asked = false;
    if (inTime) {
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
    // On the page as the editor has not said it opened it: edited there, if anywhere.
    const text = this.isUntoldOnPage(proposal)
      ? await this.page.close(id)
      : (this.textOf(proposal) ?? proposal.diff.newContent);
    this.page.withdraw(id);
    proposal.pending = false;
    // An editor yet to answer may still open it: its answer decides (`answeredLate`).
    if (this.textOf(proposal) === undefined && !proposal.asked) await this.forget(proposal);
    return text;
  }

  /**
   * What the engine says of a diff the CLI closed. LSP cannot close a document: the proposal
   * says it, until the user closes it (the edits it keeps are in that document). A diff shown
   * on the review page is told there too (a page that no longer shows it ignores it).
   */
  diffClosed(id: string, notice: DiffClosedNotice): void {
    const proposal = this.byId.get(id);
    if (proposal) this.mark(proposal, answeredMark(notice.message));
    this.page.closed(id, notice);
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
    const proposal = this.byKey.get(this.documents.keyOf(uri));
    if (!proposal) return;
    // The marks move to the editor's spelling: a client that keys them by the URI's text would
    // list them twice (one that goes by the file sets them again just after).
    if (uri !== proposal.uri) this.editor.publishDiagnostics(proposal.uri, []);
    proposal.editorUri = uri;
    this.editor.publishDiagnostics(uri, proposal.marks);
  }

  /** The editor saved `uri`: a pending proposal is accepted with the saved text. */
  async saved(uri: string, text: string | undefined): Promise<void> {
    const proposal = this.byKey.get(this.documents.keyOf(uri));
    if (!proposal?.pending) return;
    this.accept(
      proposal,
      text ?? this.documents.text(uri) ?? (await readFile(filePath(uri) ?? '', 'utf8')),
    );
  }

  /** The editor closed `uri`: a pending proposal closed unsaved is rejected. */
  async closed(uri: string): Promise<void> {
    const proposal = this.byKey.get(this.documents.keyOf(uri));
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
    return this.accept(proposal, this.textOf(proposal) ?? proposal.diff.newContent);
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
      const text = this.textOf(proposal) ?? proposal.diff.newContent;
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
    this.byKey.clear();
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
      if (!proposal.pending || this.textOf(proposal) !== undefined) return;
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
    if (this.byKey.has(proposal.key)) this.mark(proposal, answeredMark(message));
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
      proposal.pending && this.page.has(proposal.diff.id) && this.textOf(proposal) === undefined
    );
  }

  private mark(proposal: Proposal, marks: Diagnostic[]): void {
    proposal.marks = marks;
    this.editor.publishDiagnostics(proposal.editorUri ?? proposal.uri, marks);
  }

  private async forget(proposal: Proposal): Promise<void> {
    this.byId.delete(proposal.diff.id);
    this.byKey.delete(proposal.key);
    for (const uri of new Set([proposal.uri, proposal.editorUri ?? proposal.uri])) {
      this.editor.publishDiagnostics(uri, []);
    }
    await rm(proposal.folder, { recursive: true, force: true });
  }

  /** The text of the proposal in the editor, if it has it open. */
  private textOf(proposal: Proposal): string | undefined {
    return this.documents.text(proposal.editorUri ?? proposal.uri);
  }

  /**
   * No answer to `window/showDocument` in time: the review page shows the diff (as for an
   * editor that opens it without telling Tandem), and the file stays for the editor until it
   * answers, which may open it yet.
   */
  private async showLate(proposal: Proposal, answer: Promise<boolean>): Promise<void> {
    const { diff } = proposal;
    this.log.warn(
      `no answer to window/showDocument within ${SHOW_DOCUMENT_TIMEOUT_MS} ms: ` +
        `the proposal of ${diff.filePath} is on the review page`,
    );
    answer
      .then((shown) => this.answeredLate(proposal, shown))
      .catch((error) => this.log.error(describe(error)));
    try {
      await this.page.show(diff, true);
    } catch (error) {
      proposal.pending = false;
      if (!proposal.asked) await this.forget(proposal);
      throw new Error(
        `the editor did not open the proposal, nor the review page: ${describe(error)}`,
        {
          cause: error,
        },
      );
    }
  }

  /**
   * The editor answered `window/showDocument` after the diff went to the review page. Opened,
   * the proposal is answered there as any other (its marks say if it already was); refused,
   * nothing can open its file any more, and the page alone keeps the diff.
   */
  private async answeredLate(proposal: Proposal, shown: boolean): Promise<void> {
    proposal.asked = false;
    if (shown || this.textOf(proposal) !== undefined) return;
    if (!this.byId.has(proposal.diff.id)) return;
    if (proposal.pending) this.pageOnly.set(proposal.diff.id, proposal.diff);
    await this.forget(proposal);
  }

  private unsavedInEditor(diff: DiffRequest): boolean {
    const text = this.documents.textOfFile(diff.filePath);
    return text !== undefined && text !== (diff.oldContent ?? '');
  }

  private fileName(proposal: Proposal): string {
    return path.basename(proposal.diff.filePath);
  }

  private engine(): DiffAnswers {
    if (!this.answers) throw new Error('the proposals have no engine to answer to');
    return this.answers;
  }
}

/** `promise`'s value if it settles within `ms`, else `'late'`. */
async function within<T>(promise: Promise<T>, ms: number): Promise<T | 'late'> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), ms)));
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function notPending(id: string): DiffAnswer {
  return { ok: false, code: 'not-open', message: `diff ${id} is no longer pending` };
}
