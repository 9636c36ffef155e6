import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import {
  claudeConfigDir,
  claudeIdeDir,
  isProcessAlive,
  readSmallRegularFile,
  secretMatches,
} from '@tandem/core';

/**
 * The port of the Claude Code listener of the companion whose token is `token`, from the lock
 * files Claude Code reads (`<CLAUDE_CONFIG_DIR or ~/.claude>/ide/<port>.lock`); a Tandem engine
 * writes one token into all its files. Only small regular files of this user are read, and a lock
 * whose `pid` is dead counts for nothing (Claude Code deletes it).
 */
export async function claudePortFor(
  env: NodeJS.ProcessEnv,
  token: string | undefined,
): Promise<number | undefined> {
  if (!token) return undefined;
  const dir = claudeIdeDir(claudeConfigDir(env));
  const names = await readdir(dir).catch(() => [] as string[]);
  for (const name of names) {
    const port = /^(\d+)\.lock$/.exec(name)?.[1];
    if (!port) continue;
    const lock = parse(await readSmallRegularFile(join(dir, name)));
    if (lock && secretMatches(String(lock.authToken), token) && isProcessAlive(Number(lock.pid))) {
      return Number(port);
    }
  }
  return undefined;
}

function parse(text: string | undefined): { authToken?: unknown; pid?: unknown } | undefined {
  try {
    const data: unknown = text === undefined ? undefined : JSON.parse(text);
    return typeof data === 'object' && data !== null ? data : undefined;
  } catch {
    return undefined;
  }
}
