import { lstat, mkdir, realpath, stat } from 'node:fs/promises';
import { dirname, join, sep } from 'node:path';
import { readRegularFile } from '../files/regular-file.js';

/** A discovery file is a few hundred bytes: anything much larger is not one. */
export const MAX_DISCOVERY_FILE_BYTES = 64 * 1024;

const STICKY = 0o1000;
const WRITABLE_BY_OTHERS = 0o022;

/**
 * Why no other user may change `dir` or anything that holds it, or `undefined` when that is so.
 * The folder itself must be a real folder (not a link) of this user, writable by this user
 * alone; every folder above it (links resolved) must belong to this user or to root, and be
 * writable by others only with the sticky bit (as `/tmp` is), so that no one can swap it.
 */
export async function folderProblem(dir: string): Promise<string | undefined> {
  const uid = process.getuid?.();
  if (uid === undefined) return undefined;
  let info;
  try {
    info = await lstat(dir);
  } catch (error) {
    return `${dir} cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)})`;
  }
  if (info.isSymbolicLink()) return `${dir} is a symbolic link`;
  if (!info.isDirectory()) return `${dir} is not a folder`;
  if (info.uid !== uid) return `${dir} belongs to another user (uid ${info.uid})`;
  if (info.mode & WRITABLE_BY_OTHERS) {
    return `${dir} can be changed by other users (mode ${octal(info.mode)})`;
  }
  let above: string;
  try {
    above = await realpath(dirname(dir));
  } catch (error) {
    return `${dirname(dir)} cannot be read (${(error as NodeJS.ErrnoException).code})`;
  }
  for (const folder of ancestors(above)) {
    const held = await stat(folder);
    if (held.uid !== uid && held.uid !== 0) {
      return `${folder}, which holds ${dir}, belongs to another user (uid ${held.uid})`;
    }
    if (held.mode & WRITABLE_BY_OTHERS && !(held.mode & STICKY)) {
      return `${folder}, which holds ${dir}, can be changed by other users (mode ${octal(held.mode)})`;
    }
  }
  return undefined;
}

/**
 * Creates what is missing of `dir` (owner-only) and returns why it is not safe to write in,
 * or `undefined`.
 */
export async function prepareFolder(dir: string): Promise<string | undefined> {
  let failure: string | undefined;
  await mkdir(dir, { recursive: true, mode: 0o700 }).catch((error: NodeJS.ErrnoException) => {
    failure = `${dir} cannot be created (${error.code ?? error.message})`;
  });
  return (await folderProblem(dir)) ?? failure;
}

/**
 * The text of a regular file of this user of at most `maxBytes`, or `undefined` for anything
 * else: a FIFO, a device or a link is never opened for reading.
 */
export async function readSmallRegularFile(
  path: string,
  maxBytes = MAX_DISCOVERY_FILE_BYTES,
): Promise<string | undefined> {
  const read = await readRegularFile(path, { maxBytes, ownerUid: process.getuid?.() });
  return read.status === 'text' ? read.text : undefined;
}

/** `/`, `/a`, `/a/b` for `/a/b`. */
function ancestors(path: string): string[] {
  const parts = path.split(sep).filter(Boolean);
  return [sep, ...parts.map((_, index) => join(sep, ...parts.slice(0, index + 1)))];
}

function octal(mode: number): string {
  return (mode & 0o7777).toString(8).padStart(4, '0');
}
