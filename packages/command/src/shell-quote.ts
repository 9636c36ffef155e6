import { basename } from 'node:path';

/** The shells whose quoting Tandem writes: POSIX shells (bash, zsh, dash, sh) and fish. */
export type QuotingShell = 'posix' | 'fish';

/**
 * One word that the shell reads back as exactly `value`: left bare when it is plainly safe,
 * single-quoted otherwise.
 */
export function shellQuote(value: string, shell: QuotingShell = 'posix'): string {
  if (/^[\w@%+=:,./-]+$/.test(value)) return value;
  if (shell === 'fish') return `'${value.replace(/[\\']/g, (char) => `\\${char}`)}'`;
  return `'${value.replaceAll("'", `'\\''`)}'`;
}

/** The quoting of the user's shell, from `$SHELL`: fish's, or a POSIX shell's. */
export function quotingShellOf(env: NodeJS.ProcessEnv): QuotingShell {
  return basename(env.SHELL ?? '') === 'fish' ? 'fish' : 'posix';
}
