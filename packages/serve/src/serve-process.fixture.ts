/** Starts `tandem serve` (from the source) in a child process, for tests. */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { TANDEM } from '@tandem/testkit';

const ENTRY = fileURLToPath(new URL('./serve-command.fixture.ts', import.meta.url));
const TSX = import.meta.resolve('tsx');
const START_TIMEOUT_MS = 30_000;

export interface ServeProcess {
  /** The URL that `tandem serve` printed. */
  url: string;
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Resolves with the exit status once the process has ended. */
  exited: Promise<number | null>;
  /** Sends `signal` and resolves with the exit status. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/**
 * Runs `tandem serve ARGS` in `cwd` and resolves once it printed its URL; `openFiles` limits its
 * file descriptors, and then the bundle runs, as users run it: from the source, the first CLI's
 * connection would open the forty-odd module files it loads at once, which the bundle never does.
 */
export async function startServe(
  args: string[],
  options: { cwd: string; env: NodeJS.ProcessEnv; openFiles?: number },
): Promise<ServeProcess> {
  const argv =
    options.openFiles === undefined
      ? [process.execPath, '--import', TSX, ENTRY, ...args]
      : [process.execPath, TANDEM, 'serve', ...args];
  const [program, ...rest] =
    options.openFiles === undefined
      ? argv
      : ['sh', '-c', `ulimit -n ${options.openFiles} && exec "$@"`, 'sh', ...argv];
  const child = spawn(program!, rest, {
    cwd: options.cwd,
    env: options.env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  const url = await new Promise<string>((resolve, reject) => {
    let settled = false;
    const settle = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      outcome();
    };
    const fail = (why: string) =>
      settle(() => {
        child.kill('SIGKILL');
        reject(new Error(`tandem serve ${why} before printing its URL:\n${stdout}\n${stderr}`));
      });
    const timer = setTimeout(() => fail('timed out'), START_TIMEOUT_MS);
    child.stdout!.on('data', () => {
      const found = /Review page: (\S+)/.exec(stdout)?.[1];
      if (found) settle(() => resolve(found));
    });
    void exited.then((code) => fail(`exited (${code})`));
  });
  return {
    url,
    child,
    stdout: () => stdout,
    stderr: () => stderr,
    exited,
    stop: (signal = 'SIGTERM') => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}
