import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type {
  DiffAnswer,
  DiffClosing,
  DiffOutcomeNotice,
  DiffRequest,
  EditorEvents,
  EditorPort,
  Logger,
} from '@tandem/core';
import { DiagnosticSeverity, MessageType, type Diagnostic } from 'vscode-languageserver';
import type { OpenDocuments } from './documents.js';
import { filePath } from './editor-identity.js';
import { answeredMark, pendingMarks } from './proposal-marks.js';
import type { PositionEncoding } from './positions.js';

/** What the proposals ask of the editor, through its LSP client. */
export interface ProposalEditor {
  /** Opens `uri` with the focus; false when the editor cannot (an error or `success: false`). */
  showDocument(uri: string, line: number): Promise<boolean>;
  publishDiagnostics(uri: string, diagnostics: Diagnostic[]): void;
  showMessage(type: MessageType, message: string): void;
}

/** The part of the engine that hears the user's answers. */
export type DiffAnswers = Pick<EditorEvents, 'diffAccepted' | 'diffRejected'>;

interface Proposal {
  diff: DiffRequest;
  uri: string;
  /** The private folder holding the proposal file, removed with it. */
  folder: string;
  pending: boolean;
}

/**
 * The `EditorPort` of `tandem lsp`: each diff is a proposal file, named as the user's file, in a
 * private folder; the editor shows it (`window/showDocument`), saving it accepts it with the
 * saved text, closing it unsaved rejects it. Tandem never writes the user's file.
 */
export class Proposals implements EditorPort {
  private readonly byId = new Map<string, Proposal>();
  private readonly byUri = new Map<string, Proposal>();
  private answers: DiffAnswers | undefined;

  constructor(
    /** A private folder (0700) for the proposal files, removed by `dispose()`. */
    private readonly folder: string,
    private readonly editor: ProposalEditor,
    private readonly documents: OpenDocuments,
    private readonly encoding: PositionEncoding,
    private readonly log: Logger,
  ) {}

  /** Where accepts and rejects go: the engine, once it has started. */
  answerTo(answers: DiffAnswers): void {
    this.answers = answers;
  }

  isProposal(uri: string): boolean {
    return this.byUri.has(uri) || this.isInFolder(uri);
  }

  /** The pending proposal shown as `uri`: its diff's id and the name of its CLI. */
  pendingAt(uri: string): { id: string; client: string } | undefined {
    const proposal = this.byUri.get(uri);
    return proposal?.pending
      ? { id: proposal.diff.id, client: proposal.diff.client.name }
      : undefined;
  }

  async showDiff(diff: DiffRequest): Promise<void> {
    if (this.byId.has(diff.id)) throw new Error(`Diff ${diff.id} is already open`);
    const folder = await mkdtemp(path.join(this.folder, 'diff-'));
    const file = path.join(folder, path.basename(diff.filePath));
    await writeFile(file, diff.newContent, { flag: 'wx', mode: 0o600 });
    const proposal: Proposal = { diff, uri: pathToFileURL(file).href, folder, pending: true };
    this.byId.set(diff.id, proposal);
    this.byUri.set(proposal.uri, proposal);
    const marks = pendingMarks(diff, this.encoding, this.unsavedInEditor(diff));
    this.editor.publishDiagnostics(proposal.uri, marks);
    const firstChange =
      marks.find((mark) => mark.severity === DiagnosticSeverity.Hint)?.range.start.line ?? 0;
    if (!(await this.editor.showDocument(proposal.uri, firstChange))) {
      await this.forget(proposal);
      throw new Error('the editor cannot open the proposal (it does not do window/showDocument)');
    }
  }

  async closeDiff(id: string, closing: DiffClosing): Promise<string> {
    const proposal = this.byId.get(id);
    if (!proposal) throw new Error(`Diff ${id} is not open`);
    const text = this.documents.text(proposal.uri) ?? proposal.diff.newContent;
    proposal.pending = false;
    const edited = text !== proposal.diff.newContent;
    // LSP cannot close a document: the proposal says what happened, until the user closes it.
    if (this.documents.text(proposal.uri) === undefined) await this.forget(proposal);
    else
      this.editor.publishDiagnostics(
        proposal.uri,
        answeredMark(edited ? closing.editedMessage : closing.message),
      );
    return text;
  }

  diffOutcome(id: string, outcome: DiffOutcomeNotice): void {
    const proposal = this.byId.get(id);
    if (proposal) this.editor.publishDiagnostics(proposal.uri, answeredMark(outcome.message));
    this.log.info(outcome.message);
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

  /** Accepts the proposal `id` with the text the editor holds (the Accept action). */
  acceptById(id: string): DiffAnswer {
    const proposal = this.byId.get(id);
    if (!proposal?.pending) return notPending(id);
    return this.accept(proposal, this.documents.text(proposal.uri) ?? proposal.diff.newContent);
  }

  /** Rejects the proposal `id` (the Reject action). */
  rejectById(id: string): DiffAnswer {
    const proposal = this.byId.get(id);
    if (!proposal?.pending) return notPending(id);
    return this.reject(proposal);
  }

  /** Removes every proposal file (the engine has answered every diff by then). */
  async dispose(): Promise<void> {
    this.byId.clear();
    this.byUri.clear();
    await rm(this.folder, { recursive: true, force: true });
  }

  private accept(proposal: Proposal, content: string): DiffAnswer {
    const answer = this.engine().diffAccepted(proposal.diff.id, content);
    if (answer.ok) {
      this.settle(
        proposal,
        `Accepted: ${proposal.diff.client.name} writes ${this.fileName(proposal)}. You may close this proposal.`,
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

  private settle(proposal: Proposal, message: string): void {
    proposal.pending = false;
    if (this.byUri.has(proposal.uri))
      this.editor.publishDiagnostics(proposal.uri, answeredMark(message));
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

function notPending(id: string): DiffAnswer {
  return { ok: false, code: 'not-open', message: `diff ${id} is no longer pending` };
}
