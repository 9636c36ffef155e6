import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { DiscoveryLocations } from './discovery-rules.js';
import { installedCliVersion, isOlderVersion } from './installed-cli.js';

/**
 * What each CLI's settings decide for a companion (docs/clients.md, "Discovery"): whether it looks for an
 * editor at all (IDE mode), and whether it shows a proposed edit before writing it (the approval
 * mode: only a CLI that asks opens a diff in the editor).
 */

export type CliKind = 'gemini' | 'qwen';

export const CLI_DISPLAY_NAMES: Record<CliKind, string> = {
  gemini: 'Gemini CLI',
  qwen: 'Qwen Code',
};

/** One settings file a CLI reads, lowest precedence first. */
export interface SettingsLayer {
  scope: 'system defaults' | 'user' | 'workspace' | 'system';
  path: string;
  /** `ide.enabled` there (Qwen Code also reads the older top-level `ideMode`). */
  ideEnabled?: boolean;
  /** The approval mode set there, as the CLI reads it. */
  approvalMode?: string;
  /** Why the file could not be used. */
  error?: string;
}

export interface IdeModeSetting {
  /** IDE mode as the CLI starts: off unless a settings file turns it on. */
  enabled: boolean;
  /** The file that decides, when one does. */
  decidedBy?: SettingsLayer;
  layers: SettingsLayer[];
}

/**
 * IDE mode (`ide.enabled`) as each CLI reads it from its settings: system defaults, then the
 * user's file, then the folder's (only when the folder is trusted), then system-wide settings,
 * the last that sets it winning. Files may hold comments.
 */
export async function ideModeSetting(
  client: CliKind,
  locations: DiscoveryLocations,
  dir: string,
  env: NodeJS.ProcessEnv,
): Promise<IdeModeSetting> {
  return (await cliSettings(client, locations, dir, env)).ideMode;
}

export interface ApprovalModeSetting {
  /** The mode the CLI starts in (a command-line flag may still change it). */
  mode: string;
  /** Only a CLI that asks before each edit opens it as a diff in the editor. */
  showsDiffs: boolean;
  /** The file that decides; none when it is the CLI's default. */
  decidedBy?: SettingsLayer;
  /** The version of the CLI on the PATH, whose default it is (when no file decides). */
  version?: string;
}

/**
 * The approval mode each CLI starts in, when no flag sets it: Gemini CLI's
 * `general.defaultApprovalMode` (default `default`; `yolo` is refused there), Qwen Code's
 * `tools.approvalMode` (default `auto`, which writes edits without asking, since 0.21; `default`
 * in 0.15.10, the newest release for Node 20). Only `default` asks, and the diff is shown at that
 * question. `defaultMode` takes the version on the PATH, when it is known (else the newest's).
 */
export const APPROVAL_MODE_RULES: Record<
  CliKind,
  {
    setting: string;
    defaultMode(version: string | undefined): string;
    read(settings: Record<string, unknown>): unknown;
  }
> = {
  gemini: {
    setting: 'general.defaultApprovalMode',
    defaultMode: () => 'default',
    read: (settings) => {
      const value = isObject(settings.general) ? settings.general.defaultApprovalMode : undefined;
      return value === 'yolo' ? undefined : value;
    },
  },
  qwen: {
    setting: 'tools.approvalMode',
    defaultMode: (version) =>
      version !== undefined && isOlderVersion(version, QWEN_AUTO_DEFAULT_SINCE)
        ? 'default'
        : 'auto',
    read: (settings) => {
      const value = isObject(settings.tools) ? settings.tools.approvalMode : undefined;
      if (typeof value !== 'string') return undefined;
      const mode = value.trim().toLowerCase().replaceAll('_', '-');
      return mode === 'autoedit' ? 'auto-edit' : mode;
    },
  },
};

/** The first Qwen Code release that starts in approval mode `auto`. */
const QWEN_AUTO_DEFAULT_SINCE = '0.21.0';

/** Where the approval mode comes from, for people: the file, or whose default it is. */
export function approvalModeOrigin(client: CliKind, setting: ApprovalModeSetting): string {
  if (setting.decidedBy) return `set in ${setting.decidedBy.path}`;
  if (setting.version) return `the default of ${CLI_DISPLAY_NAMES[client]} ${setting.version}`;
  return client === 'qwen' ? `its default since ${QWEN_AUTO_DEFAULT_SINCE}` : 'its default';
}

/** The approval mode that shows diffs. */
export const DIFF_APPROVAL_MODE = 'default';

export interface CliSettings {
  ideMode: IdeModeSetting;
  approvalMode: ApprovalModeSetting;
}

/** IDE mode and approval mode of `client` started in `dir`, from every settings file it reads. */
export async function cliSettings(
  client: CliKind,
  locations: DiscoveryLocations,
  dir: string,
  env: NodeJS.ProcessEnv,
): Promise<CliSettings> {
  const paths = settingsPaths(client, locations, dir, env);
  const [layers, version] = await Promise.all([
    Promise.all(paths.map(([scope, path]) => readLayer(client, scope, path))),
    installedCliVersion(client, env),
  ]);
  const last = [...layers].reverse();
  const ideBy = last.find((layer) => layer.ideEnabled !== undefined);
  const modeBy = last.find((layer) => layer.approvalMode !== undefined);
  const mode = modeBy?.approvalMode ?? APPROVAL_MODE_RULES[client].defaultMode(version);
  return {
    ideMode: { enabled: ideBy?.ideEnabled ?? false, ...(ideBy && { decidedBy: ideBy }), layers },
    approvalMode: {
      mode,
      showsDiffs: mode === DIFF_APPROVAL_MODE,
      ...(modeBy ? { decidedBy: modeBy } : version !== undefined && { version }),
    },
  };
}

function settingsPaths(
  client: CliKind,
  locations: DiscoveryLocations,
  dir: string,
  env: NodeJS.ProcessEnv,
): [SettingsLayer['scope'], string][] {
  const system =
    client === 'gemini'
      ? env.GEMINI_CLI_SYSTEM_SETTINGS_PATH || systemPath('gemini-cli', 'GeminiCli')
      : env.QWEN_CODE_SYSTEM_SETTINGS_PATH || systemPath('qwen-code', 'QwenCode');
  const defaults =
    (client === 'gemini'
      ? env.GEMINI_CLI_SYSTEM_DEFAULTS_PATH
      : env.QWEN_CODE_SYSTEM_DEFAULTS_PATH) || join(dirname(system), 'system-defaults.json');
  const user =
    client === 'gemini'
      ? join(locations.geminiHome, '.gemini', 'settings.json')
      : join(locations.qwenHome, 'settings.json');
  const workspace = join(dir, client === 'gemini' ? '.gemini' : '.qwen', 'settings.json');
  const layers: [SettingsLayer['scope'], string][] = [
    ['system defaults', defaults],
    ['user', user],
  ];
  // A folder's settings are the user's own when the folder is the home directory.
  if (workspace !== user) layers.push(['workspace', workspace]);
  layers.push(['system', system]);
  return layers;
}

function systemPath(linuxName: string, macName: string): string {
  return process.platform === 'darwin'
    ? `/Library/Application Support/${macName}/settings.json`
    : `/etc/${linuxName}/settings.json`;
}

async function readLayer(
  client: CliKind,
  scope: SettingsLayer['scope'],
  path: string,
): Promise<SettingsLayer> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === 'ENOENT' ? { scope, path } : { scope, path, error: `cannot be read (${code})` };
  }
  let settings: unknown;
  try {
    settings = JSON.parse(stripJsonComments(text));
  } catch {
    return { scope, path, error: 'is not valid JSON' };
  }
  if (!isObject(settings)) return { scope, path, error: 'is not a JSON object' };
  const ide = isObject(settings.ide) ? settings.ide : undefined;
  const value = ide?.enabled ?? (client === 'qwen' ? settings.ideMode : undefined);
  const mode = APPROVAL_MODE_RULES[client].read(settings);
  return {
    scope,
    path,
    ...(typeof value === 'boolean' && { ideEnabled: value }),
    ...(typeof mode === 'string' && mode !== '' && { approvalMode: mode }),
  };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Blanks out `//` and `/* *\/` comments outside strings, keeping everything else in place. */
export function stripJsonComments(text: string): string {
  let out = '';
  let i = 0;
  while (i < text.length) {
    const char = text[i] as string;
    if (char === '"') {
      const end = endOfString(text, i);
      out += text.slice(i, end);
      i = end;
    } else if (text.startsWith('//', i)) {
      const end = text.indexOf('\n', i);
      i = end === -1 ? text.length : end;
    } else if (text.startsWith('/*', i)) {
      const end = text.indexOf('*/', i + 2);
      i = end === -1 ? text.length : end + 2;
      out += ' ';
    } else {
      out += char;
      i++;
    }
  }
  return out;
}

function endOfString(text: string, start: number): number {
  let i = start + 1;
  while (i < text.length && text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
  return Math.min(i + 1, text.length);
}
