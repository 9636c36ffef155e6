/**
 * A real Neovim for tests: headless, driven over msgpack-RPC, with Tandem loaded from this
 * repository and every directory it could write to made private.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { attach, type NeovimClient } from 'neovim';

export const ROOT = realpathSync(fileURLToPath(new URL('../..', import.meta.url)));
export const SIDECAR = path.join(ROOT, 'packages/cli/dist/tandem.js');

const QUIET_LOGGER = { info() {}, warn() {}, error() {}, debug() {}, level: 'error' };
type AttachLogger = NonNullable<NonNullable<Parameters<typeof attach>[0]['options']>['logger']>;

/** Variables a test process may have inherited that would change what Neovim or a CLI finds. */
const INHERITED_REMOVED = [
  /^GEMINI_CLI_IDE_/,
  /^QWEN_CODE_IDE_/,
  /^XDG_/,
  /^TERM_PROGRAM$/,
  /^NVIM/,
];

function onPath(program: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${program}`], { stdio: 'ignore' }).status === 0;
}

/**
 * Why these tests cannot run here, or `false`. Under CI a missing program is a failure: this
 * registers a failing test saying so (and the others are skipped).
 */
export function skipReason(needs: { sidecar?: boolean; tmux?: boolean } = {}): string | false {
  const missing: string[] = [];
  if (!onPath('nvim')) missing.push('nvim is not installed');
  if (needs.tmux && !onPath('tmux')) missing.push('tmux is not installed');
  if (needs.sidecar && !existsSync(SIDECAR)) {
    missing.push(`the sidecar is not built (${path.relative(ROOT, SIDECAR)}; run npm run build)`);
  }
  if (missing.length === 0) return false;
  const reason = missing.join('; ');
  if (process.env.CI) {
    test(`prerequisites (${reason})`, () => {
      throw new Error(`${reason}: CI is set, so a missing program fails the tests`);
    });
  }
  return reason;
}

/** The private directories of one Neovim and the CLIs that talk to it. */
export class Sandbox {
  readonly root: string;
  readonly workspace: string;
  readonly tmpDir: string;
  readonly qwenHome: string;
  readonly home: string;

  constructor() {
    this.root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'tandem-nvim-')));
    this.workspace = path.join(this.root, 'workspace');
    this.tmpDir = path.join(this.root, 'tmp');
    this.qwenHome = path.join(this.root, 'qwen');
    this.home = path.join(this.root, 'home');
    for (const dir of [this.workspace, this.tmpDir, this.qwenHome, this.home]) {
      mkdirSync(dir, { recursive: true });
    }
  }

  /** The environment of a Neovim (and of its sidecar and terminals) that writes only here. */
  env(): Record<string, string> {
    const env: Record<string, string> = {};
    for (const [name, value] of Object.entries(process.env)) {
      if (value !== undefined && !INHERITED_REMOVED.some((pattern) => pattern.test(name))) {
        env[name] = value;
      }
    }
    const xdg = path.join(this.root, 'xdg');
    return {
      ...env,
      HOME: this.home,
      TMPDIR: this.tmpDir,
      QWEN_HOME: this.qwenHome,
      XDG_CONFIG_HOME: path.join(xdg, 'config'),
      XDG_DATA_HOME: path.join(xdg, 'data'),
      XDG_STATE_HOME: path.join(xdg, 'state'),
      XDG_CACHE_HOME: path.join(xdg, 'cache'),
      XDG_RUNTIME_DIR: path.join(xdg, 'runtime'),
      NVIM_LOG_FILE: path.join(this.root, 'nvim.log'),
    };
  }

  /** The Neovim command line that loads Tandem from this repository and nothing of the user's. */
  static neovimArgs(...extra: string[]): string[] {
    return ['--clean', '-n', '--cmd', `set rtp^=${ROOT}`, ...extra];
  }

  remove(): void {
    rmSync(this.root, { recursive: true, force: true });
  }
}

export interface TandemStatus {
  state: string;
  error?: string;
  pid?: number;
  port?: number;
  clients: { name: string; version: string }[];
  discovery_files: string[];
  env: Record<string, string>;
  diffs: { id: string; path: string }[];
  log_file: string;
}

export interface WindowView {
  name: string;
  diff: boolean;
  label: string;
  filetype: string;
  buftype: string;
  modifiable: boolean;
  lines: string[];
  current: boolean;
}

export interface TabView {
  tabs: number;
  windows: WindowView[];
}

/** Polls `probe` until it returns something other than undefined; fails after `timeoutMs`. */
export async function waitFor<T>(
  what: string,
  probe: () => Promise<T | undefined> | T | undefined,
  timeoutMs = 30_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline) {
      throw new Error(
        `timed out after ${timeoutMs} ms waiting for ${what}${last ? `: ${String(last)}` : ''}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** One headless Neovim over RPC (`--embed`), in a sandbox. */
export class NeovimSession {
  private exited: Promise<number | null>;

  private constructor(
    readonly sandbox: Sandbox,
    readonly process: ChildProcess,
    readonly nvim: NeovimClient,
  ) {
    this.exited = new Promise((resolve) => {
      if (process.exitCode !== null) resolve(process.exitCode);
      else process.on('exit', (code) => resolve(code));
    });
  }

  /** Starts Neovim in `sandbox.workspace`; with `tandem`, runs setup() with those options (Lua). */
  static async start(sandbox: Sandbox, options: { tandem?: string } = {}): Promise<NeovimSession> {
    const child = spawn('nvim', Sandbox.neovimArgs('--embed', '--headless'), {
      cwd: sandbox.workspace,
      env: sandbox.env(),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const nvim = attach({
      proc: child,
      options: { logger: QUIET_LOGGER as unknown as AttachLogger },
    });
    const session = new NeovimSession(sandbox, child, nvim);
    await nvim.eval('1');
    if (options.tandem !== undefined) {
      await session.lua(`require('tandem').setup(${options.tandem})`);
      await session.waitForState('running');
    }
    return session;
  }

  /** Runs Lua (`...` are the `args`) and returns its result. */
  async lua<T = unknown>(code: string, args: unknown[] = []): Promise<T> {
    return (await this.nvim.lua(code, args as never)) as T;
  }

  command(command: string): Promise<unknown> {
    return this.nvim.command(command);
  }

  /** Types keys as a user would; resolves once Neovim has consumed them. */
  async input(keys: string): Promise<void> {
    await this.nvim.input(keys);
    await waitFor('Neovim to take the keys', async () => {
      const mode = (await this.nvim.mode) as { blocking: boolean };
      return mode.blocking ? undefined : true;
    });
    // A request after the keys runs after them: this makes their effects visible.
    await this.nvim.eval('1');
  }

  status(): Promise<TandemStatus> {
    return this.lua<TandemStatus>(`return require('tandem').status()`);
  }

  async waitForState(state: string): Promise<TandemStatus> {
    return waitFor(`Tandem to be ${state}`, async () => {
      const status = await this.status();
      if (status.state === 'failed' && state !== 'failed') {
        throw new Error(`Tandem failed: ${status.error}`);
      }
      return status.state === state ? status : undefined;
    });
  }

  /** The lines of buffer `buf` (0: the current one). */
  lines(buf = 0): Promise<string[]> {
    return this.lua<string[]>(`return vim.api.nvim_buf_get_lines(..., 0, -1, false)`, [buf]);
  }

  /** The windows of the current tab page, and how many tab pages there are. */
  currentTab(): Promise<TabView> {
    return this.lua<TabView>(`
      local wins = {}
      for _, win in ipairs(vim.api.nvim_tabpage_list_wins(0)) do
        local buf = vim.api.nvim_win_get_buf(win)
        local label = vim.fn.has('nvim-0.8') == 1 and vim.wo[win].winbar or vim.wo[win].statusline
        wins[#wins + 1] = {
          name = vim.api.nvim_buf_get_name(buf),
          diff = vim.wo[win].diff,
          label = label,
          filetype = vim.bo[buf].filetype,
          buftype = vim.bo[buf].buftype,
          modifiable = vim.bo[buf].modifiable,
          lines = vim.api.nvim_buf_get_lines(buf, 0, -1, false),
          current = win == vim.api.nvim_get_current_win(),
        }
      end
      return { tabs = #vim.api.nvim_list_tabpages(), windows = wins }
    `);
  }

  /** Waits until Neovim has exited by itself (e.g. after `:qa`); returns its exit code. */
  waitForExit(timeoutMs = 20_000): Promise<number | null> {
    return Promise.race([
      this.exited,
      new Promise<never>((_, reject) =>
        setTimeout(() => reject(new Error('Neovim did not exit')), timeoutMs).unref(),
      ),
    ]);
  }

  /** Ends Neovim (if still running). */
  async close(): Promise<void> {
    if (this.process.exitCode === null && this.process.signalCode === null) {
      this.nvim.command('qa!').catch(() => undefined);
      const timer = setTimeout(() => this.process.kill('SIGKILL'), 10_000);
      await this.exited;
      clearTimeout(timer);
    }
  }
}
