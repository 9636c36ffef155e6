import { type CommandIO, folderCommand, portNumber, printable, UsageError } from '@tandem/command';
import { checkFiles, groupByPort, Prober, type Companion } from '../scan/companions.js';
import { claudePortFor } from '../scan/claude-locks.js';
import { scanDiscoveryFiles } from '../scan/discovery-files.js';
import {
  CLAUDE_PORT_VARIABLE,
  CLAUDE_SKIP_EXTENSION_INSTALL,
  containerFacts,
  containerTerminalVariables,
  discoveryLocations,
  mayPointTo,
} from '@tandem/core';
import { editorsFor, variablesFor, type EditorMatch } from './editor-choice.js';
import { renderExports, shellFromEnv, SHELLS, type Shell } from './shell-exports.js';

export const envUsage = `Usage: tandem env [--cwd DIR] [--shell bash|zsh|fish] [--port N]

Prints the shell code that makes Gemini CLI, Qwen Code or Claude Code, started in THIS terminal (a tmux pane,
another window), connect to the editor that has DIR open:

  eval "$(tandem env)"                 bash, zsh
  tandem env --shell fish | source     fish

It chooses among the running editor companions whose workspace contains DIR: the one with the
most specific folder, then the newest. When several match it lists them on stderr; pick one
with --port. Variables set: GEMINI_CLI_IDE_SERVER_PORT, GEMINI_CLI_IDE_WORKSPACE_PATH,
GEMINI_CLI_IDE_PID, QWEN_CODE_IDE_SERVER_PORT, QWEN_CODE_IDE_WORKSPACE_PATH,
CLAUDE_CODE_SSE_PORT (those that do not apply to the chosen editor are unset), with it
CLAUDE_CODE_IDE_SKIP_AUTO_INSTALL=1, and in a container REMOTE_CONTAINERS=true, so that
Gemini CLI dials 127.0.0.1 where the editor listens instead of host.docker.internal. No token
is exported: the CLIs read it from the editor's discovery file.

Options:
  --cwd DIR      the folder the CLI will run in (default: the current directory)
  --shell NAME   bash, zsh or fish (default: from $SHELL, else bash)
  --port N       the editor companion listening on port N
  -h, --help     show this help

Exit status: 0 with the exports on stdout; 1 when no running editor has DIR open (or the one on
--port does not), with the reason on stderr; 2 on a usage error.`;

export const envCommand = folderCommand(
  'env',
  envUsage,
  { shell: { type: 'string' }, port: { type: 'string' } },
  (values, dir, io) => {
    const shell = values.shell ?? shellFromEnv(io.env);
    if (!(SHELLS as readonly string[]).includes(shell)) {
      throw new UsageError(`unknown shell ${JSON.stringify(shell)}: use bash, zsh or fish`);
    }
    const port = values.port === undefined ? undefined : portNumber(values.port);
    return exportsFor(dir, shell as Shell, port, io);
  },
);

async function exportsFor(
  dir: string,
  shell: Shell,
  port: number | undefined,
  io: CommandIO,
): Promise<number> {
  const locations = discoveryLocations(io.env, dir);
  const scanned = await scanDiscoveryFiles(locations);
  const files = await checkFiles(scanned.filter(mayPointTo), new Prober());
  const foreign = scanned.length - files.length;
  const companions = groupByPort(files);
  const editors = editorsFor(companions, dir);
  // These messages reach the terminal even under `eval "$(tandem env)"`: each line, whatever
  // of a discovery file it holds, stays one line of plain text.
  const fail = (lines: string[]) => {
    io.stderr.write(`tandem env: ${lines.map(printable).join('\n')}\n`);
    return 1;
  };

  let chosen: EditorMatch | undefined;
  if (port !== undefined) {
    chosen = editors.find((editor) => editor.companion.port === port);
    if (!chosen) return fail([portProblem(companions, port, dir)]);
  } else {
    chosen = editors[0];
    if (!chosen) return fail(noEditorProblem(companions, dir, foreign));
    if (editors.length > 1)
      io.stderr.write(`${severalEditors(editors).map(printable).join('\n')}\n`);
  }
  // This terminal runs where the editor's companion listens, so Gemini CLI must dial 127.0.0.1.
  const container = containerTerminalVariables(containerFacts(io.env));
  const token = chosen.companion.files.find((file) => file.fields.authToken)?.fields.authToken;
  const claudePort = await claudePortFor(io.env, token);
  const claude = {
    [CLAUDE_PORT_VARIABLE]: claudePort === undefined ? undefined : String(claudePort),
    // As in the editor's own terminals; a user's own setting is left alone otherwise.
    ...(claudePort !== undefined && {
      [CLAUDE_SKIP_EXTENSION_INSTALL.name]: CLAUDE_SKIP_EXTENSION_INSTALL.value,
    }),
  };
  const variables = { ...variablesFor(chosen.companion), ...claude, ...container };
  io.stdout.write(renderExports(variables, shell));
  return 0;
}

/** Name, editor PID and port: two editors on one folder differ by more than a number. */
function describe(companion: Companion): string {
  const name = companion.ideInfo?.displayName ?? 'an editor companion';
  const pids = companion.files.flatMap((file) => file.processes);
  const editor =
    pids.find((process) => process.role === 'editor' && process.alive) ??
    pids.find((process) => process.role === 'writer' && process.alive);
  return `${name}${editor ? ` (PID ${editor.pid})` : ''} on port ${companion.port}`;
}

function severalEditors(editors: EditorMatch[]): string[] {
  const lines = editors.map(
    (editor, index) =>
      `  ${index === 0 ? '*' : ' '} --port ${editor.companion.port}  ${describe(editor.companion)}, folder ${editor.root}`,
  );
  return [
    `tandem env: ${editors.length} editors have this folder open; using the first (choose with --port):`,
    ...lines,
  ];
}

function noEditorProblem(companions: Companion[], dir: string, foreign: number): string[] {
  const live = companions.filter((companion) => companion.live);
  const stale = companions.length - live.length;
  const lines = [`no running editor has ${dir} open.`];
  if (live.length > 0) {
    lines.push('Running editors and their folders:');
    for (const companion of live) lines.push(`  ${describe(companion)}: ${workspaceOf(companion)}`);
    lines.push(
      'Open this folder (or a parent) in one of them, or run the CLI inside one of those folders.',
    );
  } else {
    lines.push(
      'No editor companion is running. Open the folder in your editor with its companion first.',
    );
  }
  if (stale > 0)
    lines.push(
      `(${stale} stale discovery file set${stale > 1 ? 's' : ''} ignored; see tandem doctor.)`,
    );
  if (foreign > 0)
    lines.push(
      `(${foreign} discovery file${foreign > 1 ? 's' : ''} of another user ignored; see tandem doctor.)`,
    );
  return lines;
}

function portProblem(companions: Companion[], port: number, dir: string): string {
  const companion = companions.find((candidate) => candidate.port === port);
  if (!companion) return `no discovery file names port ${port}.`;
  if (!companion.live) {
    const why = companion.files.map((file) => file.staleBecause).find(Boolean);
    return `the companion on port ${port} is not running (${why}).`;
  }
  return `${describe(companion)} does not have ${dir} open (its folders: ${workspaceOf(companion)}).`;
}

function workspaceOf(companion: Companion): string {
  const paths = companion.files.map((file) => file.fields.workspacePath).filter(Boolean);
  return paths[0] || '(no folder)';
}
