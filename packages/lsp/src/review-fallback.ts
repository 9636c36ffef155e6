import path from 'node:path';
import type {
  ConnectionCap,
  DiffAnswer,
  DiffClosedNotice,
  DiffOutcomeNotice,
  DiffRequest,
  Logger,
} from '@tandem/core';
import { ReviewQueue, ReviewServer, reviewPageDir, type DiffAnswers } from '@tandem/serve';

/** What the review page asks of the editor, through its LSP client. */
export interface PageAnnouncer {
  /** `window/showMessageRequest`: the title of the action the user picked, if any. */
  ask(message: string, actions: string[]): Promise<string | undefined>;
  /** `window/showMessage`, as an error. */
  tell(message: string): void;
}

/** The review page's folders, and the connection budget it shares with the companion. */
export interface PageSettings {
  workspaceFolders: string[];
  connections: ConnectionCap;
}

const ACCEPT = 'Accept';
const REJECT = 'Reject';

/**
 * The review page of `tandem serve`, for diffs the editor cannot open (no
 * `window/showDocument`) and for anyone who wants a side-by-side view: started with the first
 * such diff, announced with `window/showMessageRequest` (its URL, Accept and Reject).
 */
export class ReviewFallback {
  private page: Promise<{ queue: ReviewQueue; server: ReviewServer }> | undefined;
  private readonly onPage = new Set<string>();

  constructor(
    private readonly settings: PageSettings,
    private readonly announcer: PageAnnouncer,
    private readonly answers: () => DiffAnswers,
    /** A diff was answered on the page (or by an announcement's action). */
    private readonly answeredThere: (id: string) => void,
    private readonly log: Logger,
  ) {}

  has(id: string): boolean {
    return this.onPage.has(id);
  }

  /** Puts the diff on the page and announces it; resolves once it is on the page. */
  async show(diff: DiffRequest, announce: boolean): Promise<void> {
    const { queue, server } = await this.start();
    await queue.showDiff(diff);
    this.onPage.add(diff.id);
    if (announce) {
      void this.announce(diff, server.url).catch((error) =>
        this.log.error(`announcing ${diff.filePath}: ${describe(error)}`),
      );
    }
  }

  /** The URL that opens the page now (each URL opens one page). */
  async url(): Promise<string> {
    return (await this.start()).server.url;
  }

  /** The CLI closed the diff: its review leaves the page, which hears why with `closed`. */
  async close(id: string): Promise<string> {
    const { queue } = await this.start();
    this.onPage.delete(id);
    return queue.closeDiff(id);
  }

  /** What the engine says of a diff the CLI closed, for the page. */
  closed(id: string, notice: DiffClosedNotice): void {
    void this.page
      ?.then(({ queue }) => queue.diffClosed(id, notice))
      .catch((error) => this.log.warn(`telling the page of diff ${id}: ${describe(error)}`));
  }

  /** Takes the diff off the page, if it is there (the editor answered it). */
  withdraw(id: string): void {
    if (!this.onPage.delete(id)) return;
    void this.page
      ?.then(({ queue }) => queue.withdraw(id))
      .catch((error) => this.log.warn(`withdrawing diff ${id}: ${describe(error)}`));
  }

  outcome(id: string, notice: DiffOutcomeNotice): void {
    void this.page
      ?.then(({ queue }) => queue.diffOutcome(id, notice))
      .catch((error) => this.log.warn(`telling the page of diff ${id}: ${describe(error)}`));
  }

  /** Accepts with the text the page holds (the user may have edited it there). */
  async accept(id: string): Promise<DiffAnswer> {
    const { queue } = await this.start();
    const review = queue.pending().find((pending) => pending.id === id);
    return review ? queue.accept(id, review.draft) : queue.reject(id);
  }

  async reject(id: string): Promise<DiffAnswer> {
    return (await this.start()).queue.reject(id);
  }

  /** Ends the page (the engine has answered every diff by then). */
  async dispose(): Promise<void> {
    const page = await this.page?.catch(() => undefined);
    page?.queue.stopped();
    await page?.server.stop();
  }

  private start() {
    this.page ??= (async () => {
      const pageDir = reviewPageDir();
      if (!pageDir) throw new Error('the review page is not built (npm run build -w @tandem/web)');
      const queue = new ReviewQueue(this.log);
      queue.answerTo(this.answers());
      queue.subscribe((change) => {
        if (change.type !== 'closed' || !this.onPage.delete(change.id)) return;
        if (change.outcome !== 'closed') this.answeredThere(change.id);
      });
      const server = await ReviewServer.start({
        queue,
        pageDir,
        workspaceFolders: this.settings.workspaceFolders,
        connections: this.settings.connections,
        log: this.log,
      });
      this.log.info(`the review page listens on 127.0.0.1:${server.port}`);
      return { queue, server };
    })();
    return this.page;
  }

  private async announce(diff: DiffRequest, url: string): Promise<void> {
    const name = path.basename(diff.filePath);
    const what = diff.oldContent === null ? `a new file ${name}` : `a change to ${name}`;
    const picked = await this.announcer
      .ask(
        `${diff.client.name} proposes ${what}. Review it on ${url} (the address opens one ` +
          `browser page), or answer here.`,
        [ACCEPT, REJECT],
      )
      .catch(() => undefined);
    if (!this.onPage.has(diff.id) || (picked !== ACCEPT && picked !== REJECT)) return;
    const answer = picked === ACCEPT ? await this.accept(diff.id) : await this.reject(diff.id);
    if (!answer.ok) this.announcer.tell(answer.message);
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
