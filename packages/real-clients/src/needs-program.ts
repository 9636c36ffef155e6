import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import type { TestContext } from 'node:test';

/**
 * Whether an installed program a test needs is on PATH. If it is missing the test is skipped
 * with the reason, except when CI is set: there a missing program fails the test.
 */
export function needsProgram(t: TestContext, program: string): boolean {
  const found = spawnSync('sh', ['-c', 'command -v "$1"', 'sh', program]).status === 0;
  if (found) return true;
  if (process.env.CI) assert.fail(`${program} is not installed (required when CI is set)`);
  t.skip(`${program} is not installed`);
  return false;
}
