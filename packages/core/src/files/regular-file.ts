import { constants, type Stats } from 'node:fs';
import { lstat, open, stat } from 'node:fs/promises';

/** What reading a file found: its text, no file, or why it was not read. */
export type FileRead =
  { status: 'text'; text: string } | { status: 'missing' } | { status: 'refused'; reason: string };

export interface ReadLimits {
  /** A longer file is refused. */
  maxBytes: number;
  /** Follow a symbolic link to the file it names; otherwise a link is refused. */
  followLinks?: boolean;
  /** Only a file of this user is read. */
  ownerUid?: number;
}

const CHUNK_BYTES = 64 * 1024;

/**
 * The text of a regular file of at most `limits.maxBytes`, read without ever waiting on
 * anything but the disk. A FIFO, a socket, a device or a folder is never read (a FIFO blocks a
 * read forever, `/dev/zero` never ends): the kind is checked by name, then on the file opened
 * without waiting (in case the name was swapped in between). A file that holds more than the
 * size it reports is one the kernel makes up (as under `/proc`) and is refused too.
 */
export async function readRegularFile(path: string, limits: ReadLimits): Promise<FileRead> {
  const { maxBytes, followLinks = false, ownerUid } = limits;
  const problem = (info: Stats) => kindProblem(info, maxBytes, ownerUid);
  try {
    const named = followLinks ? await stat(path) : await lstat(path);
    const before = problem(named);
    if (before) return refused(before);
    const flags =
      constants.O_RDONLY | constants.O_NONBLOCK | (followLinks ? 0 : constants.O_NOFOLLOW);
    const handle = await open(path, flags);
    try {
      const opened = problem(await handle.stat());
      if (opened) return refused(opened);
      const chunks: Buffer[] = [];
      let total = 0;
      for (;;) {
        const chunk = Buffer.alloc(Math.min(CHUNK_BYTES, maxBytes + 1 - total));
        const { bytesRead } = await handle.read(chunk, 0, chunk.length, null);
        if (bytesRead === 0) break;
        chunks.push(chunk.subarray(0, bytesRead));
        total += bytesRead;
        if (total > maxBytes) return refused(tooLarge(maxBytes));
      }
      if (total > (await handle.stat()).size) {
        return refused(
          'is not a file on disk (its size says nothing of its content, as under /proc)',
        );
      }
      return { status: 'text', text: Buffer.concat(chunks, total).toString('utf8') };
    } finally {
      await handle.close();
    }
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return { status: 'missing' };
    if (code === 'ELOOP') return refused('is a symbolic link');
    return refused(`cannot be read (${code ?? String(error)})`);
  }
}

function kindProblem(info: Stats, maxBytes: number, ownerUid: number | undefined) {
  if (info.isSymbolicLink()) return 'is a symbolic link';
  if (info.isDirectory()) return 'is a folder';
  if (info.isFIFO()) return 'is a FIFO';
  if (info.isSocket()) return 'is a socket';
  if (info.isCharacterDevice() || info.isBlockDevice()) return 'is a device';
  if (!info.isFile()) return 'is not a regular file';
  if (ownerUid !== undefined && info.uid !== ownerUid) {
    return `belongs to another user (uid ${info.uid})`;
  }
  if (info.size > maxBytes) return tooLarge(maxBytes);
  return undefined;
}

function tooLarge(maxBytes: number): string {
  return `is larger than ${maxBytes} bytes`;
}

function refused(reason: string): FileRead {
  return { status: 'refused', reason };
}
