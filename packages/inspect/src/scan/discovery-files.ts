import { constants } from 'node:fs';
import { lstat, open, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import {
  DISCOVERY_KINDS,
  MAX_DISCOVERY_FILE_BYTES,
  type DiscoveryKind,
  type DiscoveryLocations,
} from '@tandem/core';

export interface DiscoveryFile {
  path: string;
  kind: DiscoveryKind;
  /** The file name's PID (`gemini`, `gemini-pid`, `qwen-legacy`). */
  namePid?: number;
  /** The file name's port (`gemini`, `qwen-lock`, `qwen-legacy`). */
  namePort?: number;
  mtimeMs: number;
  /** Whether the file's owner is the current user (Gemini CLI ignores other users' files). */
  ownedByUser: boolean;
  /** The parsed JSON, whatever it is; undefined when the file is not JSON. */
  content?: unknown;
  /** Why the file could not be read or parsed. */
  error?: string;
}

/**
 * Every discovery file in every place a CLI looks: by kind, then in the order `readdir` lists
 * them — the order the CLIs read them in, which breaks ties in Gemini CLI's choice.
 */
export async function scanDiscoveryFiles(locations: DiscoveryLocations): Promise<DiscoveryFile[]> {
  const found: DiscoveryFile[] = [];
  const listings = new Map<string, string[]>();
  for (const [kind, rule] of Object.entries(DISCOVERY_KINDS) as [
    DiscoveryKind,
    typeof DISCOVERY_KINDS.gemini,
  ][]) {
    const dir = locations[rule.dir];
    if (!listings.has(dir)) listings.set(dir, await readdir(dir).catch(() => []));
    for (const name of listings.get(dir) ?? []) {
      const match = rule.pattern.exec(name);
      if (!match) continue;
      const { pid, port } = rule.numbers(match);
      const numbers = {
        ...(pid === undefined ? {} : { namePid: pid }),
        ...(port === undefined ? {} : { namePort: port }),
      };
      found.push(await readDiscoveryFile(join(dir, name), kind, numbers));
    }
  }
  return found;
}

async function readDiscoveryFile(
  path: string,
  kind: DiscoveryKind,
  fields: Pick<DiscoveryFile, 'namePid' | 'namePort'>,
): Promise<DiscoveryFile> {
  const file: DiscoveryFile = { path, kind, ...fields, mtimeMs: 0, ownedByUser: false };
  let text: string;
  try {
    // Anyone may put anything in a shared folder: a FIFO would block a read forever and a link
    // to /dev/zero never end, so only a small regular file is opened, without waiting.
    const info = await lstat(path);
    file.mtimeMs = info.mtimeMs;
    file.ownedByUser = process.getuid === undefined || info.uid === process.getuid();
    if (!info.isFile()) return { ...file, error: 'is not a regular file (a link, FIFO or device)' };
    if (info.size > MAX_DISCOVERY_FILE_BYTES) {
      return { ...file, error: `is larger than ${MAX_DISCOVERY_FILE_BYTES} bytes` };
    }
    const handle = await open(
      path,
      constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW,
    );
    try {
      const buffer = Buffer.alloc(MAX_DISCOVERY_FILE_BYTES + 1);
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
      if (bytesRead > MAX_DISCOVERY_FILE_BYTES) {
        return { ...file, error: `is larger than ${MAX_DISCOVERY_FILE_BYTES} bytes` };
      }
      text = buffer.toString('utf8', 0, bytesRead);
    } finally {
      await handle.close();
    }
  } catch (error) {
    return { ...file, error: `cannot be read (${(error as NodeJS.ErrnoException).code ?? error})` };
  }
  try {
    return { ...file, content: JSON.parse(text) as unknown };
  } catch {
    return { ...file, error: 'is not valid JSON' };
  }
}

/** The fields a companion writes, read leniently for display and for choosing a companion. */
export interface DiscoveryFields {
  port?: number;
  /** The raw `workspacePath` when it is a string. */
  workspacePath?: string;
  authToken?: string;
  ideInfo?: { name: string; displayName: string };
  ppid?: number;
  /** The writer's PID when the file carries Tandem's mark. */
  tandemPid?: number;
}

export function fieldsOf(file: DiscoveryFile): DiscoveryFields {
  const data = isObject(file.content) ? file.content : {};
  const fields: DiscoveryFields = {};
  const port = Number(data.port);
  if (Number.isInteger(port) && port > 0 && port <= 65535) fields.port = port;
  if (typeof data.workspacePath === 'string') fields.workspacePath = data.workspacePath;
  if (typeof data.authToken === 'string' && data.authToken !== '')
    fields.authToken = data.authToken;
  const ideInfo = isObject(data.ideInfo) ? data.ideInfo : undefined;
  if (typeof ideInfo?.name === 'string' && typeof ideInfo.displayName === 'string') {
    fields.ideInfo = { name: ideInfo.name, displayName: ideInfo.displayName };
  }
  if (Number.isInteger(data.ppid)) fields.ppid = data.ppid as number;
  const tandem = isObject(data.tandem) ? data.tandem : undefined;
  if (Number.isInteger(tandem?.pid)) fields.tandemPid = tandem?.pid as number;
  return fields;
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
