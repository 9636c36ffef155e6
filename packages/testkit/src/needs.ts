import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { test } from 'node:test';

/** Whether a program is on PATH (or, given as a path, exists). */
export function installed(program: string): boolean {
  if (program.includes('/')) return existsSync(program);
  return (
    spawnSync('sh', ['-c', 'command -v "$1"', 'sh', program], { stdio: 'ignore' }).status === 0
  );
}

/**
 * Why the tests of a file cannot run here (programs missing), or `false`. Locally the caller
 * skips them with that reason, printed; when CI is set a missing program is a failure, so this
 * also registers a failing test that says what is missing.
 */
export function missing(programs: string[], alsoMissing: string[] = []): string | false {
  const reasons = [
    ...programs.filter((program) => !installed(program)).map((p) => `${p} is not installed`),
    ...alsoMissing,
  ];
  if (reasons.length === 0) return false;
  const reason = reasons.join('; ');
  if (process.env.CI) {
    test(`prerequisites (${reason})`, () => {
      throw new Error(`${reason}: CI is set, so a missing program fails the tests`);
    });
  } else {
    console.log(`# skipping: ${reason}`);
  }
  return reason;
}

/** For one test: whether `program` is installed; if not, skips the test (fails it under CI). */
export function needsProgram(t: { skip(message?: string): void }, program: string): boolean {
  if (installed(program)) return true;
  if (process.env.CI) throw new Error(`${program} is not installed (required when CI is set)`);
  t.skip(`${program} is not installed`);
  return false;
}
