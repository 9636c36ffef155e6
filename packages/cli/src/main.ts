import { type Command, type CommandIO } from '@tandem/command';
import cliPackage from '../package.json' with { type: 'json' };

const summaries = {
  serve: 'a companion for a folder, with a review page in the browser',
  env: 'exports that connect a CLI in this terminal to the editor of a folder',
  doctor: 'why a CLI does or does not connect from a folder, and how to fix it',
  check: 'whether a companion gives the real CLIs what they need, check by check',
  bridge: 'the sidecar a terminal editor talks to over stdio',
  lsp: 'the language server an editor with an LSP client starts',
};
type CommandName = keyof typeof summaries;

/**
 * A command's code, loaded when it runs: the sidecar, started with every editor, carries no
 * other command's code and dependencies in its memory.
 */
async function load(name: CommandName): Promise<Command> {
  if (name === 'serve') return (await import('@tandem/serve')).serveCommand;
  if (name === 'bridge') return (await import('@tandem/bridge')).bridgeCommand;
  if (name === 'lsp') return (await import('@tandem/lsp')).lspCommand;
  const { envCommand, doctorCommand, checkCommand } = await import('@tandem/inspect');
  return { env: envCommand, doctor: doctorCommand, check: checkCommand }[name];
}

const usage = `Usage: tandem <command> [options]

Tandem is an IDE companion for Gemini CLI, Qwen Code and Claude Code, for every editor.

Commands:
${Object.entries(summaries)
  .map(([name, summary]) => `  ${name.padEnd(8)} ${summary}`)
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
    // Every package carries the one version (scripts/release/version.test.ts).
    io.stdout.write(`${cliPackage.version}\n`);
    return 0;
  }
  if (!Object.hasOwn(summaries, name)) {
    io.stderr.write(`tandem: unknown command ${JSON.stringify(name)}\n\n${usage}\n`);
    return 2;
  }
  return (await load(name as CommandName))(rest, io);
}
