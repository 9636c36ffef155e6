import { realpath } from 'node:fs/promises';
import { isAbsolute, relative } from 'node:path';
import {
  CLAUDE_PORT_VARIABLE,
  claudeLockFolders,
  claudeLocks,
  claudeSettings,
  type ClaudeLock,
  type ClaudeSettings,
} from '@tandem/core';

/**
 * What Claude Code started in a folder from this terminal would do, modelled on its binary
 * (docs/clients.md, "Claude Code"): it lists the lock files of its config folder (and of
 * `~/.claude` when `CLAUDE_CONFIG_DIR` is set), deletes those it cannot read and those whose
 * `pid` is dead, counts a lock as this folder's when one of its `workspaceFolders` contains
 * the folder or its port is `CLAUDE_CODE_SSE_PORT`, and connects by itself only to the lock that
 * variable names; otherwise `--ide` connects to the folder's lock and `/ide` lists them.
 */

export interface ClaudeLockReport extends ClaudeLock {
  /** One of its folders contains this folder (real paths compared). */
  containsFolder: boolean;
  /** What the binary does with it, in words. */
  note: string;
}

export interface ClaudePrediction {
  /** A `claude` on the PATH, or its own files: the user has Claude Code. */
  installed: boolean;
  lockFolders: string[];
  locks: ClaudeLockReport[];
  /** `CLAUDE_CODE_SSE_PORT` in this environment, as set. */
  ssePort?: string;
  /** How it reaches an editor from here: by itself, with `--ide`, only by `/ide`, or not. */
  connection: 'by-itself' | 'with-ide-flag' | 'by-ide-command' | 'none';
  /** The port it connects to by itself, or with `--ide`. */
  port?: number;
  /** The ports `/ide` lists for this folder. */
  listed: number[];
  /** The lock files it deletes when it starts. */
  deletes: string[];
  /** What it would do, in one sentence. */
  choice: string;
  settings: ClaudeSettings;
}

/** Claude Code's choice of editor from `dir` with the environment `env`. */
export async function predictClaude(
  dir: string,
  env: NodeJS.ProcessEnv,
): Promise<ClaudePrediction> {
  const [locks, settings, realDir] = await Promise.all([
    claudeLocks(env),
    claudeSettings(dir, env),
    realpath(dir).catch(() => dir),
  ]);
  const ssePort = env[CLAUDE_PORT_VARIABLE];
  const wanted = ssePort === undefined ? undefined : Number(ssePort);
  const reports: ClaudeLockReport[] = [];
  for (const lock of locks) {
    const folders = await Promise.all(lock.workspaceFolders.map((f) => realpath(f).catch(() => f)));
    const containsFolder = folders.some((folder) => contains(folder, realDir));
    reports.push({ ...lock, containsFolder, note: noteOf(lock, containsFolder, wanted) });
  }
  const usable = reports.filter((lock) => lock.error === undefined && lock.alive);
  const listed = usable
    .filter((lock) => lock.containsFolder || lock.port === wanted)
    .map((lock) => lock.port);
  const named = usable.find((lock) => lock.port === wanted);
  const forFolder = usable.filter((lock) => lock.containsFolder);
  const deletes = reports
    .filter((lock) => lock.error !== undefined || !lock.alive)
    .map((l) => l.path);
  const base = {
    installed: settings.installed,
    lockFolders: claudeLockFolders(env),
    locks: reports,
    ...(ssePort !== undefined && { ssePort }),
    listed,
    deletes,
    settings,
  };
  if (named) {
    return {
      ...base,
      connection: 'by-itself',
      port: named.port,
      choice: `It connects by itself to ${named.ideName ?? 'the editor'} on port ${named.port}: ${CLAUDE_PORT_VARIABLE} names its lock file.`,
    };
  }
  const unnamed =
    ssePort === undefined
      ? `${CLAUDE_PORT_VARIABLE} is not set`
      : `${CLAUDE_PORT_VARIABLE}=${ssePort} names no live lock file`;
  const [first] = forFolder;
  if (first) {
    return {
      ...base,
      connection: forFolder.length === 1 ? 'with-ide-flag' : 'by-ide-command',
      ...(forFolder.length === 1 && { port: first.port }),
      choice:
        forFolder.length === 1
          ? `${unnamed}: it connects only when started with --ide, or after /ide, to ${first.ideName ?? 'the editor'} on port ${first.port}.`
          : `${unnamed}: /ide lists ${forFolder.length} editors for this folder (${forFolder.map((l) => `${l.ideName ?? 'an editor'} on port ${l.port}`).join(', ')}); pick one there.`,
    };
  }
  return {
    ...base,
    connection: 'none',
    choice: `${unnamed}, and no live lock file has this folder: /ide finds no editor for it.`,
  };
}

function noteOf(lock: ClaudeLock, containsFolder: boolean, wanted: number | undefined): string {
  if (lock.error !== undefined) return `deleted: it cannot read it (${lock.error})`;
  if (!lock.alive) {
    return lock.pid === undefined
      ? 'deleted: no pid'
      : `deleted: its editor (pid ${lock.pid}) is gone`;
  }
  if (lock.port === wanted) return `named by ${CLAUDE_PORT_VARIABLE}`;
  return containsFolder ? 'contains this folder' : 'does not contain this folder: not offered';
}

function contains(root: string, path: string): boolean {
  const rest = relative(root, path);
  return rest === '' || (!rest.startsWith('..') && !isAbsolute(rest));
}
