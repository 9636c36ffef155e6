import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import type { CommandIO } from './command-io.js';

/** A mistake in how a command was called: reported with the command's usage, status 2. */
export class UsageError extends Error {}

/** `--help` was given: the usage goes to stdout, status 0. */
class HelpRequested extends Error {}

type Options = Record<string, { type: 'string' | 'boolean'; short?: string }>;
/** What each option holds once parsed: absent, a string, or `true`. */
type Values<O extends Options> = {
  [K in keyof O]?: O[K]['type'] extends 'boolean' ? boolean : string;
};
const help = { help: { type: 'boolean', short: 'h' } } as const;

/**
 * Runs a command's body, answering `--help` with its usage and a `UsageError` with the message
 * and the usage, the way every `tandem` command does.
 */
export async function withUsage(
  name: string,
  usage: string,
  io: CommandIO,
  run: () => Promise<number>,
): Promise<number> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof HelpRequested) {
      io.stdout.write(`${usage}\n`);
      return 0;
    }
    if (!(error instanceof UsageError)) throw error;
    io.stderr.write(`tandem ${name}: ${error.message}\n\n${usage}\n`);
    return 2;
  }
}

/** Parses `argv` strictly, with `--help`/`-h` added; inside `withUsage`. */
export function parseCommandArgs<O extends Options>(
  argv: string[],
  options: O,
  allowPositionals = false,
): { values: Values<O>; positionals: string[] } {
  const config: ParseArgsConfig = {
    args: argv,
    options: { ...options, ...help },
    strict: true,
    allowPositionals,
  };
  let parsed;
  try {
    parsed = parseArgs(config);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  if (parsed.values.help) throw new HelpRequested();
  return { values: parsed.values as Values<O>, positionals: parsed.positionals };
}

/** `path` resolved against `cwd`; a usage error unless it is an existing directory. */
export async function existingDirectory(cwd: string, path = '.'): Promise<string> {
  const dir = resolve(cwd, path);
  const info = await stat(dir).catch(() => undefined);
  if (!info) throw new UsageError(`${dir} does not exist`);
  if (!info.isDirectory()) throw new UsageError(`${dir} is not a directory`);
  return dir;
}
