import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import {
  editPrompt,
  prepareCliLaunch,
  type CliCommand,
  type CliLaunch,
  type CliLaunchOptions,
  type CliName,
} from './cli-launch.js';
import { shellQuote } from '@tandem/command';
import type { Sandbox } from '../sandbox.js';
import { waitFor } from '../wait.js';
import type { ProposedEdit } from './proposed-edit.js';
import { TmuxPane, type ScreenCondition } from './tmux.js';

export interface CliSessionOptions extends CliLaunchOptions {
  /**
   * What the pane runs instead of the CLI itself, e.g. an editor whose terminal runs
   * `cli.shellLine`. The pane's environment is `cli.env` either way.
   */
  command?: (cli: CliCommand) => string[];
  width?: number;
  height?: number;
}

/** Gemini CLI and Qwen Code ask this in their own confirmation dialog for a file edit. */
export const confirmationPattern = /Apply this change\?/;

/** Shown once Gemini CLI or Qwen Code is idle and waiting for the user's next message. */
export const inputPattern = /Type your message/;

/** What each CLI shows: its own confirmation dialog for a file edit, and its idle prompt. */
const SCREENS: Record<CliName, { confirmation: RegExp; input: RegExp }> = {
  gemini: { confirmation: confirmationPattern, input: inputPattern },
  qwen: { confirmation: confirmationPattern, input: inputPattern },
  claude: { confirmation: /Do you want to make this edit/, input: /\? for shortcuts/ },
};

/** What `cli` shows once it is idle and waiting for the user's next message. */
export function idlePattern(cli: CliName): RegExp {
  return SCREENS[cli].input;
}

// Keys for "Yes, allow once" (option 1, picked by its number) and for "No" (Esc).
const APPROVE_KEY = '1';
const REJECT_KEY = 'Escape';

/**
 * `cli` in `sandbox` (its workspace, HOME, TMPDIR, QWEN_HOME and CLAUDE_CONFIG_DIR), its model to propose `edit`
 * once the test asks for it (`CliSession.askForEdit`), not at start.
 */
export function cliInSandbox(
  sandbox: Sandbox,
  cli: CliName,
  edit: ProposedEdit,
): CliLaunchOptions & { promptAtStart: false } {
  const { workspace: cwd, home, tmpDir, qwenHome, claudeConfigDir } = sandbox;
  return { cli, cwd, home, tmpDir, qwenHome, claudeConfigDir, edit, promptAtStart: false };
}

/** The real CLI, interactive in a tmux pane, talking to a fake model. */
export class CliSession {
  private constructor(
    readonly cli: CliName,
    private readonly edit: ProposedEdit,
    private readonly launch: CliLaunch,
    private readonly pane: TmuxPane,
  ) {}

  static async start(options: CliSessionOptions): Promise<CliSession> {
    const launch = await prepareCliLaunch(options);
    const { command } = launch;
    try {
      const dir = path.join(options.tmpDir, 'tmux');
      await mkdir(dir, { recursive: true });
      const shellLine = options.command
        ? options
            .command(command)
            .map((word) => shellQuote(word))
            .join(' ')
        : command.shellLine;
      const { env, cwd } = command;
      const pane = await TmuxPane.start({
        dir,
        cwd,
        shellLine,
        env,
        width: options.width,
        height: options.height,
        name: options.cli,
      });
      return new CliSession(options.cli, options.edit, launch, pane);
    } catch (error) {
      await launch.close();
      throw error;
    }
  }

  /** The exact command and environment that start the CLI, for running it elsewhere. */
  cliCommand(): CliCommand {
    return this.launch.command;
  }

  /** The pane's first process; every process the pane starts is in its process group. */
  get panePid(): number {
    return this.pane.pid;
  }

  screen(): Promise<string> {
    return this.pane.capture();
  }

  /**
   * Polls the screen until it matches; returns that screen. Fails early if the pane's
   * command exits, and on timeout, with the last screen in the message.
   */
  waitForScreen(condition: ScreenCondition, timeoutMs?: number): Promise<string> {
    return this.pane.waitForScreen(condition, timeoutMs);
  }

  /** tmux key names: 'Enter', 'Escape', 'Down', 'C-c', or single characters. */
  sendKeys(...keys: string[]): Promise<void> {
    return this.pane.sendKeys(...keys);
  }

  /** Presses `key` until `shown` leaves the screen (`TmuxPane.pressUntilGone`). */
  pressUntilGone(key: string, shown: RegExp, timeoutMs?: number): Promise<void> {
    return this.pane.pressUntilGone(key, shown, timeoutMs);
  }

  /** Types text literally. */
  type(text: string): Promise<void> {
    return this.pane.type(text);
  }

  /** Types a message and sends it once it shows (`TmuxPane.submit`). */
  submit(text: string, timeoutMs?: number): Promise<void> {
    return this.pane.submit(text, timeoutMs);
  }

  /**
   * Asks for the edit (of a CLI started without it) once `connected` says the companion sees this
   * CLI: asked earlier, the CLI would confirm the edit in its own terminal.
   */
  async askForEdit(connected: () => Promise<boolean>, timeoutMs = 120_000): Promise<void> {
    await waitFor(
      'the companion to see the CLI connected',
      async () => ((await connected()) ? true : undefined),
      timeoutMs,
    );
    await this.waitForScreen(idlePattern(this.cli), timeoutMs);
    await this.submit(editPrompt(this.edit));
  }

  /**
   * Waits for the CLI's own confirmation dialog and picks "allow once", again until the dialog
   * goes: a key sent as an editor hands its terminal back may reach the editor instead (seen in
   * CI with Claude Code in Neovim's terminal). Once it went, the CLI goes on with the edit.
   */
  approveInTerminal(timeoutMs?: number): Promise<void> {
    return approveInTerminal(this.pane, this.cli, timeoutMs);
  }

  /** Waits for the CLI's own confirmation dialog and declines the edit. */
  async rejectInTerminal(timeoutMs?: number): Promise<void> {
    await this.waitForScreen(SCREENS[this.cli].confirmation, timeoutMs);
    await this.sendKeys(REJECT_KEY);
  }

  /** Ends the pane with every process in it, and the fake model. Safe to call twice. */
  async stop(): Promise<void> {
    await this.pane.stop();
    await this.launch.close();
  }
}

export function startCliSession(options: CliSessionOptions): Promise<CliSession> {
  return CliSession.start(options);
}

/**
 * Waits for `cli`'s confirmation dialog in `pane` and picks "allow once", again until the
 * dialog goes (`CliSession.approveInTerminal`).
 */
export async function approveInTerminal(
  pane: TmuxPane,
  cli: CliName,
  timeoutMs?: number,
): Promise<void> {
  const { confirmation } = SCREENS[cli];
  await pane.waitForScreen(confirmation, timeoutMs);
  await pane.pressUntilGone(APPROVE_KEY, confirmation, timeoutMs);
}
