import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import {
  claudeCodeBinary,
  offlineClaudeEnv,
  seedClaudeCode,
  type ClaudeCodeVersion,
} from './claude-code.js';
import { FakeAnthropicModel } from './fake-anthropic-model.js';
import { writeFakeGeminiResponses } from './fake-gemini-model.js';
import { FakeOpenAiModel } from './fake-openai-model.js';
import { clientNode } from './client-node.js';
import { clientModulePath } from './installed-clients.js';
import type { ProposedEdit } from './proposed-edit.js';
import { shellQuote } from '@tandem/command';

export type CliName = 'gemini' | 'qwen' | 'claude';

/** The names the editors and the engine show for each CLI. */
export const CLI_DISPLAY_NAMES: Record<CliName, string> = {
  gemini: 'Gemini CLI',
  qwen: 'Qwen Code',
  claude: 'Claude Code',
};

export interface CliLaunchOptions {
  cli: CliName;
  /** The workspace: the CLI's working directory. */
  cwd: string;
  /** A private HOME; settings and the CLI's own state go under it. */
  home: string;
  /** A private TMPDIR; Gemini CLI looks for IDE discovery files under `<tmpDir>/gemini/ide`. */
  tmpDir: string;
  /** Qwen Code's home (settings, `ide/<port>.lock` files). Default: `<home>/.qwen`. */
  qwenHome?: string;
  /** Claude Code's `CLAUDE_CONFIG_DIR` (its state, `ide/<port>.lock`). Default: `<home>/.claude`. */
  claudeConfigDir?: string;
  /**
   * The file write the fake model proposes as soon as the CLI starts (Claude Code's, as one edit
   * of the file's whole text as it is when the CLI is prepared).
   */
  edit: ProposedEdit;
  /** Extra environment for the CLI, e.g. `GEMINI_CLI_IDE_PID`. */
  env?: Record<string, string>;
  /**
   * Whether the CLI starts with the edit prompt already submitted (the default). Without it, the
   * test submits `editPrompt(edit)` itself, e.g. once `/ide status` shows the CLI connected.
   */
  promptAtStart?: boolean;
  /**
   * The `--approval-mode` (Claude Code: `--permission-mode`) the CLI starts with (default
   * `default`, the mode that shows diffs);
   * `null` starts it without the flag, in the mode its settings give, as a user would.
   */
  approvalMode?: string | null;
  /** Which Claude Code runs (default the newest). */
  claudeVersion?: ClaudeCodeVersion;
}

/** Everything needed to start the CLI in any terminal (tmux pane, editor terminal). */
export interface CliCommand {
  argv: string[];
  /** The CLI's complete environment, apart from what the terminal itself sets (TERM...). */
  env: Record<string, string>;
  cwd: string;
  /**
   * One POSIX shell line that starts the CLI with `env` from any shell, with the terminal
   * markers TERM_PROGRAM and TERM_PROGRAM_VERSION removed (tmux sets them in every pane).
   */
  shellLine: string;
}

export interface CliLaunch {
  command: CliCommand;
  /** Stops the fake model server, if any. Safe to call twice. */
  close(): Promise<void>;
}

/** Typed by `-i` when the CLI starts; the fake model proposes the edit in answer. */
export function editPrompt(edit: ProposedEdit): string {
  return `Propose the prepared edit of ${edit.filePath}`;
}

// Settings shared by both CLIs: IDE mode on, and no screen or network call before work starts
// (folder trust dialog, IDE nudge, tips, update check, usage statistics, telemetry).
const quietSettings = {
  ide: { enabled: true, hasSeenNudge: true },
  privacy: { usageStatisticsEnabled: false },
  telemetry: { enabled: false },
};

function geminiSettings(): object {
  return {
    ...quietSettings,
    security: { auth: { selectedType: 'gemini-api-key' }, folderTrust: { enabled: false } },
    general: { enableAutoUpdate: false, enableAutoUpdateNotification: false },
    ui: { hideTips: true, showCompatibilityWarnings: false, showHomeDirectoryWarning: false },
  };
}

function qwenSettings(): object {
  return {
    ...quietSettings,
    security: { auth: { selectedType: 'openai' }, folderTrust: { enabled: false } },
    general: { enableAutoUpdate: false },
    // Fewer side requests to the model, and no dialogs after a turn.
    ui: {
      hideTips: true,
      enableWelcomeBack: false,
      enableUserFeedback: false,
      enableFollowupSuggestions: false,
    },
    model: { skipNextSpeakerCheck: true, skipLoopDetection: true },
    memory: {
      enableManagedAutoMemory: false,
      enableManagedAutoDream: false,
      enableAutoSkill: false,
    },
    // The packaged ripgrep binary is installed without its execute bit: use the built-in search.
    tools: { useRipgrep: false },
  };
}

async function binPath(packageName: string): Promise<string> {
  const manifestPath = clientModulePath(`${packageName}/package.json`);
  const manifest = JSON.parse(await readFile(manifestPath, 'utf8')) as {
    bin: Record<string, string>;
  };
  const [bin] = Object.values(manifest.bin);
  if (!bin) throw new Error(`${packageName} declares no executable`);
  return path.join(path.dirname(manifestPath), bin);
}

async function writeJson(file: string, value: object): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, JSON.stringify(value, null, 2) + '\n');
}

/**
 * The shell line of `CliCommand`: cd to `cwd`, then run `argv` with `env`, without the terminal's
 * TERM_PROGRAM and without CI (a CLI that sees `CI` refuses to run interactively: "No input
 * provided via stdin"), whatever the terminal it is typed in inherited.
 */
export function commandShellLine(command: Omit<CliCommand, 'shellLine'>): string {
  const assignments = Object.entries(command.env).map(
    ([name, value]) => `${name}=${shellQuote(value)}`,
  );
  const words = [
    'env -u TERM_PROGRAM -u TERM_PROGRAM_VERSION -u CI',
    ...assignments,
    ...command.argv.map((word) => shellQuote(word)),
  ];
  return `cd ${shellQuote(command.cwd)} && ${words.join(' ')}`;
}

/**
 * What a CLI's environment starts from: only this, so that nothing of the test runner's (CI, API
 * keys, TERM_PROGRAM, XDG_*) changes how the CLI behaves; the runner's marker goes along, so
 * that the runner finds the CLI and its tmux server if the test leaves them running.
 */
export function cliBaseEnv(home: string, tmpDir: string): Record<string, string> {
  const marker = process.env.TANDEM_TEST_JOB;
  return {
    ...(marker && { TANDEM_TEST_JOB: marker }),
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    LANG: 'C.UTF-8',
    SHELL: '/bin/sh',
    HOME: home,
    TMPDIR: tmpDir,
  };
}

interface Prepared {
  env: Record<string, string>;
  /** The CLI's command line: Node's arguments, or the whole of a native executable's. */
  argv: string[];
  close(): Promise<void>;
}

function approvalModeArgs(options: CliLaunchOptions, flag = '--approval-mode'): string[] {
  const mode = options.approvalMode === undefined ? 'default' : options.approvalMode;
  return mode === null ? [] : [flag, mode];
}

async function prepareGemini(options: CliLaunchOptions, prompt: string): Promise<Prepared> {
  const { home, edit } = options;
  await writeJson(path.join(home, '.gemini', 'settings.json'), geminiSettings());
  const responses = path.join(home, 'fake-gemini-responses.jsonl');
  await writeFakeGeminiResponses(responses, edit);
  const env = {
    GEMINI_CLI_SYSTEM_SETTINGS_PATH: path.join(home, 'no-system-settings.json'),
    GEMINI_CLI_SYSTEM_DEFAULTS_PATH: path.join(home, 'no-system-defaults.json'),
    GEMINI_API_KEY: 'fake-key',
    // The CLI would otherwise reach the IDE at host.docker.internal inside a container.
    REMOTE_CONTAINERS: 'true',
  };
  // The pinned model keeps the model router from taking a canned response.
  const args = [await binPath('@google/gemini-cli'), '-m', 'gemini-2.5-flash'];
  args.push(...approvalModeArgs(options), '--fake-responses-non-strict', responses);
  if (options.promptAtStart !== false) args.push('-i', prompt);
  return { env, argv: [clientNode('gemini'), ...args], close: async () => undefined };
}

async function prepareQwen(options: CliLaunchOptions, prompt: string): Promise<Prepared> {
  const { home, edit } = options;
  const qwenHome = options.qwenHome ?? path.join(home, '.qwen');
  await writeJson(path.join(qwenHome, 'settings.json'), qwenSettings());
  const args = [await binPath('@qwen-code/qwen-code'), ...approvalModeArgs(options)];
  if (options.promptAtStart !== false) args.push('-i', prompt);
  const model = await FakeOpenAiModel.start({ prompt, edit });
  const env = {
    QWEN_HOME: qwenHome,
    QWEN_CODE_SYSTEM_SETTINGS_PATH: path.join(home, 'no-system-settings.json'),
    QWEN_CODE_SYSTEM_DEFAULTS_PATH: path.join(home, 'no-system-defaults.json'),
    OPENAI_BASE_URL: model.baseUrl,
    OPENAI_API_KEY: 'fake-key',
    OPENAI_MODEL: 'fake-model',
  };
  return { env, argv: [clientNode('qwen'), ...args], close: () => model.close() };
}

/** Claude Code (the newest by default); its model replaces the file's whole text with the edit's. */
async function prepareClaude(options: CliLaunchOptions, prompt: string): Promise<Prepared> {
  const { home, cwd, edit, claudeVersion = 'newest' } = options;
  const claudeConfigDir = options.claudeConfigDir ?? path.join(home, '.claude');
  await seedClaudeCode(claudeVersion, claudeConfigDir, cwd);
  const oldString = await readFile(edit.filePath, 'utf8');
  const script = { prompt, filePath: edit.filePath, oldString, newString: edit.content };
  const model = await FakeAnthropicModel.start(script);
  const argv = [claudeCodeBinary(claudeVersion), ...approvalModeArgs(options, '--permission-mode')];
  if (options.promptAtStart !== false) argv.push(prompt);
  const env = offlineClaudeEnv(claudeConfigDir, model.baseUrl);
  return { env, argv, close: () => model.close() };
}

const PREPARE = { gemini: prepareGemini, qwen: prepareQwen, claude: prepareClaude };

/**
 * Prepares a private HOME with settings, the fake model, and the command line that starts the
 * real CLI interactively (default approval mode) with the edit prompt already submitted.
 */
export async function prepareCliLaunch(options: CliLaunchOptions): Promise<CliLaunch> {
  await Promise.all([options.tmpDir, options.home].map((dir) => mkdir(dir, { recursive: true })));
  const prompt = editPrompt(options.edit);
  const prepared = await PREPARE[options.cli](options, prompt);
  const env = { ...cliBaseEnv(options.home, options.tmpDir), ...prepared.env, ...options.env };
  const command = { argv: prepared.argv, env, cwd: options.cwd };
  return { command: { ...command, shellLine: commandShellLine(command) }, close: prepared.close };
}
