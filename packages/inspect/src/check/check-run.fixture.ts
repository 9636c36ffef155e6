/** Test-only: runs `tandem check` in this process, with a scripted person at the editor. */
import { PassThrough, Writable } from 'node:stream';
import type { CheckReport } from './check-report.js';
import { checkCommand } from './check-command.js';

/** What a person does when asked: `key` is the step (accept, reject, edit, empty, quit). */
export type PersonScript = (key: string, run: { pressEnter(): void }) => Promise<void> | void;

export interface CheckRun {
  status: number;
  stdout: string;
  stderr: string;
  /** The parsed `--json` report, when `--json` was given. */
  report?: CheckReport;
}

export async function runCheck(
  argv: string[],
  options: { env: NodeJS.ProcessEnv; cwd: string; person?: PersonScript },
): Promise<CheckRun> {
  const stdin = new PassThrough();
  let stdout = '';
  let stderr = '';
  const acting: Promise<void>[] = [];
  const pressEnter = () => stdin.write('\n');
  const io = {
    stdin,
    stdout: new Writable({
      write(chunk, _encoding, done) {
        stdout += String(chunk);
        done();
      },
    }),
    stderr: new Writable({
      write(chunk, _encoding, done) {
        const text = String(chunk);
        stderr += text;
        const key = /tandem check ▸ (\w+) /.exec(text)?.[1];
        if (key && options.person) {
          acting.push(Promise.resolve(options.person(key, { pressEnter })));
        }
        done();
      },
    }),
    env: options.env,
    cwd: options.cwd,
  };
  const status = await checkCommand(argv, io);
  await Promise.all(acting);
  return {
    status,
    stdout,
    stderr,
    ...(argv.includes('--json') && status !== 2 && { report: JSON.parse(stdout) as CheckReport }),
  };
}

/** The checks that failed, as `id: detail` lines, for assertion messages. */
export function failures(report: CheckReport | undefined): string[] {
  return (report?.sections ?? [])
    .flatMap((section) => section.checks)
    .filter((check) => check.status === 'fail')
    .map((check) => `${check.id}: ${check.detail}`);
}
