import { randomBytes } from 'node:crypto';
import { open, rename, rm } from 'node:fs/promises';

/**
 * The temporary files of `writeFileAtomic` for `path`: `<path>.<writer's PID>.<random>.tmp`, so
 * that a later start can tell the leftovers of a writer that died (`temporaryWriter`).
 */
const TEMPORARY = /^.+\.(?:json|lock)\.(\d+)\.[0-9a-f]{12}\.tmp$/;

/**
 * Writes a file that readers see whole or not at all, readable by its owner alone: an exclusive
 * 0600 temporary file beside it, then a rename, into a folder the caller made. No fsync: these
 * files live as long as a process, and a rename is already all-or-nothing for readers. On any
 * failure (a full disk fails the write, or even the close) the temporary file is removed and
 * the file at `path`, if any, is left as it was.
 */
export async function writeFileAtomic(path: string, content: string): Promise<void> {
  const temporary = `${path}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  const handle = await open(temporary, 'wx', 0o600);
  try {
    try {
      await handle.writeFile(content);
    } finally {
      await handle.close();
    }
    await rename(temporary, path);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
}

/** The PID of the writer whose temporary file `name` is, or `undefined` for any other name. */
export function temporaryWriter(name: string): number | undefined {
  const match = TEMPORARY.exec(name);
  return match ? Number(match[1]) : undefined;
}
