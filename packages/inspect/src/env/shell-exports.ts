import { basename } from 'node:path';
import { shellQuote } from '@tandem/command';

export const SHELLS = ['bash', 'zsh', 'fish'] as const;
export type Shell = (typeof SHELLS)[number];

/** The user's shell from `$SHELL`; any other POSIX shell reads bash's syntax. */
export function shellFromEnv(env: NodeJS.ProcessEnv): Shell {
  const name = basename(env.SHELL ?? '');
  return name === 'zsh' || name === 'fish' ? name : 'bash';
}

/**
 * Shell code that sets each variable with a value and unsets each one without, so that running
 * it twice, for two editors, leaves nothing of the first. Unsets come first: the code's exit
 * status is that of its last assignment.
 */
export function renderExports(variables: Record<string, string | undefined>, shell: Shell): string {
  const entries = Object.entries(variables);
  const unsets = entries.filter(([, value]) => value === undefined).map(([name]) => name);
  const sets = entries.filter((entry): entry is [string, string] => entry[1] !== undefined);
  const lines =
    shell === 'fish'
      ? [
          ...unsets.map((name) => `set -e ${name};`),
          ...sets.map(([name, value]) => `set -gx ${name} ${quote(value, shell)};`),
        ]
      : [
          ...unsets.map((name) => `unset ${name};`),
          ...sets.map(([name, value]) => `export ${name}=${quote(value, shell)};`),
        ];
  return lines.map((line) => `${line}\n`).join('');
}

function quote(value: string, shell: Shell): string {
  return shellQuote(value, shell === 'fish' ? 'fish' : 'posix');
}
