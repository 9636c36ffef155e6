import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { isObject } from '../scan/discovery-files.js';
import type { DiscoveryLocations } from '@tandem/core';
import type { ClientKind } from './prediction.js';

/** One settings file a CLI reads, lowest precedence first. */
export interface SettingsLayer {
  scope: 'system defaults' | 'user' | 'workspace' | 'system';
  path: string;
  /** `ide.enabled` there (Qwen Code also reads the older top-level `ideMode`). */
  ideEnabled?: boolean;
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
  client: ClientKind,
  locations: DiscoveryLocations,
  dir: string,
  env: NodeJS.ProcessEnv,
): Promise<IdeModeSetting> {
  const paths = settingsPaths(client, locations, dir, env);
  const layers = await Promise.all(paths.map(([scope, path]) => readLayer(client, scope, path)));
  const decidedBy = [...layers].reverse().find((layer) => layer.ideEnabled !== undefined);
  return { enabled: decidedBy?.ideEnabled ?? false, ...(decidedBy && { decidedBy }), layers };
}

function settingsPaths(
  client: ClientKind,
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
  client: ClientKind,
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
  return typeof value === 'boolean' ? { scope, path, ideEnabled: value } : { scope, path };
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
