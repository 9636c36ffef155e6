/**
 * Neovim with a real screen: its TUI in a tmux pane, plus an RPC connection (`--listen`) to
 * know when Tandem runs.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { attach, type NeovimClient } from 'neovim';
import {
  neovimArgs,
  neovimArgsWith,
  neovimEnv,
  neovimOf,
  Sandbox,
  shellQuote,
  socketAccepts,
  TmuxPane,
  waitFor,
  type EditorVersion,
  type NeovimStatus as TandemStatus,
} from '@tandem/testkit';

const run = promisify(execFile);
const QUIET_LOGGER = { info() {}, warn() {}, error() {}, debug() {}, level: 'error' };
type AttachLogger = NonNullable<NonNullable<Parameters<typeof attach>[0]['options']>['logger']>;

export interface ScreenOptions {
  width?: number;
  height?: number;
  /** The options of Tandem's setup(), as Lua. */
  tandem?: string;
  /** More Neovim arguments, e.g. `-c` commands. */
  args?: string[];
  /** Which Neovim (default: `$TANDEM_NVIM`, else the system's). */
  nvim?: EditorVersion;
  /** Where the plugin is (default: this checkout, with its built sidecar). */
  pluginDir?: string;
  /** Added to Neovim's environment (a PATH without `tandem`, say). */
  env?: Record<string, string>;
  /** The state `start` waits for (default `running`; any other failure throws). */
  state?: 'running' | 'failed';
}

export class ScreenNeovim {
  private constructor(
    readonly pane: TmuxPane,
    readonly nvim: NeovimClient,
    /** The socket of the pane's tmux server. */
    readonly tmuxSocket: string,
  ) {}

  static async start(sandbox: Sandbox, options: ScreenOptions = {}): Promise<ScreenNeovim> {
    const socket = path.join(sandbox.root, 'nvim.sock');
    const tmuxDir = path.join(sandbox.root, 'tmux');
    await run('mkdir', ['-p', tmuxDir]);
    const argv = [
      ...neovimOf(options.nvim).command(),
      ...(options.pluginDir
        ? neovimArgsWith(options.pluginDir, '--listen', socket, ...(options.args ?? []))
        : neovimArgs('--listen', socket, ...(options.args ?? []))),
      '-c',
      `lua require('tandem').setup(${options.tandem ?? '{}'})`,
    ];
    const pane = await TmuxPane.start({
      dir: tmuxDir,
      cwd: sandbox.workspace,
      shellLine: `exec ${argv.map((word) => shellQuote(word)).join(' ')}`,
      env: { ...neovimEnv(sandbox, options.env), TERM: 'xterm-256color' },
      width: options.width,
      height: options.height,
    });
    try {
      // The socket file exists a moment before Neovim accepts on it.
      await waitFor('the Neovim socket', async () =>
        (await socketAccepts(socket)) ? true : undefined,
      );
      const nvim = attach({ socket, options: { logger: QUIET_LOGGER as unknown as AttachLogger } });
      const screen = new ScreenNeovim(pane, nvim, path.join(tmuxDir, 'tmux.sock'));
      await waitFor('Tandem to run', async () => {
        const status = (await nvim.lua(
          `return require('tandem').status()`,
        )) as unknown as TandemStatus;
        const expected = options.state ?? 'running';
        if (status.state === 'failed' && expected !== 'failed') {
          throw new Error(`Tandem failed: ${status.error}`);
        }
        return status.state === expected ? true : undefined;
      });
      return screen;
    } catch (error) {
      await pane.stop();
      throw error;
    }
  }

  /** The screen as text. */
  capture(): Promise<string> {
    return this.pane.capture();
  }

  waitFor(what: string, matches: (screen: string) => boolean): Promise<string> {
    return waitFor(what, async () => {
      const screen = await this.capture();
      return matches(screen) ? screen : undefined;
    });
  }

  waitForText(text: string): Promise<string> {
    return this.waitFor(`"${text}" on the screen`, (screen) => screen.includes(text));
  }

  async stop(): Promise<void> {
    await this.nvim.close().catch(() => undefined);
    await this.pane.stop();
  }
}
