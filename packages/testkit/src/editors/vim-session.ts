/**
 * A real Vim for tests: in a tmux pane (a real screen, real keys), with Tandem loaded from this
 * repository, every folder it could write to private, and a test driver (`vim-test-driver.vim`) through
 * which a test reads Vim's state and sets things up without typing.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { REPO_ROOT } from '../repo-root.js';
import type { Sandbox } from '../sandbox.js';
import { waitFor } from '../wait.js';
import { editorSkipReason, waitForTandemState } from './editor-needs.js';
import { defaultEditor } from './editor-version.js';
import { startEditorPane, terminalEnv, type EditorScreen } from './tmux-editor.js';

const DRIVER = fileURLToPath(new URL('./vim-test-driver.vim', import.meta.url));

/**
 * The Vim the tests run, the one place that chooses it: the system's (9.0), or the version
 * `TANDEM_VIM` names (`newest`: Debian unstable's, run in its own root).
 */
export function vimCommand(): string[] {
  return defaultEditor('vim').editor?.command() ?? ['vim'];
}

/** Why the Vim tests (Vim runs in tmux) cannot run here, or `false` (see `editorSkipReason`). */
export function vimSkipReason(needs: { sidecar?: boolean } = {}): string | false {
  return editorSkipReason('vim', { ...needs, tmux: true });
}

/** The Vim command line that loads Tandem from this repository and nothing of the user's. */
export function vimArgs(...extra: string[]): string[] {
  return vimArgsWith(REPO_ROOT, ...extra);
}

/** The same with the plugin loaded from `pluginDir` (a copy as a user installs it). */
export function vimArgsWith(pluginDir: string, ...extra: string[]): string[] {
  return [
    ...vimCommand(),
    '-Nu',
    'NONE',
    '-i',
    'NONE',
    '-n',
    '--noplugin',
    '--cmd',
    `set rtp^=${pluginDir}`,
    '--cmd',
    'filetype on',
    '--cmd',
    'runtime plugin/tandem.vim',
    ...extra,
  ];
}

export interface VimStatus {
  state: string;
  error: string | null;
  pid: number | null;
  port: number | null;
  clients: { name: string; version: string }[];
  /** The engine's warnings for people (IDE mode off, an approval mode that shows no diffs…). */
  warnings: { code: string; message: string; fix: string | null }[];
  discovery_files: string[];
  env: Record<string, string>;
  diffs: { id: string; path: string }[];
  workspace_folders: string[];
  log_file: string;
}

export interface VimWindowView {
  name: string;
  diff: number;
  label: string;
  filetype: string;
  buftype: string;
  modifiable: number;
  lines: string[];
  current: boolean;
}

export interface VimTabView {
  tabs: number;
  windows: VimWindowView[];
  mode: string;
}

export interface VimOptions {
  /** Vim script run before Tandem starts (`--cmd`), e.g. `let g:tandem_autostart = 0`. */
  before?: string[];
  /** Added to Vim's environment. */
  env?: Record<string, string>;
  /** Arguments after the options (files to edit, `-c` commands). */
  args?: string[];
  /** Where the plugin is; this checkout unless told. */
  pluginDir?: string;
  width?: number;
  height?: number;
}

/**
 * The command that runs Vim in a pane: `env -u` because tmux puts TERM_PROGRAM into every pane,
 * and the CLIs must find Vim through Tandem alone.
 */
export function vimArgv(sandbox: Sandbox, options: VimOptions = {}): string[] {
  const before = (options.before ?? []).flatMap((line) => ['--cmd', line]);
  return [
    'env',
    '-u',
    'TERM_PROGRAM',
    '-u',
    'TERM_PROGRAM_VERSION',
    `TANDEM_TEST_DIR=${driverDir(sandbox)}`,
    ...Object.entries(options.env ?? {}).map(([name, value]) => `${name}=${value}`),
    ...vimArgsWith(
      options.pluginDir ?? REPO_ROOT,
      '--cmd',
      `let g:tandem_log_file = '${path.join(sandbox.root, 'tandem.log')}'`,
      ...before,
      '--cmd',
      `source ${DRIVER}`,
      ...(options.args ?? []),
    ),
  ];
}

/** Where Vim's test driver and the test exchange requests and replies. */
function driverDir(sandbox: Sandbox): string {
  return path.join(sandbox.root, 'driver');
}

/** One Vim in a tmux pane of its own, in `sandbox.workspace`. */
export class VimSession {
  private seq = 0;

  private constructor(
    readonly sandbox: Sandbox,
    readonly pane: EditorScreen,
    private readonly driverDir: string,
  ) {}

  /** Prepares the driver's folder: call it before Vim starts. */
  static prepare(sandbox: Sandbox): void {
    rmSync(driverDir(sandbox), { recursive: true, force: true });
    mkdirSync(driverDir(sandbox), { recursive: true });
  }

  /** Vim in a tmux pane of its own. */
  static async start(sandbox: Sandbox, options: VimOptions = {}): Promise<VimSession> {
    VimSession.prepare(sandbox);
    const tmuxDir = path.join(sandbox.root, 'tmux-vim');
    mkdirSync(tmuxDir, { recursive: true });
    const pane = await startEditorPane(sandbox, {
      dir: tmuxDir,
      argv: vimArgv(sandbox, options),
      env: terminalEnv(sandbox),
      width: options.width,
      height: options.height,
    });
    return VimSession.attach(sandbox, pane);
  }

  /** The Vim started (after `prepare`) with `vimArgv(sandbox)` in `screen`. */
  static async attach(sandbox: Sandbox, screen: EditorScreen): Promise<VimSession> {
    const session = new VimSession(sandbox, screen, driverDir(sandbox));
    await session.eval('1');
    return session;
  }

  /** Evaluates a Vim expression in Vim (between keys, from a timer) and returns its value. */
  async eval<T = unknown>(expr: string, timeoutMs = 30_000): Promise<T> {
    return (await this.request({ expr }, timeoutMs)) as T;
  }

  /** Runs Ex commands in Vim, as a script would (not typed). */
  async command(command: string): Promise<void> {
    await this.request({ command });
  }

  private async request(body: object, timeoutMs = 30_000): Promise<unknown> {
    this.seq += 1;
    const seq = this.seq;
    const file = path.join(this.driverDir, `request-${seq}.json`);
    writeFileSync(`${file}.part`, JSON.stringify({ seq, ...body }));
    renameSync(`${file}.part`, file);
    const replyFile = path.join(this.driverDir, `reply-${seq}.json`);
    const reply = await waitFor(
      `Vim to answer ${JSON.stringify(body)}`,
      () => (existsSync(replyFile) ? readFileSync(replyFile, 'utf8') : undefined),
      timeoutMs,
    ).catch(async (error: unknown) => {
      throw new Error(`${String(error)}; Vim's screen:\n${await this.screen()}`);
    });
    rmSync(replyFile);
    const parsed = JSON.parse(reply) as { value?: unknown; error?: string };
    if (parsed.error !== undefined) throw new Error(`Vim: ${parsed.error}`);
    return parsed.value;
  }

  /** Types keys as a user would: tmux key names ('Enter', 'Escape', 'C-w') or text. */
  keys(...keys: string[]): Promise<void> {
    return this.pane.sendKeys(...keys);
  }

  /** Types text literally. */
  type(text: string): Promise<void> {
    return this.pane.type(text);
  }

  /** Types an Ex command and Enter. */
  async ex(command: string): Promise<void> {
    await this.pane.type(`:${command}`);
    await this.pane.sendKeys('Enter');
  }

  screen(): Promise<string> {
    return this.pane.capture();
  }

  status(): Promise<VimStatus> {
    return this.eval<VimStatus>('tandem#status()');
  }

  waitForState(state: string, timeoutMs = 30_000): Promise<VimStatus> {
    return waitForTandemState(state, () => this.status(), { timeoutMs });
  }

  /** The windows of the current tab page, how many tab pages there are, and the mode. */
  currentTab(): Promise<VimTabView> {
    return this.eval<VimTabView>('TandemTestTab()');
  }

  /** Whether Vim has exited (the pane's command ended). */
  async exited(): Promise<boolean> {
    return (await this.pane.ending()) !== undefined;
  }

  /** Ends Vim and its pane. */
  close(): Promise<void> {
    return this.pane.stop();
  }
}
