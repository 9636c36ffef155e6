import { readdir, realpath } from 'node:fs/promises';
import { basename, delimiter, dirname, isAbsolute, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { quotingShellOf, shellQuote } from '@tandem/command';
import { claudeSettings } from '../clients/claude-settings.js';
import { cliSettings } from '../clients/cli-settings.js';
import {
  warningsFor,
  type OtherClaudeCompanion,
  type OtherEditor,
  type WarningInput,
} from '../clients/companion-warnings.js';
import {
  DISCOVERY_KINDS,
  discoveryLocations,
  type DiscoveryLocations,
} from '../clients/discovery-rules.js';
import { claudeLocks } from '../discovery/claude-locks.js';
import { isProcessAlive } from '../discovery/processes.js';
import { readSmallRegularFile } from '../discovery/safe-folder.js';
import type { CompanionWarning } from '../editor-port.js';

/**
 * The warnings of a companion, from what is on this machine: each CLI's settings files, the
 * other editors' discovery files and processes. The rules are `clients/companion-warnings.ts`.
 */

/** Every warning that applies to a companion serving `input.workspaceFolders`. */
export async function companionWarnings(input: WarningInput): Promise<CompanionWarning[]> {
  const dir = input.workspaceFolders[0];
  const locations = discoveryLocations(input.env, dir ?? process.cwd());
  const [gemini, qwen, others, claude, claudeCompanions] = await Promise.all([
    cliSettings('gemini', locations, dir ?? locations.home, input.env),
    cliSettings('qwen', locations, dir ?? locations.home, input.env),
    otherEditors(locations, input.port, input.workspaceFolders),
    claudeSettings(dir ?? locations.home, input.env),
    otherClaudeCompanions(input.env, input.workspaceFolders),
  ]);
  return warningsFor(input, {
    locations,
    settings: { gemini, qwen },
    others,
    claude,
    claudeCompanions,
  });
}

/**
 * The live Claude Code locks of other companions (Tandem's own editors are named by
 * `otherEditors`) whose folders overlap these, real paths compared.
 */
export async function otherClaudeCompanions(
  env: NodeJS.ProcessEnv,
  folders: string[],
): Promise<OtherClaudeCompanion[]> {
  const ours = await Promise.all(folders.map(realOr));
  const found: OtherClaudeCompanion[] = [];
  for (const lock of await claudeLocks(env)) {
    if (lock.tandem || !lock.alive || lock.pid === undefined) continue;
    const theirs = await Promise.all(lock.workspaceFolders.map(realOr));
    if (theirs.some((a) => ours.some((b) => contains(a, b) || contains(b, a)))) {
      found.push({
        port: lock.port,
        pid: lock.pid,
        ideName: lock.ideName ?? 'an editor',
        folders: lock.workspaceFolders,
      });
    }
  }
  return found;
}

/**
 * The other live companions whose folders overlap these: one contains the other, real paths
 * compared, as the CLIs do. Read from the Gemini CLI files and Qwen Code locks (a lock's `ppid`
 * is the editor's own PID).
 */
export async function otherEditors(
  locations: DiscoveryLocations,
  ownPort: number,
  folders: string[],
): Promise<OtherEditor[]> {
  const ours = await Promise.all(folders.map(realOr));
  const byPort = new Map<number, OtherEditor & { alive: boolean }>();
  const read = async (dir: string, kind: 'gemini' | 'qwen-lock') => {
    const names = await readdir(dir).catch(() => [] as string[]);
    for (const name of names) {
      const match = DISCOVERY_KINDS[kind].pattern.exec(name);
      if (!match) continue;
      const data = await readJson(join(dir, name));
      const port = Number(data?.port);
      if (!data || !Number.isInteger(port) || port === ownPort) continue;
      const pid =
        kind === 'qwen-lock' ? Number(data.ppid) : DISCOVERY_KINDS.gemini.numbers(match).pid;
      const alive = pid !== undefined && Number.isInteger(pid) && isProcessAlive(pid);
      const ideInfo = data.ideInfo as { displayName?: unknown } | undefined;
      const known = byPort.get(port);
      byPort.set(port, {
        port,
        // The lock's ppid is the editor itself: it wins over the Gemini file's name.
        pid: kind === 'qwen-lock' && alive ? pid : (known?.pid ?? (alive ? pid : undefined)),
        displayName:
          typeof ideInfo?.displayName === 'string'
            ? ideInfo.displayName
            : (known?.displayName ?? 'an editor'),
        folders: known?.folders.length ? known.folders : workspaceFolders(data.workspacePath),
        alive: alive || (known?.alive ?? false),
      });
    }
  };
  await read(locations.geminiIdeDir, 'gemini');
  await read(locations.qwenIdeDir, 'qwen-lock');
  const overlapping: OtherEditor[] = [];
  for (const { alive, ...other } of byPort.values()) {
    if (!alive) continue;
    const theirs = await Promise.all(other.folders.map(realOr));
    if (theirs.some((a) => ours.some((b) => contains(a, b) || contains(b, a)))) {
      overlapping.push(other);
    }
  }
  return overlapping.sort((a, b) => a.port - b.port);
}

function workspaceFolders(value: unknown): string[] {
  if (typeof value !== 'string' || value === '') return [];
  let roots: unknown = value.split(delimiter);
  if (value.startsWith('[')) {
    try {
      roots = JSON.parse(value);
    } catch {
      // Not an array after all: the delimited form.
    }
  }
  return (Array.isArray(roots) ? roots : [])
    .filter((root): root is string => typeof root === 'string' && root !== '')
    .map((root) => (root.startsWith('file://') ? fileURLToPath(root) : root));
}

async function readJson(path: string): Promise<Record<string, unknown> | undefined> {
  try {
    const text = await readSmallRegularFile(path);
    const data: unknown = JSON.parse(text ?? '');
    return typeof data === 'object' && data !== null && !Array.isArray(data)
      ? (data as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

function realOr(path: string): Promise<string> {
  return realpath(path).catch(() => path);
}

function contains(root: string, path: string): boolean {
  const rest = relative(root, path);
  return rest === '' || (!rest.startsWith('..') && !isAbsolute(rest));
}

/**
 * How the user runs Tandem, for the commands the fixes print: `tandem` when the `tandem` on
 * PATH is this one, else `node <this script>`. The `node_modules/.bin` folders that npm puts
 * first on the PATH of a script it runs (`npm run demo`) are not on the user's own PATH.
 */
export async function tandemCommandFor(
  script: string | undefined,
  env: NodeJS.ProcessEnv,
): Promise<string> {
  // Run as anything but Tandem's own script (a test, say), the user's command is `tandem`.
  if (!script || !/^tandem(\.js)?$/.test(basename(script))) return 'tandem';
  // Every folder of the PATH is looked in at once; the first that has a `tandem` is the one.
  const runByNpm = env.npm_lifecycle_event !== undefined;
  const onPath = Promise.all(
    (env.PATH ?? '')
      .split(delimiter)
      .filter((dir) => dir !== '' && !(runByNpm && isNpmBinFolder(dir)))
      .map((dir) => realpath(join(dir, 'tandem')).catch(() => undefined)),
  ).then((found) => found.find((path) => path !== undefined));
  const self = await realOr(script);
  const first = await onPath;
  // bin/tandem.js runs dist/tandem.js: either one is this Tandem.
  return first === self || (first && join(first, '..', '..', 'dist', 'tandem.js') === self)
    ? 'tandem'
    : `node ${shellQuote(self, quotingShellOf(env))}`;
}

function isNpmBinFolder(dir: string): boolean {
  return basename(dir) === '.bin' && basename(dirname(dir)) === 'node_modules';
}

/**
 * The warnings of one running companion, kept current: computed when it starts, then again when
 * its folders change or a CLI comes or goes (another editor may have started meanwhile).
 * `changed` hears every later change, never the first list (a frontend reads that one at start).
 */
export class CompanionWarnings {
  private current: CompanionWarning[] = [];
  private started = false;
  private queue: Promise<void> = Promise.resolve();

  constructor(
    private readonly input: () => WarningInput,
    private readonly changed: (warnings: CompanionWarning[]) => void,
  ) {}

  get list(): CompanionWarning[] {
    return this.current;
  }

  /** Resolves once the list is recomputed (one computation at a time, in order). */
  refresh(): Promise<void> {
    this.queue = this.queue.then(async () => {
      const next = await companionWarnings(this.input()).catch(() => this.current);
      const differs = JSON.stringify(next) !== JSON.stringify(this.current);
      this.current = next;
      if (differs && this.started) this.changed(next);
      this.started = true;
    });
    return this.queue;
  }
}
