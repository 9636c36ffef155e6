/** Test-only: runs shell code in a real shell and reads back what it set. */
import { spawnSync } from 'node:child_process';
import type { TestContext } from 'node:test';

export type ShellProgram = 'bash' | 'dash' | 'zsh' | 'fish';

/** Whether the shell is installed; when it is not, skips the test (fails it when CI is set). */
export function needShell(t: TestContext, shell: ShellProgram): boolean {
  if (spawnSync(shell, ['-c', 'exit 0']).status === 0) return true;
  if (process.env.CI) throw new Error(`${shell} is not installed (CI must install it)`);
  t.skip(`${shell} is not installed`);
  return false;
}

/**
 * Runs `code` in `shell` with `preset` variables already exported (as `eval`/`source` would in
 * the user's shell), then reports each of `names`: its value, or undefined when unset.
 */
export function evaluate(
  shell: ShellProgram,
  code: string,
  names: string[],
  preset: Record<string, string> = {},
): Record<string, string | undefined> {
  const report =
    shell === 'fish'
      ? names.map(
          (name) =>
            `if set -q ${name}; printf 'set:%s\\0' "$${name}"; else; printf 'unset\\0'; end`,
        )
      : names.map(
          (name) =>
            `if [ -n "\${${name}+x}" ]; then printf 'set:%s\\0' "$${name}"; else printf 'unset\\0'; fi`,
        );
  const script =
    shell === 'fish'
      ? `printf '%s' $TANDEM_TEST_CODE | source\n${report.join('\n')}`
      : `eval "$TANDEM_TEST_CODE"\n${report.join('\n')}`;
  const result = spawnSync(shell, ['-c', script], {
    env: { PATH: process.env.PATH, LANG: 'C.UTF-8', ...preset, TANDEM_TEST_CODE: code },
    encoding: 'utf8',
  });
  if (result.status !== 0) {
    throw new Error(`${shell} failed (${result.status}): ${result.stderr}\n--- code:\n${code}`);
  }
  const values = result.stdout.split('\0').slice(0, names.length);
  return Object.fromEntries(
    names.map((name, index) => {
      const value = values[index] ?? '';
      return [name, value.startsWith('set:') ? value.slice(4) : undefined];
    }),
  );
}
