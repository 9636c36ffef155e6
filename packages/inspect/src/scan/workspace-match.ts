import { lstatSync, readlinkSync, realpathSync } from 'node:fs';
import { basename, delimiter, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * How each CLI decides whether its working directory belongs to a companion's `workspacePath`:
 * the same steps as Gemini CLI 0.61's `validateWorkspacePath` and Qwen Code 0.24's
 * `IdeClient.validateWorkspacePath`, quirks included, evaluated for a given directory instead
 * of the process's own.
 */
export type WorkspaceCheck =
  /**
   * `roots` as the CLI names them in its "Directory mismatch" message (Gemini CLI: resolved;
   * Qwen Code: as written); `matchedRoot` resolved.
   */
  | { outcome: 'match'; roots: string[]; matchedRoot: string }
  /** `workspacePath` is missing: the CLI says "Failed to connect to IDE companion extension". */
  | { outcome: 'missing' }
  /** `workspacePath` is "": no folder is open in the editor. */
  | { outcome: 'no-folder' }
  | { outcome: 'mismatch'; roots: string[] }
  /** `workspacePath` is not a string: the CLI's own check throws. */
  | { outcome: 'invalid'; why: string };

const SEGMENT_CODES = new Set(['ENOENT', 'EISDIR', 'ENAMETOOLONG', 'ENOTDIR']);

/** Gemini CLI: split on the path delimiter, each root a path or `file://` URI, realpath'ed. */
export function geminiWorkspaceCheck(value: unknown, cwd: string): WorkspaceCheck {
  const workspacePath = usableWorkspacePath(value);
  if (typeof workspacePath !== 'string') return workspacePath;
  let roots: string[];
  let realCwd: string;
  try {
    // An empty entry resolves to the cwd itself, so it matches: the client does the same.
    roots = workspacePath.split(delimiter).map((root) => geminiRealPath(root, cwd));
    realCwd = geminiRealPath(cwd, cwd);
  } catch (error) {
    return { outcome: 'invalid', why: `resolving it fails: ${(error as Error).message}` };
  }
  const matchedRoot = roots.find((root) => isSubpath(root, realCwd));
  return matchedRoot === undefined
    ? { outcome: 'mismatch', roots }
    : { outcome: 'match', roots, matchedRoot };
}

/**
 * Qwen Code: a JSON array of paths or a delimiter-joined list; only absolute entries count;
 * each realpath'ed when it exists, taken as it is otherwise.
 */
export function qwenWorkspaceCheck(value: unknown, cwd: string): WorkspaceCheck {
  const workspacePath = usableWorkspacePath(value);
  if (typeof workspacePath !== 'string') return workspacePath;
  const realCwd = realPathOrSelf(cwd);
  const roots = qwenWorkspaceEntries(workspacePath);
  const matchedRoot = roots.map(realPathOrSelf).find((root) => isSubpath(root, realCwd));
  return matchedRoot === undefined
    ? { outcome: 'mismatch', roots }
    : { outcome: 'match', roots, matchedRoot };
}

function qwenWorkspaceEntries(value: string): string[] {
  const usable = (item: string) => item.length > 0 && isAbsolute(item);
  if (value.trimStart().startsWith('[')) {
    try {
      const parsed: unknown = JSON.parse(value);
      if (Array.isArray(parsed) && parsed.every((item) => typeof item === 'string')) {
        return (parsed as string[]).filter(usable);
      }
    } catch {
      // Not JSON after all: read it as a delimiter-joined list, as the client does.
    }
  }
  return value.split(delimiter).filter(usable);
}

/** The `workspacePath` to match against, or the outcome both clients reach before matching. */
function usableWorkspacePath(workspacePath: unknown): string | WorkspaceCheck {
  if (workspacePath === undefined) return { outcome: 'missing' };
  if (workspacePath === '') return { outcome: 'no-folder' };
  if (typeof workspacePath === 'string') return workspacePath;
  return { outcome: 'invalid', why: `workspacePath is a ${jsonType(workspacePath)}, not a string` };
}

function jsonType(value: unknown): string {
  if (value === null) return 'null';
  return Array.isArray(value) ? 'array' : typeof value;
}

/** `path.relative` says the child is the parent or inside it. */
function isSubpath(parent: string, child: string): boolean {
  const rel = relative(resolve(parent), resolve(child));
  return !rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel);
}

/** Gemini CLI's `resolveToRealPath`, relative paths taken from `cwd` (the CLI's own cwd). */
function geminiRealPath(value: string, cwd: string): string {
  let path = value;
  try {
    if (path.startsWith('file://')) path = fileURLToPath(path);
    path = decodeURIComponent(path);
  } catch {
    // A malformed URI is kept as it was, as the client does.
  }
  return robustRealPath(resolve(cwd, path), new Set());
}

/** The realpath of the deepest existing ancestor, with the rest appended; dangling links followed. */
function robustRealPath(path: string, visited: Set<string>): string {
  if (visited.has(path)) throw new Error(`symbolic link loop at ${path}`);
  visited.add(path);
  try {
    return realpathSync(path);
  } catch (error) {
    if (!SEGMENT_CODES.has((error as NodeJS.ErrnoException).code ?? '')) throw error;
    try {
      if (lstatSync(path).isSymbolicLink()) {
        return robustRealPath(resolve(dirname(path), readlinkSync(path)), visited);
      }
    } catch (lstatError) {
      if (!SEGMENT_CODES.has((lstatError as NodeJS.ErrnoException).code ?? '')) throw lstatError;
    }
    const parent = dirname(path);
    return parent === path ? path : join(robustRealPath(parent, visited), basename(path));
  }
}

function realPathOrSelf(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}
