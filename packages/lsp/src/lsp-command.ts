import { stderrLogger } from '@tandem/core';
import { ProcessHost, type CommandIO, parseCommandArgs, withUsage } from '@tandem/command';
import { LspServer } from './lsp-server.js';

export const lspUsage = `Usage: tandem lsp

Runs the language server that an editor's LSP client starts, one per editor window (Helix,
Sublime Text, Zed, JetBrains IDEs with LSP4IJ, Kakoune, Neovim, Emacs eglot, ...). It speaks
LSP 3.17 on stdin and stdout, and logs to stderr. See docs/lsp.md for each editor's set-up.

Gemini CLI and Qwen Code started in the editor's workspace connect to it: they see the open
files, the cursor and the selection, and each edit they propose opens in the editor as a
proposal file. Save it to accept (with your edits), close it unsaved to reject.

It exits, rejecting open diffs and removing its files, on \`shutdown\` and \`exit\`, when stdin
closes, when the editor's process dies, and on SIGINT, SIGTERM or SIGHUP.

Exit status: 0 after a clean stop, 1 after a fatal error or an \`exit\` without \`shutdown\`,
2 on a usage error.`;

export function lspCommand(argv: string[], io: CommandIO): Promise<number> {
  return withUsage('lsp', lspUsage, io, async () => {
    parseCommandArgs(argv, {});
    return runServer(io);
  });
}

async function runServer(io: CommandIO): Promise<number> {
  const log = stderrLogger('tandem lsp');
  const host = new ProcessHost((message) => log.error(message));
  try {
    const server = new LspServer(io.stdin, io.stdout, log);
    void host.stopRequested.then((reason) => server.stop(reason));
    const reason = await server.done;
    // LSP: an `exit` that no `shutdown` came before ends with status 1.
    return reason === 'exit' && !server.cleanExit ? 1 : host.exitStatus;
  } finally {
    host.dispose();
  }
}
