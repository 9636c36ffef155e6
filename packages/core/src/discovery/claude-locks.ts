import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { claudeConfigDir, claudeIdeDir } from '../clients/claude-rules.js';
import { isProcessAlive } from './processes.js';
import { readSmallRegularFile } from './safe-folder.js';

/**
 * The Claude Code lock files as the binary lists them (docs/clients.md, "Claude Code"):
 * `<CLAUDE_CONFIG_DIR or ~/.claude>/ide/*.lock`, and `~/.claude/ide` too when
 * `CLAUDE_CONFIG_DIR` is set. It deletes a lock it cannot read and one whose `pid` is dead.
 */

export interface ClaudeLock {
  path: string;
  /** The file's name is the port. */
  port: number;
  pid?: number;
  alive: boolean;
  workspaceFolders: string[];
  ideName?: string;
  /** Written by a Tandem engine (its mark). */
  tandem: boolean;
  /** Why the binary cannot read it (and deletes it). */
  error?: string;
}

/** The folders Claude Code lists lock files in, in its order. */
export function claudeLockFolders(env: NodeJS.ProcessEnv): string[] {
  const own = claudeIdeDir(claudeConfigDir(env));
  const home = claudeIdeDir(claudeConfigDir({ ...env, CLAUDE_CONFIG_DIR: '' }));
  return own === home ? [own] : [own, home];
}

/** Every lock file Claude Code started with `env` lists. */
export async function claudeLocks(env: NodeJS.ProcessEnv): Promise<ClaudeLock[]> {
  const locks: ClaudeLock[] = [];
  for (const dir of claudeLockFolders(env)) {
    const names = (await readdir(dir).catch(() => [] as string[])).sort();
    for (const name of names) {
      const port = /^(\d+)\.lock$/.exec(name)?.[1];
      if (port) locks.push(await readLock(join(dir, name), Number(port)));
    }
  }
  return locks;
}

async function readLock(path: string, port: number): Promise<ClaudeLock> {
  const unreadable = (error: string): ClaudeLock => ({
    path,
    port,
    alive: false,
    workspaceFolders: [],
    tandem: false,
    error,
  });
  let data: unknown;
  try {
    const text = await readSmallRegularFile(path);
    if (text === undefined) return unreadable('not a small regular file of this user');
    data = JSON.parse(text);
  } catch {
    return unreadable('not valid JSON');
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data)) {
    return unreadable('not a JSON object');
  }
  const lock = data as Record<string, unknown>;
  const pid = Number(lock.pid);
  const folders = Array.isArray(lock.workspaceFolders) ? lock.workspaceFolders : [];
  return {
    path,
    port,
    ...(Number.isInteger(pid) && pid > 0 && { pid }),
    alive: Number.isInteger(pid) && pid > 0 && isProcessAlive(pid),
    workspaceFolders: folders.filter((folder): folder is string => typeof folder === 'string'),
    ...(typeof lock.ideName === 'string' && { ideName: lock.ideName }),
    tandem: typeof lock.tandem === 'object' && lock.tandem !== null,
  };
}
