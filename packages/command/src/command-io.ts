import type { Readable, Writable } from 'node:stream';

/** What a command may touch of its process: the rest comes in through its arguments. */
export interface CommandIO {
  stdin: Readable;
  stdout: Writable;
  stderr: Writable;
  env: NodeJS.ProcessEnv;
  cwd: string;
}

export interface Command {
  summary: string;
  run(argv: string[], io: CommandIO): Promise<number>;
}
