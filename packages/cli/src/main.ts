import { bridgeCommand } from './bridge/bridge-command.js';
import type { Command, CommandIO } from './command.js';
import { doctorCommand } from './doctor/doctor-command.js';
import { envCommand } from './env/env-command.js';
import { serveCommand } from './serve/serve-command.js';

const commands: Record<string, Command> = {
  serve: {
    summary: 'a companion for a folder, with a review page in the browser',
    run: serveCommand,
  },
  env: {
    summary: 'exports that connect a CLI in this terminal to the editor of a folder',
    run: envCommand,
  },
  doctor: {
    summary: 'why a CLI does or does not connect from a folder, and how to fix it',
    run: doctorCommand,
  },
  bridge: { summary: 'the sidecar a terminal editor talks to over stdio', run: bridgeCommand },
};

const usage = `Usage: tandem <command> [options]

Tandem is an IDE companion for Gemini CLI and Qwen Code, for every editor.

Commands:
${Object.entries(commands)
  .map(([name, { summary }]) => `  ${name.padEnd(8)} ${summary}`)
  .join('\n')}

Run \`tandem <command> --help\` for a command's options.`;

/** Runs the command named by `argv[0]` and returns the exit status. */
export async function main(argv: string[], io: CommandIO): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    (name === undefined ? io.stderr : io.stdout).write(`${usage}\n`);
    return name === undefined ? 2 : 0;
  }
  if (name === '--version' || name === '-v') {
    io.stdout.write(`${process.env.TANDEM_VERSION ?? '0.1.0'}\n`);
    return 0;
  }
  const command = commands[name];
  if (!command) {
    io.stderr.write(`tandem: unknown command ${JSON.stringify(name)}\n\n${usage}\n`);
    return 2;
  }
  return command.run(rest, io);
}
