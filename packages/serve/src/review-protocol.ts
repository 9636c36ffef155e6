/**
 * What the review server and the review page (which imports these types too) say to each other.
 * The page learns everything from one event stream; it answers with JSON requests.
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

/** Everything the page needs to draw itself from scratch. */
export interface ReviewSnapshot {
  workspaceFolders: string[];
  clients: ReviewClient[];
  reviews: Review[];
}

/** One message of the event stream (`GET api/events`). */
export type ReviewEvent =
  | { type: 'snapshot'; snapshot: ReviewSnapshot }
  | { type: 'opened'; review: Review }
  | { type: 'closed'; id: string; outcome: ReviewOutcome }
  | { type: 'clients'; clients: ReviewClient[] };
