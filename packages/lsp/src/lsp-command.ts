import { realpath } from 'node:fs/promises';
import { stderrLogger, tandemCommandFor } from '@tandem/core';
import {
  ProcessHost,
  type CommandIO,
  parseCommandArgs,
  sidecarEnvironment,
  UsageError,
  withUsage,
} from '@tandem/command';
import {
  checkedLanguages,
  helixConfig,
  helixLanguages,
  helixRunner,
  type HelixRunner,
  type ServerCommand,
} from './helix-config.js';
import { LspServer, STOP_WITHIN_MS } from './lsp-server.js';
import { serveBeyondKill } from './outlive-kill.js';

export const lspUsage = `Usage: tandem lsp [--outlive-editor-kill]
       tandem lsp --config helix [LANGUAGE...]

Runs the language server that an editor's LSP client starts, one per editor window (Helix,
Sublime Text, Zed, JetBrains IDEs with LSP4IJ, Kakoune, Neovim, Emacs eglot, ...). It speaks
LSP 3.17 on stdin and stdout, and logs to stderr. See docs/lsp.md for each editor's set-up.

Gemini CLI and Qwen Code started in the editor's workspace connect to it: they see the open
files, the cursor and the selection, and each edit they propose opens in the editor as a
proposal file. Save it to accept (with your edits), close it unsaved to reject.

--config helix prints the languages.toml entries that add Tandem to Helix's languages (all of
them, or those named), each keeping the language servers Helix has for it (read from
\`hx --health\`), plus a "text" language for .txt files. Helix 25 has no server for every
language, so each language needs its entry.

It exits, rejecting open diffs and removing its files, on \`shutdown\` and \`exit\`, when stdin
closes, when the editor's process dies, and on SIGINT, SIGTERM or SIGHUP.

--outlive-editor-kill runs the server in a process of its own that the editor does not kill:
for editors that kill their servers as they quit without waiting (Helix 25.07), so that open
diffs are still rejected and files removed. --config helix writes it into Helix's entries.

Exit status: 0 after a clean stop, 1 after a fatal error or an \`exit\` without \`shutdown\`,
2 on a usage error.`;

export function lspCommand(argv: string[], io: CommandIO): Promise<number> {
  return withUsage('lsp', lspUsage, io, async () => {
    const { values, positionals } = parseCommandArgs(
      argv,
      { config: { type: 'string' }, 'outlive-editor-kill': { type: 'boolean' } },
      true,
    );
    if (values.config === undefined) {
      if (positionals.length > 0) throw new UsageError(`unexpected argument ${positionals[0]}`);
      const script = process.argv[1];
      if (values['outlive-editor-kill'] && script) return serveBeyondKill(script);
      return runServer(io);
    }
    if (values.config !== 'helix') {
      throw new UsageError(`--config knows helix, not ${JSON.stringify(values.config)}`);
    }
    return printHelixConfig(positionals, io);
  });
}

async function printHelixConfig(only: string[], io: CommandIO): Promise<number> {
  const server = await serverCommand(io.env);
  try {
    const run = await helixProgram(io.env);
    const { kept, lost } = await checkedLanguages(run, await helixLanguages(run, only), server);
    if (lost.length > 0) {
      const names = lost.map(({ name }) => name).join(', ');
      io.stderr.write(`tandem lsp: left out ${names}: see the comment at the top\n`);
    }
    io.stdout.write(helixConfig(kept, server, lost));
    return 0;
  } catch (error) {
    io.stderr.write(
      `tandem lsp: cannot ask Helix for its languages (\`hx --health\`): ${describe(error)}\n`,
    );
    return 1;
  }
}

/** Helix as \`hx\`, or as \`helix\` (its name on some systems). */
async function helixProgram(env: NodeJS.ProcessEnv): Promise<HelixRunner> {
  const hx = helixRunner('hx', env);
  try {
    await hx(['--version']);
    return hx;
  } catch (error) {
    if ((error as { code?: string }).code !== 'ENOENT') throw error;
    return helixRunner('helix', env);
  }
}

/**
 * How Helix starts this Tandem: \`tandem lsp\` when it is on PATH, else through Node; in a
 * process Helix does not kill as it quits; with what every editor adds for a sidecar.
 */
async function serverCommand(env: NodeJS.ProcessEnv): Promise<ServerCommand> {
  const args = ['lsp', '--outlive-editor-kill'];
  const environment = sidecarEnvironment(env);
  const script = process.argv[1];
  if (!script || (await tandemCommandFor(script, env)) === 'tandem') {
    return { command: 'tandem', args, environment };
  }
  return { command: process.execPath, args: [await realpath(script), ...args], environment };
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

async function runServer(io: CommandIO): Promise<number> {
  const log = stderrLogger('tandem lsp');
  const host = new ProcessHost((message) => log.error(message));
  try {
    const server = new LspServer(io.stdin, io.stdout, log);
    void host.stopRequested.then((reason) => server.stop(reason));
    // A stop the editor causes (exit, stdin closed, its process gone) ends within its stated
    // time, as a signal's does within 5 s.
    void server.stopStarted.then(() => host.endWithin(STOP_WITHIN_MS));
    const reason = await server.done;
    // LSP: an `exit` that no `shutdown` came before ends with status 1.
    return reason === 'exit' && !server.cleanExit ? 1 : host.exitStatus;
  } finally {
    host.dispose();
  }
}
