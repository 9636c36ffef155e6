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
import { TmuxPane } from './tmux.js';

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

export type ScreenCondition = RegExp | ((screen: string) => boolean);

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
  async waitForScreen(condition: ScreenCondition, timeoutMs = 60_000): Promise<string> {
    const matches =
      typeof condition === 'function' ? condition : (screen: string) => condition.test(screen);
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const screen = await this.screen();
      if (matches(screen)) return screen;
      const ending = await this.pane.ending();
      if (ending !== undefined) {
        const last = await this.screen();
        throw new Error(
          `${this.cli}: the pane's command ended (${ending}) before ${condition}; screen:\n${last}`,
        );
      }
      if (Date.now() > deadline) {
        throw new Error(
          `${this.cli}: no ${condition} on screen within ${timeoutMs} ms; screen:\n${screen}`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }

  /** tmux key names: 'Enter', 'Escape', 'Down', 'C-c', or single characters. */
  sendKeys(...keys: string[]): Promise<void> {
    return this.pane.sendKeys(...keys);
  }

  /**
   * Presses `key` until `shown` leaves the screen. A dialog drawn is not always listening yet
   * (seen with Claude Code's, whose first Enter was lost on a busy machine); pressed again, a
   * key that already took effect reaches what comes after, so use it only where that is harmless.
   */
  async pressUntilGone(key: string, shown: RegExp, timeoutMs = 60_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    do {
      await this.sendKeys(key);
      const gone = await this.waitForScreen((screen) => !shown.test(screen), 5_000).then(
        () => true,
        () => false,
      );
      if (gone) return;
    } while (Date.now() < deadline);
    await this.waitForScreen((screen) => !shown.test(screen), 1);
  }

  /** Types text literally. */
  type(text: string): Promise<void> {
    return this.pane.type(text);
  }

  /**
   * Types a message and sends it. Enter goes separately, once the text shows: typed in the
   * same burst, the CLI takes it for part of a paste and inserts a newline instead. Emacs's
   * term.el draws Claude Code's prompt with a space doubled, and when the prompt is redrawn as
   * it is typed (the selection's mark appearing) may leave a stale character in it: the text
   * shows when one line holds it with at most a few characters more.
   */
  async submit(text: string, timeoutMs?: number): Promise<void> {
    await this.type(text);
    await this.waitForScreen((screen) => shownOnOneLine(text, screen), timeoutMs);
    await this.sendKeys('Enter');
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
  async approveInTerminal(timeoutMs?: number): Promise<void> {
    const { confirmation } = SCREENS[this.cli];
    await this.waitForScreen(confirmation, timeoutMs);
    await this.pressUntilGone(APPROVE_KEY, confirmation, timeoutMs);
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

/** Characters a terminal may leave over from an earlier drawing of a line. */
const STALE_CHARACTERS = 4;

/** Whether a line of `screen` shows `text` in order, with at most a few characters more. */
function shownOnOneLine(text: string, screen: string): boolean {
  const spaced = (line: string) => [...line.replace(/ +/g, ' ')];
  const wanted = spaced(text);
  return screen.split('\n').some((line) => {
    const shown = spaced(line);
    return shown.some((character, start) => character === wanted[0] && holds(shown, start));
  });

  function holds(shown: string[], start: number): boolean {
    let next = 0;
    let extra = 0;
    for (let at = start; at < shown.length && next < wanted.length; at += 1) {
      if (shown[at] === wanted[next]) next += 1;
      else if (++extra > STALE_CHARACTERS) return false;
    }
    return next === wanted.length;
  }
}
