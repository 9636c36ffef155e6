import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import type { Command, CommandIO } from './command-io.js';

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
const cwdOption = { cwd: { type: 'string' } } as const;

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

/**
 * A command about one folder: strict `options` plus `--cwd DIR` (an existing directory, the
 * current one by default), run inside `withUsage`.
 */
export function folderCommand<O extends Options>(
  name: string,
  usage: string,
  options: O,
  run: (values: Values<O & typeof cwdOption>, dir: string, io: CommandIO) => Promise<number>,
): Command {
  return (argv, io) =>
    withUsage(name, usage, io, async () => {
      const { values } = parseCommandArgs(argv, { ...options, ...cwdOption });
      const cwd = (values as Values<typeof cwdOption>).cwd;
      return run(values, await existingDirectory(io.cwd, cwd), io);
    });
}

/** `--port`'s value: a TCP port number from 1 to 65535, or a usage error. */
export function portNumber(value: string): number {
  const port = Number(value);
  if (!/^\d+$/.test(value) || port < 1 || port > 65535) {
    throw new UsageError(`--port takes a port number, not ${JSON.stringify(value)}`);
  }
  return port;
}

/** `path` resolved against `cwd`; a usage error unless it is an existing directory. */
export async function existingDirectory(cwd: string, path = '.'): Promise<string> {
  const dir = resolve(cwd, path);
  const info = await stat(dir).catch(() => undefined);
  if (!info) throw new UsageError(`${dir} does not exist`);
  if (!info.isDirectory()) throw new UsageError(`${dir} is not a directory`);
  return dir;
}
