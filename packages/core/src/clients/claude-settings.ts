import { access, readdir, readFile } from 'node:fs/promises';
import { delimiter, join } from 'node:path';
import { claudeConfigDir } from './claude-rules.js';
import { installedCliVersion, isOlderVersion } from './installed-cli.js';

/**
 * What Claude Code's settings decide for a companion (docs/clients.md, "Claude Code"): whether
 * a proposed edit reaches the editor at all. It opens `openDiff` only for an edit the user must
 * approve, so only the permission modes that ask show a diff; and `diffTool: "terminal"` in its
 * own state file keeps every diff in its terminal.
 */

/** One settings file Claude Code reads for `permissions.defaultMode`, lowest precedence first. */
export interface ClaudeSettingsLayer {
  scope: 'user' | 'project' | 'local';
  path: string;
  defaultMode?: string;
  error?: string;
}

export interface ClaudeSettings {
  /** Whether the user has Claude Code: a `claude` on the PATH, or its own files. */
  installed: boolean;
  /** The permission mode it starts in, when no `--permission-mode` is given. */
  mode: string;
  /** Only a mode that asks before an edit opens it as a diff in the editor. */
  showsDiffs: boolean;
  /** The file that decides; none when it is the default. */
  decidedBy?: ClaudeSettingsLayer;
  /** The version on the PATH whose default it is (when no file decides and it is known). */
  version?: string;
  /** The user settings file, where the fix goes. */
  userFile: string;
  /** Its state file (`.claude.json`) when it sets `diffTool: "terminal"`. */
  terminalDiffTool?: string;
}

/**
 * The modes that ask before writing an edit (`manual` is the binary's alias of `default`; `plan`
 * writes nothing, and asks when it leaves plan mode). `acceptEdits`, `auto`, `dontAsk` and
 * `bypassPermissions` write without `openDiff`.
 */
const ASKING_MODES = new Set(['default', 'manual', 'plan']);

/**
 * The first release seen to start in a mode that writes without asking: 2.1.332 (its code
 * announces "auto mode is now the default"; 2.1.110's has no such string and asks).
 */
const WRITES_BY_DEFAULT_SINCE = '2.1.332';
const DEFAULT_MODE_OF_NEWEST = 'auto';

/** Claude Code's permission mode and diff tool when started in `dir`. */
export async function claudeSettings(dir: string, env: NodeJS.ProcessEnv): Promise<ClaudeSettings> {
  const configDir = claudeConfigDir(env);
  const userFile = join(configDir, 'settings.json');
  const paths: [ClaudeSettingsLayer['scope'], string][] = [
    ['user', userFile],
    ['project', join(dir, '.claude', 'settings.json')],
    ['local', join(dir, '.claude', 'settings.local.json')],
  ];
  const [layers, version, installed, state] = await Promise.all([
    Promise.all(paths.map(([scope, path]) => readLayer(scope, path))),
    installedCliVersion('claude', env),
    isClaudeInstalled(configDir, env),
    readJsonObject(claudeStateFile(env)),
  ]);
  // A folder's own settings may not choose `auto` (the binary ignores it there).
  const decidedBy = [...layers]
    .reverse()
    .find(
      (layer) =>
        layer.defaultMode !== undefined &&
        !(layer.scope !== 'user' && layer.defaultMode === 'auto'),
    );
  const mode =
    decidedBy?.defaultMode ??
    (version !== undefined && isOlderVersion(version, WRITES_BY_DEFAULT_SINCE)
      ? 'default'
      : DEFAULT_MODE_OF_NEWEST);
  return {
    installed,
    mode,
    showsDiffs: ASKING_MODES.has(mode),
    ...(decidedBy ? { decidedBy } : version !== undefined && { version }),
    userFile,
    ...(state.value?.diffTool === 'terminal' && { terminalDiffTool: claudeStateFile(env) }),
  };
}

/** Its state file: `.claude.json` in `$CLAUDE_CONFIG_DIR`, else in the home folder. */
export function claudeStateFile(env: NodeJS.ProcessEnv): string {
  return env.CLAUDE_CONFIG_DIR
    ? join(env.CLAUDE_CONFIG_DIR, '.claude.json')
    : join(claudeConfigDir(env), '..', '.claude.json');
}

/**
 * A `claude` on the PATH, its state file, or its config folder holding more than the `ide`
 * folder (which Tandem itself makes, to write its lock there).
 */
async function isClaudeInstalled(configDir: string, env: NodeJS.ProcessEnv): Promise<boolean> {
  const exists = (path: string) =>
    access(path).then(
      () => true,
      () => false,
    );
  const onPath = (env.PATH ?? '')
    .split(delimiter)
    .filter(Boolean)
    .map((dir) => exists(join(dir, 'claude')));
  const configured = readdir(configDir).then(
    (names) => names.some((name) => name !== 'ide'),
    () => false,
  );
  const found = await Promise.all([...onPath, exists(claudeStateFile(env)), configured]);
  return found.includes(true);
}

async function readLayer(
  scope: ClaudeSettingsLayer['scope'],
  path: string,
): Promise<ClaudeSettingsLayer> {
  const { value, error } = await readJsonObject(path);
  if (error) return { scope, path, error };
  const permissions = value?.permissions;
  const mode =
    typeof permissions === 'object' && permissions !== null
      ? (permissions as Record<string, unknown>).defaultMode
      : undefined;
  return { scope, path, ...(typeof mode === 'string' && mode !== '' && { defaultMode: mode }) };
}

async function readJsonObject(
  path: string,
): Promise<{ value?: Record<string, unknown>; error?: string }> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === 'ENOENT' ? {} : { error: `cannot be read (${code})` };
  }
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? { value: value as Record<string, unknown> }
      : { error: 'is not a JSON object' };
  } catch {
    return { error: 'is not valid JSON' };
  }
}
