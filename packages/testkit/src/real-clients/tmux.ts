import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface TmuxPaneOptions {
  /** A private folder for the tmux server's socket and configuration. */
  dir: string;
  cwd: string;
  /** Run by /bin/sh -c in the pane. */
  shellLine: string;
  /** The complete environment of the tmux server, inherited by the pane. */
  env: Record<string, string>;
  width?: number | undefined;
  height?: number | undefined;
  /** What runs in the pane, for messages: 'gemini', 'claude' (default 'the pane'). */
  name?: string | undefined;
}

export type ScreenCondition = RegExp | ((screen: string) => boolean);

/** How long typed text may take to show before it is typed again. */
const RETYPE_MS = 15_000;

// A dead pane stays on screen so a crash can still be read, and no user
// configuration or shell changes how the pane behaves.
const serverConfig = [
  'set -g remain-on-exit on',
  'set -g default-shell /bin/sh',
  'set -g history-limit 10000',
  'set -g status off',
  '',
].join('\n');

/** One tmux pane on a private tmux server that nothing else uses. */
export class TmuxPane {
  private stopped = false;

  private constructor(
    private readonly socket: string,
    private readonly env: Record<string, string>,
    /** The pane's first process: leader of the process group of everything it runs. */
    readonly pid: number,
    private readonly name: string,
  ) {}

  static async start(options: TmuxPaneOptions): Promise<TmuxPane> {
    const socket = path.join(options.dir, 'tmux.sock');
    const config = path.join(options.dir, 'tmux.conf');
    await writeFile(config, serverConfig);
    const args = ['-S', socket, '-f', config, 'new-session', '-d', '-s', 'main'];
    args.push('-x', String(options.width ?? 160), '-y', String(options.height ?? 50));
    args.push('-c', options.cwd, '-P', '-F', '#{pane_pid}', options.shellLine);
    const { stdout } = await run('tmux', args, { env: options.env });
    return new TmuxPane(socket, options.env, Number(stdout.trim()), options.name ?? 'the pane');
  }

  private async tmux(...args: string[]): Promise<string> {
    const { stdout } = await run('tmux', ['-S', this.socket, ...args], { env: this.env });
    return stdout;
  }

  /** The visible screen, wrapped lines joined, trailing blanks removed. */
  async capture(): Promise<string> {
    const text = await this.tmux('capture-pane', '-p', '-J', '-t', 'main');
    return text
      .split('\n')
      .map((line) => line.trimEnd())
      .join('\n')
      .trimEnd();
  }

  /** Key names as tmux knows them: 'Enter', 'Escape', 'Down', 'C-c', or single characters. */
  async sendKeys(...keys: string[]): Promise<void> {
    await this.tmux('send-keys', '-t', 'main', ...keys);
  }

  /** Types text literally, with no key-name interpretation. */
  async type(text: string): Promise<void> {
    await this.tmux('send-keys', '-t', 'main', '-l', text);
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
      const screen = await this.capture();
      if (matches(screen)) return screen;
      const ending = await this.ending();
      if (ending !== undefined) {
        const last = await this.capture();
        throw new Error(
          `${this.name}: the pane's command ended (${ending}) before ${condition}; screen:\n${last}`,
        );
      }
      if (Date.now() > deadline) {
        throw new Error(
          `${this.name}: no ${condition} on screen within ${timeoutMs} ms; screen:\n${screen}`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }

  /**
   * Presses `key` until `shown` leaves the screen. A dialog drawn is not always listening yet
   * (seen with Claude Code's, whose first Enter was lost on a busy machine); pressed again, a
   * key that already took effect reaches what comes after, so use it only where that is harmless.
   */
  async pressUntilGone(key: string, shown: RegExp, timeoutMs = 60_000): Promise<void> {
    await this.sendKeys(key);
    const gone = (screen: string) => !shown.test(screen);
    await this.retryUntil(gone, timeoutMs, 5_000, () => this.sendKeys(key));
  }

  /**
   * Types a message and sends it. Enter goes separately, once the text shows: typed in the
   * same burst, a CLI takes it for part of a paste and inserts a newline instead. Emacs's
   * term.el draws Claude Code's prompt with a space doubled, and when the prompt is redrawn as
   * it is typed (the selection's mark appearing) may leave a stale character in it: the text
   * shows when one line holds it with at most a few characters more. A prompt redrawn so may
   * also lose a character typed (seen once in a full run): text that does not show is erased
   * and typed again.
   */
  async submit(text: string, timeoutMs = 60_000): Promise<void> {
    await this.type(text);
    await this.retryUntil(
      (screen) => shownOnOneLine(text, screen),
      timeoutMs,
      RETYPE_MS,
      async () => {
        // Backspace past what may have arrived: on an empty prompt it does nothing.
        await this.sendKeys(...Array<string>([...text].length + 8).fill('BSpace'));
        await this.type(text);
      },
    );
    await this.sendKeys('Enter');
  }

  /**
   * Waits until `condition` holds on screen, doing `again` after each `everyMs` it did not; fails
   * as `waitForScreen` does once `timeoutMs` has passed or the pane's command has ended.
   */
  private async retryUntil(
    condition: (screen: string) => boolean,
    timeoutMs: number,
    everyMs: number,
    again: () => Promise<void>,
  ): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() + everyMs < deadline) {
      const held = await this.waitForScreen(condition, everyMs).then(
        () => true,
        () => false,
      );
      if (held || (await this.ending()) !== undefined) break;
      await again();
    }
    await this.waitForScreen(condition, Math.max(1, deadline - Date.now()));
  }

  /**
   * How the pane's command ended ('exit status 3', 'signal 9', or just 'exited': tmux does not
   * always learn the status), or undefined while it runs.
   */
  async ending(): Promise<string | undefined> {
    const format = '#{pane_dead}:#{pane_dead_status}:#{pane_dead_signal}';
    const [dead, status, signal] = (await this.tmux('display-message', '-p', '-t', 'main', format))
      .trim()
      .split(':');
    if (dead !== '1') return undefined;
    if (status) return `exit status ${status}`;
    if (signal) return `signal ${signal}`;
    return 'exited';
  }

  /** Ends the tmux server and every process of the pane; safe to call twice. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    await this.tmux('kill-server').catch(() => undefined);
    await endProcessGroup(this.pid);
  }
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

/** Whether any process of process group `pgid` still exists. */
export function processGroupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

/** tmux sends SIGHUP on kill-server; whatever ignores it gets SIGKILL after a grace period. */
async function endProcessGroup(pgid: number): Promise<void> {
  if (await groupEnds(pgid, 5000)) return;
  try {
    process.kill(-pgid, 'SIGKILL');
  } catch {
    return; // ended in the meantime
  }
  // Bounded: a killed child that nobody reaps stays a zombie and still counts as alive.
  await groupEnds(pgid, 5000);
}

async function groupEnds(pgid: number, withinMs: number): Promise<boolean> {
  const deadline = Date.now() + withinMs;
  while (processGroupAlive(pgid)) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return true;
}
