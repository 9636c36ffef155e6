import type { Readable, Writable } from 'node:stream';

/** What a command may touch of its process: the rest comes in through its arguments. */
export interface CommandIO {
  stdin: Readable;
  stdout: Writable;
  stderr: Writable;
  env: NodeJS.ProcessEnv;
  cwd: string;
}

/** A `tandem` command: its arguments and its process in, its exit status out. */
export type Command = (argv: string[], io: CommandIO) => Promise<number>;
