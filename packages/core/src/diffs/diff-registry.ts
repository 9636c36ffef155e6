import type { ConnectedClient } from '../editor-port.js';
import type { FileStamp } from './write-watch.js';

/** One diff that a CLI session opened and the editor shows. */
export interface OpenDiff {
  id: string;
  sessionId: string;
  /** Exactly as the CLI sent it: outcomes must echo it byte for byte. */
  filePath: string;
  /** What the CLI proposed. */
  newContent: string;
  client: ConnectedClient;
  /** The file on disk when the diff opened: the CLI may write it before its `closeDiff` ends. */
  openedStamp: FileStamp;
}

/**
 * Every open diff, keyed by id and by (session, path). Several sessions may diff the same file
 * at once; one session has at most one diff per path (a new one replaces the old).
 */
export class DiffRegistry {
  private readonly byId = new Map<string, OpenDiff>();
  private nextNumber = 1;

  /** Records a new diff and returns it, with an id unique for the registry's life. */
  add(diff: Omit<OpenDiff, 'id'>): OpenDiff {
    const added = { id: `diff-${this.nextNumber++}`, ...diff };
    this.byId.set(added.id, added);
    return added;
  }

  get(id: string): OpenDiff | undefined {
    return this.byId.get(id);
  }

  find(sessionId: string, filePath: string): OpenDiff | undefined {
    for (const diff of this.byId.values()) {
      if (diff.sessionId === sessionId && diff.filePath === filePath) return diff;
    }
    return undefined;
  }

  ofSession(sessionId: string): OpenDiff[] {
    return [...this.byId.values()].filter((diff) => diff.sessionId === sessionId);
  }

  all(): OpenDiff[] {
    return [...this.byId.values()];
  }

  /** Removes the diff; `false` when it was already gone (answered or closed before). */
  remove(id: string): boolean {
    return this.byId.delete(id);
  }
}
