import { mkdir, readFile, realpath } from 'node:fs/promises';
import { dirname } from 'node:path';
import { homedir } from 'node:os';
import { stderrLogger, tandemCommandFor, writeFileAtomic } from '@tandem/core';
import {
  ProcessHost,
  type CommandIO,
  parseCommandArgs,
  sidecarEnvironment,
  UsageError,
  withUsage,
} from '@tandem/command';
import {
  checkedSection,
  findHelix,
  HelixNotFoundError,
  HelixRefusedError,
} from './helix-config.js';
import {
  helixLanguagesFile,
  LanguagesFileError,
  withTandemSection,
  type ServerCommand,
} from './helix-languages-toml.js';
import { LspServer, STOP_WITHIN_MS } from './lsp-server.js';
import { serveBeyondKill } from './outlive-kill.js';

export const lspUsage = `Usage: tandem lsp [--outlive-editor-kill]
       tandem lsp --config helix [--write] [LANGUAGE...]

Runs the language server that an editor's LSP client starts, one per editor window (Helix,
Sublime Text, Zed, JetBrains IDEs with LSP4IJ, Kakoune, Neovim, Emacs eglot, ...). It speaks
LSP 3.17 on stdin and stdout, and logs to stderr. See docs/lsp.md for each editor's set-up.

Gemini CLI and Qwen Code started in the editor's workspace connect to it: they see the open
files, the cursor and the selection, and each edit they propose opens in the editor as a
proposal file. Save it to accept (with your edits), close it unsaved to reject.

--config helix prints the languages.toml entries that add Tandem to Helix's languages (all of
them, or those named), each keeping the language servers Helix has for it (read from
\`hx --health\`), plus a "text" language for .txt files. Helix 25 has no server for every
language, so each language needs its entry. With --write, they go into Helix's own
languages.toml (~/.config/helix, or $XDG_CONFIG_HOME/helix), in a section of their own that
each run rewrites, the rest of the file kept as it was; Helix reads it as it starts.

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
      {
        config: { type: 'string' },
        write: { type: 'boolean' },
        'outlive-editor-kill': { type: 'boolean' },
      },
      true,
    );
    if (values.config === undefined) {
      if (positionals.length > 0) throw new UsageError(`unexpected argument ${positionals[0]}`);
      if (values.write) throw new UsageError('--write goes with --config helix');
      const script = process.argv[1];
      if (values['outlive-editor-kill'] && script) return serveBeyondKill(script);
      return runServer(io);
    }
    if (values.config !== 'helix') {
      throw new UsageError(`--config knows helix, not ${JSON.stringify(values.config)}`);
    }
    return helixConfig(positionals, values.write ?? false, io);
  });
}

/** `--config helix`: Tandem's section, printed or written into Helix's `languages.toml`. */
async function helixConfig(only: string[], write: boolean, io: CommandIO): Promise<number> {
  const file = helixLanguagesFile(io.env, io.env.HOME || homedir());
  try {
    const run = await findHelix(io.env);
    // A linked file (dotfiles) is written where it lies, and stays linked.
    const target = await realpath(file).catch(() => file);
    const before = await textOf(target);
    const checked = await checkedSection(run, before, await serverCommand(io.env), only);
    if (checked.lost.length > 0) {
      const names = checked.lost.map(({ name }) => name).join(', ');
      io.stderr.write(`tandem lsp: left out ${names}: see the comment at the top\n`);
    }
    if (!write) {
      io.stdout.write(checked.section);
      return 0;
    }
    if ((await textOf(target)) !== before) {
      throw new LanguagesFileError('it changed while Helix was asked: run this again');
    }
    // A fresh HOME has no ~/.config/helix yet.
    await mkdir(dirname(target), { recursive: true, mode: 0o700 });
    await writeFileAtomic(target, withTandemSection(before, checked.section));
    io.stderr.write(
      `tandem lsp: Tandem's section of ${file} adds Tandem to ${checked.languages} languages; ` +
        'Helix reads it as it starts.\n',
    );
    return 0;
  } catch (error) {
    if (error instanceof LanguagesFileError) {
      io.stderr.write(`tandem lsp: ${file} is left as it was: ${error.message}\n`);
    } else if (error instanceof HelixNotFoundError || error instanceof HelixRefusedError) {
      io.stderr.write(`tandem lsp: ${error.message}\n`);
    } else {
      io.stderr.write(
        `tandem lsp: cannot ask Helix for its languages (\`hx --health\`): ${describe(error)}\n`,
      );
    }
    return 1;
  }
}

/** The text of `file`, '' when there is none. */
async function textOf(file: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    if ((error as { code?: string }).code === 'ENOENT') return '';
    throw error;
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
