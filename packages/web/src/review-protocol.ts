/**
 * What the review page and the server that serves it (`tandem serve`, which imports these types
 * from `@tandem/web`) say to each other. The page learns everything from one event stream; it
 * answers with JSON requests.
 */

/** A connected CLI, as the page shows it. */
export interface ReviewClient {
  name: string;
  version: string;
}

/** One pending diff. */
export interface Review {
  id: string;
  /** Absolute path, exactly as the CLI sent it. */
  filePath: string;
  /** The file on disk when the diff was opened; `null` for a new file. */
  oldContent: string | null;
  /** The text the CLI proposed. */
  proposal: string;
  /** The proposed side as the user last left it in the page. */
  draft: string;
  client: ReviewClient;
  /** Milliseconds since the epoch. */
  openedAt: number;
}

export type ReviewOutcome = 'accepted' | 'rejected' | 'closed';

/** Why the CLI closed a diff, and where the user's edits went (from the engine). */
export interface ClosedNotice {
  message: string;
  /** The user's edited text, when their edits reach no file: keep it to copy. */
  editedText?: string;
}

/**
 * What became of a diff answered in the CLI's terminal, seconds after its `closed` event: the
 * engine saw the CLI write the file (`approved`), nothing written (`cancelled`), or another
 * change (`changed`).
 */
export interface OutcomeNotice {
  kind: 'approved' | 'cancelled' | 'changed';
  message: string;
}

/** Something the user must know before a CLI silently does not do what they expect. */
export interface ReviewWarning {
  message: string;
  fix: string;
}

/** Everything the page needs to draw itself from scratch. */
export interface ReviewSnapshot {
  workspaceFolders: string[];
  clients: ReviewClient[];
  reviews: Review[];
  warnings: ReviewWarning[];
  /** The command that starts the page's server again, as the user runs it (when it is one). */
  restartCommand?: string;
}

/** One message of the event stream (`GET api/events`). */
export type ReviewEvent =
  | { type: 'snapshot'; snapshot: ReviewSnapshot }
  | { type: 'opened'; review: Review }
  | { type: 'closed'; id: string; outcome: ReviewOutcome; notice?: ClosedNotice }
  | { type: 'outcome'; id: string; outcome: OutcomeNotice }
  | { type: 'clients'; clients: ReviewClient[] }
  | { type: 'warnings'; warnings: ReviewWarning[] }
  /** `tandem serve` is stopping: this page's server is going away for good. */
  | { type: 'stopped' };
