import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { cliBaseEnv, commandShellLine } from './cli-launch.js';
import { FakeAnthropicModel, type AnthropicScript } from './fake-anthropic-model.js';
import { clientModulePath } from './installed-clients.js';
import { TmuxPane } from './tmux.js';

/**
 * The Claude Code binaries the tests run: the platform package, one self-contained executable,
 * installed under npm aliases by `npm run setup:clients` (packages/testkit/clients/package.json).
 */
export const CLAUDE_CODE_VERSIONS = {
  newest: { alias: 'claude-code-newest', version: '2.1.332' },
  oldest: { alias: 'claude-code-oldest', version: '2.1.110' },
} as const;

export type ClaudeCodeVersion = keyof typeof CLAUDE_CODE_VERSIONS;

/** The versions a test runs: `TANDEM_CLAUDE=newest|oldest`, else both. */
export function claudeCodeVersions(): ClaudeCodeVersion[] {
  const chosen = process.env.TANDEM_CLAUDE;
  return chosen === 'newest' || chosen === 'oldest' ? [chosen] : ['newest', 'oldest'];
}

/** The executable of a version. */
export function claudeCodeBinary(version: ClaudeCodeVersion): string {
  const manifest = clientModulePath(`${CLAUDE_CODE_VERSIONS[version].alias}/package.json`);
  return path.join(path.dirname(manifest), 'claude');
}

/** Why `version` cannot run here (an empty list when it can): for `missing`. */
export function claudeCodeMissing(version: ClaudeCodeVersion): string[] {
  try {
    return existsSync(claudeCodeBinary(version)) ? [] : [`Claude Code ${version} is not installed`];
  } catch (error) {
    return [(error as Error).message];
  }
}

/** The fake API key; Claude Code approves a key by its last 20 characters. */
const API_KEY = 'sk-ant-fake-key-for-tandem-tests-0123456789';

export interface ClaudeCodeOptions {
  version: ClaudeCodeVersion;
  /** The workspace: Claude Code's working directory, trusted in its configuration. */
  cwd: string;
  /** A private folder: HOME, TMPDIR and the tmux server go under it. */
  dir: string;
  /** `CLAUDE_CONFIG_DIR`: where the companion's lock file is, and Claude Code's own state. */
  claudeConfigDir: string;
  /** The port of the companion to connect to (`CLAUDE_CODE_SSE_PORT`). */
  ssePort: number;
  script: AnthropicScript;
  /** `--permission-mode` (default `default`); `null` starts it without, as a user does. */
  permissionMode?: string | null;
}

/** Claude Code in a tmux pane, offline, against a fake Messages API. */
export interface ClaudeCodeRun {
  pane: TmuxPane;
  model: FakeAnthropicModel;
  /** Ends Claude Code, its tmux server and the fake model; safe to call twice. */
  stop(): Promise<void>;
}

/**
 * Seeds Claude Code's state in `claudeConfigDir`: onboarding done, the fake key approved, `cwd`
 * trusted, so no first-run screen comes.
 */
export async function seedClaudeCode(
  version: ClaudeCodeVersion,
  claudeConfigDir: string,
  cwd: string,
): Promise<void> {
  await mkdir(claudeConfigDir, { recursive: true });
  const config = {
    hasCompletedOnboarding: true,
    lastOnboardingVersion: CLAUDE_CODE_VERSIONS[version].version,
    theme: 'dark',
    customApiKeyResponses: { approved: [API_KEY.slice(-20)], rejected: [] },
    projects: { [cwd]: { hasTrustDialogAccepted: true, allowedTools: [] } },
  };
  await writeFile(path.join(claudeConfigDir, '.claude.json'), JSON.stringify(config));
}

/**
 * What keeps Claude Code offline: its state in `claudeConfigDir`, the model at `modelUrl`, and
 * telemetry, error reports, updates and the marketplace off.
 */
export function offlineClaudeEnv(
  claudeConfigDir: string,
  modelUrl: string,
): Record<string, string> {
  return {
    CLAUDE_CONFIG_DIR: claudeConfigDir,
    ANTHROPIC_BASE_URL: modelUrl,
    ANTHROPIC_API_KEY: API_KEY,
    DISABLE_TELEMETRY: '1',
    DISABLE_ERROR_REPORTING: '1',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_AUTOUPDATER: '1',
    CLAUDE_CODE_DISABLE_OFFICIAL_MARKETPLACE_AUTOINSTALL: '1',
  };
}

/**
 * Starts Claude Code offline: a private HOME and TMPDIR, a seeded
 * `.claude.json` (onboarding done, the key approved, the folder trusted), the model at a fake
 * Messages API, nothing else reached (telemetry, error reports, updates and the marketplace off),
 * `--permission-mode default` (the mode that asks, hence shows diffs in the editor), and the
 * companion named by `CLAUDE_CODE_SSE_PORT`.
 */
export async function startClaudeCode(options: ClaudeCodeOptions): Promise<ClaudeCodeRun> {
  const home = path.join(options.dir, 'home');
  const tmpDir = path.join(options.dir, 'tmp');
  await Promise.all([home, tmpDir].map((d) => mkdir(d, { recursive: true })));
  await seedClaudeCode(options.version, options.claudeConfigDir, options.cwd);
  const model = await FakeAnthropicModel.start(options.script);
  const base = cliBaseEnv(home, tmpDir);
  const env = {
    ...base,
    TERM: 'xterm-256color',
    ...offlineClaudeEnv(options.claudeConfigDir, model.baseUrl),
    CLAUDE_CODE_SSE_PORT: String(options.ssePort),
  };
  const mode = options.permissionMode === undefined ? 'default' : options.permissionMode;
  const argv = [claudeCodeBinary(options.version), ...(mode ? ['--permission-mode', mode] : [])];
  const shellLine = commandShellLine({ argv, env, cwd: options.cwd });
  const pane = await TmuxPane.start({
    dir: options.dir,
    cwd: options.cwd,
    shellLine,
    env: { ...base, TERM: 'xterm-256color' },
    name: 'claude',
  });
  return {
    pane,
    model,
    stop: async () => {
      await pane.stop();
      await model.close();
    },
  };
}
