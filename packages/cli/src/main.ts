import { type Command, type CommandIO } from '@tandem/command';

// Each command is loaded when it runs: the sidecar, started with every editor, carries no
// other command's code and dependencies in its memory.
const commands: Record<string, Command> = {
  serve: {
    summary: 'a companion for a folder, with a review page in the browser',
    run: async (argv, io) => (await import('@tandem/serve')).serveCommand(argv, io),
  },
  env: {
    summary: 'exports that connect a CLI in this terminal to the editor of a folder',
    run: async (argv, io) => (await import('@tandem/inspect')).envCommand(argv, io),
  },
  doctor: {
    summary: 'why a CLI does or does not connect from a folder, and how to fix it',
    run: async (argv, io) => (await import('@tandem/inspect')).doctorCommand(argv, io),
  },
  check: {
    summary: 'whether a companion gives the real CLIs what they need, check by check',
    run: async (argv, io) => (await import('@tandem/inspect')).checkCommand(argv, io),
  },
  bridge: {
    summary: 'the sidecar a terminal editor talks to over stdio',
    run: async (argv, io) => (await import('@tandem/bridge')).bridgeCommand(argv, io),
  },
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
