/**
 * The one rule for every folder Tandem writes in (the compile cache, the discovery folders, the
 * review page's forwarding file): no other user can change it, or swap it for a folder of their
 * choosing. Synchronous: the compile cache decides before a command's code is compiled.
 */
import { lstatSync, mkdirSync, readlinkSync, type Stats } from 'node:fs';
import { isAbsolute, join, sep } from 'node:path';

const STICKY = 0o1000;
const WRITABLE_BY_OTHERS = 0o022;
/** As Linux's own limit on the links of one path. */
const MAX_LINKS = 40;

type Checked = { problem: string } | { problem?: undefined; missing: string[] };

/**
 * Why another user could change `folder` (absolute) or a folder that holds it, or `undefined`
 * when none can. Walked from `/` down with `lstat`: the folders above the first one this user
 * owns belong to root; from that one down every folder is this user's; any of them may be
 * writable by others only with the sticky bit (as `/tmp` is), and `folder` itself not at all. A
 * link on the way is followed only when no other user can have made or changed it (this user's
 * or root's, in a folder that passed), and its target is walked by the same rule; `folder`
 * itself must not be a link. So root running with a user's `HOME` finds that home unsafe: the
 * user owns it.
 */
export function privateFolderProblem(folder: string): string | undefined {
  const checked = check(folder);
  if (checked.problem !== undefined) return checked.problem;
  return checked.missing.length > 0 ? `${folder} does not exist` : undefined;
}

/**
 * Makes what is missing of `folder` (each folder 0700, only below a folder that passes), then
 * returns why it is not private (`privateFolderProblem`), or `undefined`. Nothing is made
 * under a folder that fails: not in another user's home, not in a folder others can swap.
 */
export function makePrivateFolder(folder: string): string | undefined {
  // Without user ids (Windows) there is nothing to check: the folder is only made.
  if (process.getuid === undefined) return madeWhole(folder);
  const checked = check(folder);
  if (checked.problem !== undefined) return checked.problem;
  for (const made of checked.missing) {
    try {
      mkdirSync(made, { mode: 0o700 });
    } catch (error) {
      // Another process may have made it meanwhile: it is judged below as any folder is.
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') return notMade(made, error);
    }
  }
  return privateFolderProblem(folder);
}

function madeWhole(folder: string): string | undefined {
  try {
    mkdirSync(folder, { recursive: true, mode: 0o700 });
    return undefined;
  } catch (error) {
    return notMade(folder, error);
  }
}

function notMade(folder: string, error: unknown): string {
  return `${folder} cannot be created (${(error as NodeJS.ErrnoException).code ?? String(error)})`;
}

/** The walk: a problem, or the folders still to make (outermost first). */
function check(folder: string): Checked {
  const uid = process.getuid?.();
  if (uid === undefined) return { missing: [] };
  if (!isAbsolute(folder)) return { problem: `${folder} is not an absolute path` };
  const pending = parts(folder);
  /** The real folders walked so far, each with whether this user owns it or one above it. */
  const walked: { path: string; owned: boolean }[] = [];
  let links = 0;
  const root = judge(sep, lstatSync(sep), uid, false, pending.length === 0, folder);
  if (typeof root === 'string') return { problem: root };
  walked.push({ path: sep, owned: root.owned });
  while (pending.length > 0) {
    const name = pending.shift()!;
    const current = walked.at(-1)!;
    if (name === '.') continue;
    if (name === '..') {
      if (walked.length > 1) walked.pop();
      continue;
    }
    const path = join(current.path, name);
    let stats: Stats;
    try {
      stats = lstatSync(path);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT') return { problem: `${path} cannot be read (${code})` };
      if (pending.some((part) => part === '..')) return { problem: `${path} does not exist` };
      const missing = [path];
      for (const part of pending.filter((part) => part !== '.')) {
        missing.push(join(missing.at(-1)!, part));
      }
      return { missing };
    }
    if (stats.isSymbolicLink() && pending.length > 0) {
      if (stats.uid !== uid && stats.uid !== 0) {
        return {
          problem: `${path}, which holds ${folder}, is a link of another user (uid ${stats.uid})`,
        };
      }
      if (++links > MAX_LINKS) return { problem: `${folder} is reached through too many links` };
      const target = readlinkSync(path);
      if (isAbsolute(target)) walked.splice(1);
      pending.unshift(...parts(target));
      continue;
    }
    const judged = judge(path, stats, uid, current.owned, pending.length === 0, folder);
    if (typeof judged === 'string') return { problem: judged };
    walked.push({ path, owned: judged.owned });
  }
  return { missing: [] };
}

/** Whether one folder of the walk passes (with whether this user owns it or one above). */
function judge(
  path: string,
  stats: Stats,
  uid: number,
  ownedAbove: boolean,
  last: boolean,
  folder: string,
): { owned: boolean } | string {
  const holds = last ? '' : `, which holds ${folder},`;
  if (stats.isSymbolicLink()) return `${path} is a symbolic link`;
  if (!stats.isDirectory()) return `${path}${holds} is not a folder`;
  const owned = ownedAbove || stats.uid === uid;
  // Above this user's first folder only root's; from it down, and the folder itself, this user's.
  if (stats.uid !== uid && (owned || last || stats.uid !== 0)) {
    return `${path}${holds} belongs to another user (uid ${stats.uid})`;
  }
  const writable = stats.mode & WRITABLE_BY_OTHERS;
  if (writable && (last || !(stats.mode & STICKY))) {
    return `${path}${holds} can be changed by other users (mode ${octal(stats.mode)})`;
  }
  return { owned };
}

function parts(path: string): string[] {
  return path.split(sep).filter(Boolean);
}

function octal(mode: number): string {
  return (mode & 0o7777).toString(8).padStart(4, '0');
}
