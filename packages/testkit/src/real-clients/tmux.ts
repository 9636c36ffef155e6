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
}

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
  ) {}

  static async start(options: TmuxPaneOptions): Promise<TmuxPane> {
    const socket = path.join(options.dir, 'tmux.sock');
    const config = path.join(options.dir, 'tmux.conf');
    await writeFile(config, serverConfig);
    const args = ['-S', socket, '-f', config, 'new-session', '-d', '-s', 'main'];
    args.push('-x', String(options.width ?? 160), '-y', String(options.height ?? 50));
    args.push('-c', options.cwd, '-P', '-F', '#{pane_pid}', options.shellLine);
    const { stdout } = await run('tmux', args, { env: options.env });
    return new TmuxPane(socket, options.env, Number(stdout.trim()));
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
