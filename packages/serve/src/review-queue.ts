import type {
  CompanionWarning,
  ConnectedClient,
  DiffAnswer,
  DiffClosedNotice,
  DiffOutcomeNotice,
  DiffRequest,
  EditorEvents,
  EditorPort,
} from '@tandem/core';
import type { Review, ReviewClient, ReviewEvent, ReviewOutcome, ReviewWarning } from '@tandem/web';

/** The part of the engine that hears the user's answers. */
export type DiffAnswers = Pick<EditorEvents, 'diffAccepted' | 'diffRejected'>;

export type ReviewChange = Exclude<ReviewEvent, { type: 'snapshot' }>;

/**
 * The pending diffs of `tandem serve`, with the user's drafts: the editor side of the engine.
 * The engine opens and closes diffs here; the review server answers them for the user.
 */
export class ReviewQueue implements EditorPort {
  private readonly reviews = new Map<string, Review>();
  private clientList: ReviewClient[] = [];
  private warningList: ReviewWarning[] = [];
  private answers: DiffAnswers | undefined;
  private readonly listeners = new Set<(change: ReviewChange) => void>();

  constructor(private readonly log: { warn(message: string): void }) {}

  /** Where accepts and rejects go; the engine, once it has started. */
  answerTo(answers: DiffAnswers): void {
    this.answers = answers;
  }

  /** Calls `listener` on every change until the returned function is called. */
  subscribe(listener: (change: ReviewChange) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  pending(): Review[] {
    return [...this.reviews.values()];
  }

  clients(): ReviewClient[] {
    return this.clientList;
  }

  warnings(): ReviewWarning[] {
    return this.warningList;
  }

  warningsChanged(warnings: CompanionWarning[]): void {
    this.warningList = warnings.map(({ message, fix }) => ({ message, fix }));
    this.emit({ type: 'warnings', warnings: this.warningList });
  }

  /** The server is going away: pages say so instead of waiting for it. */
  stopped(): void {
    this.emit({ type: 'stopped' });
  }

  async showDiff(diff: DiffRequest): Promise<void> {
    if (this.reviews.has(diff.id)) throw new Error(`Diff ${diff.id} is already open`);
    const review: Review = {
      id: diff.id,
      filePath: diff.filePath,
      oldContent: diff.oldContent,
      proposal: diff.newContent,
      draft: diff.newContent,
      client: { name: diff.client.name, version: diff.client.version },
      openedAt: Date.now(),
    };
    this.reviews.set(review.id, review);
    this.emit({ type: 'opened', review });
  }

  /** The CLI closed the diff: it leaves the queue; the page hears of it with `diffClosed`. */
  async closeDiff(id: string): Promise<string> {
    const review = this.reviews.get(id);
    if (!review) throw new Error(`Diff ${id} is not open`);
    this.reviews.delete(id);
    return review.draft;
  }

  /** Why the CLI closed the diff, and the user's edits to keep: the engine's words. */
  diffClosed(id: string, { message, keptText }: DiffClosedNotice): void {
    this.emit({
      type: 'closed',
      id,
      outcome: 'closed',
      notice: { message, ...(keptText !== undefined && { editedText: keptText }) },
    });
  }

  /** The diff was answered beside the page (in an editor): it leaves the page. */
  withdraw(id: string): void {
    if (this.reviews.has(id)) this.finish(id, 'closed');
  }

  /** What became of a diff answered in the CLI's terminal: the page tells the user. */
  diffOutcome(id: string, { kind, message }: DiffOutcomeNotice): void {
    this.emit({ type: 'outcome', id, outcome: { kind, message } });
  }

  clientsChanged(clients: ConnectedClient[]): void {
    this.clientList = clients.map(({ name, version }) => ({ name, version }));
    this.emit({ type: 'clients', clients: this.clientList });
  }

  /** Remembers the user's edit of the proposed side. False when the diff is not pending. */
  updateDraft(id: string, content: string): boolean {
    const review = this.reviews.get(id);
    if (!review) {
      this.log.warn(`Ignored an edit of diff ${id}: it is no longer pending`);
      return false;
    }
    review.draft = content;
    return true;
  }

  /**
   * The user accepted the diff with `content` as the final text. What the engine says: a refused
   * accept (an emptied proposal) leaves the diff pending with the user's text as its draft.
   */
  accept(id: string, content: string): DiffAnswer {
    const review = this.reviews.get(id);
    if (!review) return this.notPending(id, 'accept');
    const answer = this.engine().diffAccepted(id, content);
    if (answer.ok) this.finish(id, 'accepted');
    else if (answer.code === 'not-open') this.finish(id, 'closed');
    else review.draft = content;
    return answer;
  }

  /** The user rejected the diff. */
  reject(id: string): DiffAnswer {
    if (!this.reviews.has(id)) return this.notPending(id, 'reject');
    const answer = this.engine().diffRejected(id);
    this.finish(id, answer.ok ? 'rejected' : 'closed');
    return answer;
  }

  private engine(): DiffAnswers {
    if (!this.answers) throw new Error('The review queue has no engine to answer to');
    return this.answers;
  }

  private notPending(id: string, verb: string): DiffAnswer {
    const message = `diff ${id} is no longer pending`;
    this.log.warn(`Ignored a request to ${verb}: ${message}`);
    return { ok: false, code: 'not-open', message };
  }

  private finish(id: string, outcome: ReviewOutcome): void {
    this.reviews.delete(id);
    this.emit({ type: 'closed', id, outcome });
  }

  private emit(change: ReviewChange): void {
    for (const listener of this.listeners) listener(change);
  }
}
