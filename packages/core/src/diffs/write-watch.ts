import { stat } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import type { FileAfterAnswer } from '../clients/diff-rules.js';
import { readOldFile } from './old-file.js';

/**
 * What a file looks like on disk without reading it: any write, a rename over it, its creation or
 * its removal changes the stamp. `null` when the file does not exist.
 */
export type FileStamp = string | null;

export async function fileStamp(path: string): Promise<FileStamp> {
  try {
    const { dev, ino, size, mtimeNs, ctimeNs } = await stat(path, { bigint: true });
    return `${dev}:${ino}:${size}:${mtimeNs}:${ctimeNs}`;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === 'ENOENT' || code === 'ENOTDIR' ? null : `unreadable:${code}`;
  }
}

export interface WriteWatchOptions {
  /** How long to wait for the expected write. */
  limitMs: number;
  /** Whether the file's new text is the write awaited: the watch ends at once when it is. */
  awaited: (content: string) => boolean;
  /** Ends the watch early, with no result. */
  signal: AbortSignal;
  intervalMs?: number;
}

/**
 * Watches `path` until it holds the awaited text, or until the time limit: the file then is as
 * it was (one of the `unwritten` stamps: its states known to be before the awaited write), or
 * changed to something else (or removed). The first look already reads a file that differs from
 * `unwritten[0]`: the write may have come before the watch. `undefined` when aborted. It polls
 * a stat (and reads only when the stamp moved), which also sees a file that did not exist yet,
 * a folder created for it, and a write by rename, on any file system.
 */
export async function watchForWrite(
  path: string,
  unwritten: FileStamp[],
  { limitMs, awaited, signal, intervalMs = 100 }: WriteWatchOptions,
): Promise<FileAfterAnswer | undefined> {
  const deadline = Date.now() + limitMs;
  let seen = unwritten[0] ?? null;
  let content: string | null = null;
  while (!signal.aborted) {
    const stamp = await fileStamp(path);
    if (stamp !== seen) {
      seen = stamp;
      // A write in progress reads short; its end moves the stamp again (size, mtime).
      const read = stamp === null ? null : await readOldFile(path);
      content = read?.status === 'text' ? read.text : null;
      if (content !== null && awaited(content)) return { changed: true, content };
    }
    if (Date.now() >= deadline) {
      if (signal.aborted) return undefined;
      return unwritten.includes(seen) ? { changed: false } : { changed: true, content };
    }
    await sleep(intervalMs, undefined, { signal }).catch(() => undefined);
  }
  return undefined;
}
