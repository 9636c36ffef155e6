/**
 * A real Neovim for tests: headless, driven over msgpack-RPC, with Tandem loaded from this
 * repository and every directory it could write to made private.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { connect } from 'node:net';
import path from 'node:path';
import { after, before } from 'node:test';
import { attach, type NeovimClient } from 'neovim';
import { REPO_ROOT } from '../repo-root.js';
import { Sandbox } from '../sandbox.js';
import { waitFor } from '../wait.js';
import { editorSkipReason, waitForTandemState, type EditorNeeds } from './editor-needs.js';
import { defaultEditor, type EditorVersion } from './editor-version.js';

const QUIET_LOGGER = { info() {}, warn() {}, error() {}, debug() {}, level: 'error' };
type AttachLogger = NonNullable<NonNullable<Parameters<typeof attach>[0]['options']>['logger']>;

/** Why the Neovim tests cannot run here, or `false` (see `editorSkipReason`). */
export function neovimSkipReason(needs: EditorNeeds = {}): string | false {
  return editorSkipReason('nvim', needs);
}

/** The Neovim to run: the one given, or the default one. */
export function neovimOf(nvim?: EditorVersion): EditorVersion {
  const found = nvim ? { editor: nvim } : defaultEditor('nvim');
  if (!found.editor) throw new Error(found.reason);
  return found.editor;
}

/** The Neovim command line that loads Tandem from this repository and nothing of the user's. */
export function neovimArgs(...extra: string[]): string[] {
  return neovimArgsWith(REPO_ROOT, ...extra);
}

/** The same with the plugin loaded from `pluginDir` (a copy as a user installs it). */
export function neovimArgsWith(pluginDir: string, ...extra: string[]): string[] {
  return ['--clean', '-n', '--cmd', `set rtp^=${pluginDir}`, ...extra];
}

export interface NeovimOptions {
  /** setup()'s options (Lua): Tandem is set up and running when `start` resolves. */
  tandem?: string;
  nvim?: EditorVersion;
  /** Where the plugin is; this checkout unless told. */
  pluginDir?: string;
  /** Added to Neovim's environment (a PATH with another `tandem`, say). */
  env?: Record<string, string>;
}

/** The environment of a Neovim in `sandbox` (and of its sidecar and terminals). */
export function neovimEnv(sandbox: Sandbox, extra: Record<string, string> = {}) {
  return sandbox.env({ NVIM_LOG_FILE: path.join(sandbox.root, 'nvim.log'), ...extra });
}

export interface NeovimStatus {
  state: string;
  error?: string;
  pid?: number;
  port?: number;
  clients: { name: string; version: string }[];
  discovery_files: string[];
  env: Record<string, string>;
  diffs: { id: string; path: string }[];
  log_file: string;
  /** The engine's warnings for people (IDE mode off, an approval mode that shows no diffs…). */
  warnings?: { code: string; message: string; fix?: string }[];
}

export interface NeovimWindowView {
  name: string;
  diff: boolean;
  label: string;
  filetype: string;
  buftype: string;
  modifiable: boolean;
  lines: string[];
  current: boolean;
}

export interface NeovimTabView {
  tabs: number;
  windows: NeovimWindowView[];
}

/**
 * One Neovim over RPC, in a sandbox: headless (`--embed`), or one that runs elsewhere (in a
 * tmux pane) reached through its socket.
 */
export class NeovimSession {
  private exited: Promise<number | null>;

  private constructor(
    readonly sandbox: Sandbox,
    readonly nvim: NeovimClient,
    /** Neovim's process, when this session started it. */
    private readonly process?: ChildProcess,
  ) {
    this.exited = new Promise((resolve) => {
      if (!process) return;
      if (process.exitCode !== null) resolve(process.exitCode);
      else process.on('exit', (code) => resolve(code));
    });
  }

  /**
   * Starts Neovim (`nvim`, else the default version) in `sandbox.workspace`; with `tandem`,
   * runs setup() with those options (Lua).
   */
  static async start(sandbox: Sandbox, options: NeovimOptions = {}): Promise<NeovimSession> {
    const [program, ...prefix] = neovimOf(options.nvim).command();
    const args = neovimArgsWith(options.pluginDir ?? REPO_ROOT, '--embed', '--headless');
    const child = spawn(program, [...prefix, ...args], {
      cwd: sandbox.workspace,
      env: neovimEnv(sandbox, options.env),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const nvim = attach({
      proc: child,
      options: { logger: QUIET_LOGGER as unknown as AttachLogger },
    });
    const session = new NeovimSession(sandbox, nvim, child);
    await nvim.eval('1');
    if (options.tandem !== undefined) {
      await session.lua(`require('tandem').setup(${options.tandem})`);
      await session.waitForState('running');
    }
    return session;
  }

  /** The Neovim listening on `socket` (started by someone else), once it answers. */
  static async connect(sandbox: Sandbox, socket: string): Promise<NeovimSession> {
    // The socket's file appears when Neovim binds it, a moment before it listens.
    await waitFor('the Neovim socket', async () =>
      (await socketAccepts(socket)) ? true : undefined,
    );
    const nvim = attach({ socket, options: { logger: QUIET_LOGGER as unknown as AttachLogger } });
    const session = new NeovimSession(sandbox, nvim);
    await nvim.eval('1');
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

  status(): Promise<NeovimStatus> {
    return this.lua<NeovimStatus>(`return require('tandem').status()`);
  }

  waitForState(state: string): Promise<NeovimStatus> {
    return waitForTandemState(state, () => this.status());
  }

  /** The lines of buffer `buf` (0: the current one). */
  lines(buf = 0): Promise<string[]> {
    return this.lua<string[]>(`return vim.api.nvim_buf_get_lines(..., 0, -1, false)`, [buf]);
  }

  /** The windows of the current tab page, and how many tab pages there are. */
  currentTab(): Promise<NeovimTabView> {
    return this.lua<NeovimTabView>(`
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

  /** Ends Neovim (if still running), or only the connection to one this session did not start. */
  async close(): Promise<void> {
    const child = this.process;
    if (!child) {
      await this.nvim.close().catch(() => undefined);
    } else if (child.exitCode === null && child.signalCode === null) {
      this.nvim.command('qa!').catch(() => undefined);
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await this.exited;
      clearTimeout(timer);
    }
  }
}

/**
 * A Neovim (as `NeovimSession.start` takes `options`) for the tests of one `describe` block: in
 * a sandbox of its own, started before them and ended after them.
 */
export function neovimForBlock(options: { tandem?: string; nvim?: EditorVersion } = {}) {
  const block = {} as { sandbox: Sandbox; session: NeovimSession };
  before(async () => {
    block.sandbox = new Sandbox();
    block.session = await NeovimSession.start(block.sandbox, options);
  });
  after(async () => {
    await block.session?.close();
    block.sandbox?.remove();
  });
  return block;
}

/** Whether the Unix socket `socket` takes a connection now. */
export function socketAccepts(socket: string): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = connect(socket);
    probe.once('connect', () => {
      probe.destroy();
      resolve(true);
    });
    probe.once('error', () => resolve(false));
  });
}
