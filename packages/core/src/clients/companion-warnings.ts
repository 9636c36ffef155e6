import { readdir, realpath } from 'node:fs/promises';
import { basename, delimiter, isAbsolute, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readSmallRegularFile } from '../discovery/safe-folder.js';
import { isProcessAlive } from '../discovery/processes.js';
import { cliSettings, APPROVAL_MODE_RULES, type CliKind } from './cli-settings.js';
import { CONTAINER_LOOPBACK_VARIABLE, geminiHost, type ContainerFacts } from './container-rules.js';
import { DISCOVERY_KINDS, discoveryLocations, type DiscoveryLocations } from './discovery-rules.js';
import { quotingShellOf, shellQuote } from '@tandem/command';

/**
 * The facts a user must know before a CLI silently does not do what they expect, computed once
 * for every frontend (the bridge's `initialize` reply and `warnings` notification, the page and
 * the start-up message of `tandem serve`, `tandem doctor`):
 * - `ide-mode-off`: the CLI never looks for an editor;
 * - `no-diffs`: its approval mode writes edits without asking, so no diff reaches the editor;
 * - `container`: Gemini CLI dials `host.docker.internal` from a terminal this editor did not open;
 * - `shared-folder`: another editor serves the same folder, and a CLI may pick either.
 */
export type WarningCode = 'ide-mode-off' | 'no-diffs' | 'container' | 'shared-folder';

export interface CompanionWarning {
  code: WarningCode;
  /** The CLI concerned; absent when it concerns both. */
  cli?: CliKind;
  /** What goes wrong, in one or two sentences. */
  message: string;
  /** What to do about it. */
  fix: string;
}

export const CLI_DISPLAY_NAMES: Record<CliKind, string> = {
  gemini: 'Gemini CLI',
  qwen: 'Qwen Code',
};

/** Another live companion, as its discovery files name it. */
export interface OtherEditor {
  port: number;
  /** Its editor's PID (a Qwen Code lock's `ppid`), else the PID its Gemini file is named after. */
  pid?: number;
  displayName: string;
  folders: string[];
}

export interface WarningInput {
  /** The environment of the CLIs' terminals (the editor's own). */
  env: NodeJS.ProcessEnv;
  workspaceFolders: string[];
  /** This companion's port, so that it does not warn about itself. */
  port: number;
  container: ContainerFacts;
  /** How the user runs Tandem, for the fixes (`tandem`, or `node …/tandem.js`). */
  tandem: string;
  /** Whether the editor opens terminals that get `terminalEnv()` (false for `tandem serve`). */
  ownTerminals: boolean;
  /** Whether the editor shows diffs: an approval mode only matters when it does. */
  showsDiffs: boolean;
}

/** Every warning that applies to a companion serving `workspaceFolders`. */
export async function companionWarnings(input: WarningInput): Promise<CompanionWarning[]> {
  const dir = input.workspaceFolders[0];
  const locations = discoveryLocations(input.env, dir ?? process.cwd());
  const settings = await Promise.all(
    (['gemini', 'qwen'] as const).map(async (cli) =>
      settingsWarnings(cli, locations, dir ?? locations.home, input),
    ),
  );
  const others = await otherEditors(locations, input.port, input.workspaceFolders);
  return [
    ...settings.flat(),
    ...containerWarnings(input),
    ...others.map((other) => sharedFolderWarning(other, input)),
  ];
}

async function settingsWarnings(
  cli: CliKind,
  locations: DiscoveryLocations,
  dir: string,
  input: WarningInput,
): Promise<CompanionWarning[]> {
  const { ideMode, approvalMode } = await cliSettings(cli, locations, dir, input.env);
  const name = CLI_DISPLAY_NAMES[cli];
  const warnings: CompanionWarning[] = [];
  if (!ideMode.enabled) {
    const userFile = ideMode.layers.find((layer) => layer.scope === 'user')?.path;
    warnings.push({
      code: 'ide-mode-off',
      cli,
      message: `IDE mode is off in ${name}: it will not connect to this editor.`,
      fix:
        `Type /ide enable in ${name}. If it asks to install an extension for this editor, ` +
        `answer No (there is nothing to install) and type /ide enable. ` +
        `Or set {"ide": {"enabled": true}} in ${userFile}.`,
    });
  }
  if (input.showsDiffs && !approvalMode.showsDiffs) {
    const rule = APPROVAL_MODE_RULES[cli];
    const where = approvalMode.decidedBy ? `set in ${approvalMode.decidedBy.path}` : `its default`;
    const userFile =
      cli === 'gemini'
        ? join(locations.geminiHome, '.gemini', 'settings.json')
        : join(locations.qwenHome, 'settings.json');
    const [section, key] = rule.setting.split('.') as [string, string];
    warnings.push({
      code: 'no-diffs',
      cli,
      message:
        `${name} starts in approval mode "${approvalMode.mode}" (${where}): it writes edits ` +
        `without asking, so no diff is ever shown in the editor, though it says "Connected".`,
      fix:
        (cli === 'qwen'
          ? `Type /approval-mode default in Qwen Code, or set `
          : `Start it with --approval-mode default, or set `) +
        `{"${section}": {"${key}": "default"}} in ${userFile}.`,
    });
  }
  return warnings;
}

function containerWarnings(input: WarningInput): CompanionWarning[] {
  if (geminiHost(input.container) !== 'host.docker.internal') return [];
  const env = envLine(input.tandem, input.env);
  return [
    {
      code: 'container',
      cli: 'gemini',
      message:
        `This runs in a container (${input.container.marker}): Gemini CLI started in a terminal ` +
        (input.ownTerminals ? `this editor did not open ` : ``) +
        `dials host.docker.internal instead of 127.0.0.1 and fails ("Failed to connect").`,
      fix:
        `In a terminal of this container, run ${env} (or export ${CONTAINER_LOOPBACK_VARIABLE}=true) ` +
        `before starting gemini` +
        (input.ownTerminals ? `; the editor's own terminals have it already.` : `.`) +
        ` A CLI outside the container cannot reach this editor.`,
    },
  ];
}

function sharedFolderWarning(other: OtherEditor, input: WarningInput): CompanionWarning {
  const pid = other.pid === undefined ? '' : `PID ${other.pid}, `;
  return {
    code: 'shared-folder',
    message:
      `Another editor serves this folder too: ${other.displayName} (${pid}port ${other.port}, ` +
      `folder ${other.folders.join(', ') || '(none)'}). A CLI started outside this editor's ` +
      `terminals may connect to either.`,
    fix:
      `In that terminal run ${envLine(input.tandem, input.env, ` --port ${input.port}`)} before the CLI, ` +
      `or close the other editor's companion.`,
  };
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
 * PATH is this one, else `node <this script>`.
 */
export async function tandemCommandFor(
  script: string | undefined,
  env: NodeJS.ProcessEnv,
): Promise<string> {
  // Run as anything but Tandem's own script (a test, say), the user's command is `tandem`.
  if (!script || !/^tandem(\.js)?$/.test(basename(script))) return 'tandem';
  const self = await realOr(script);
  const node = `node ${shellQuote(self, quotingShellOf(env))}`;
  for (const dir of (env.PATH ?? '').split(delimiter).filter(Boolean)) {
    const onPath = await realpath(join(dir, 'tandem')).catch(() => undefined);
    if (onPath === undefined) continue;
    // bin/tandem.js runs dist/tandem.js: either one is this Tandem.
    return onPath === self || join(onPath, '..', '..', 'dist', 'tandem.js') === self
      ? 'tandem'
      : node;
  }
  return node;
}

/** The line that runs `tandem env ARGS` in the user's shell (`$SHELL` of `env`). */
function envLine(tandem: string, env: NodeJS.ProcessEnv, args = ''): string {
  return quotingShellOf(env) === 'fish'
    ? `${tandem} env${args} --shell fish | source`
    : `eval "$(${tandem} env${args})"`;
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
