import { readdirSync, readFileSync } from 'node:fs';

/** The environment process `pid` started with (Linux: /proc/PID/environ). */
export function processEnvironment(pid: number): Record<string, string> {
  const entries = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').filter(Boolean);
  return Object.fromEntries(
    entries.map((entry) => {
      const equals = entry.indexOf('=');
      return [entry.slice(0, equals), entry.slice(equals + 1)];
    }),
  );
}

/**
 * The processes whose command line and environment `match` (Linux: /proc); those this user may
 * not read, or that end while read, are not.
 */
export function processesWhere(
  match: (argv: string[], environment: Record<string, string>) => boolean,
): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .map(Number)
    .filter((pid) => {
      try {
        const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').slice(0, -1);
        return match(argv, processEnvironment(pid));
      } catch {
        return false;
      }
    });
}
