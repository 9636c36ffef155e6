import { stderrLogger } from '@tandem/core';
import { ProcessHost, type CommandIO, parseCommandArgs, withUsage } from '@tandem/command';
import { BridgeSidecar, type SidecarOptions } from './bridge-sidecar.js';

export const bridgeUsage = `Usage: tandem bridge

Runs the sidecar that a terminal editor (Neovim, Vim, Emacs, ...) starts beside itself. It speaks
bridge protocol 1.2 — JSON-RPC 2.0, one message per line — on stdin and stdout, and logs to stderr.
See docs/bridge-protocol.md.

It exits, rejecting open diffs and removing its discovery files, on \`shutdown\`, when stdin
closes, when the editor's process dies, and on SIGINT, SIGTERM or SIGHUP.

Exit status: 0 after a clean stop (whatever asked for it), 1 after a fatal error, 2 on a usage
error.`;

export function bridgeCommand(argv: string[], io: CommandIO): Promise<number> {
  return withUsage('bridge', bridgeUsage, io, async () => {
    parseCommandArgs(argv, {});
    return runSidecar(io);
  });
}

/** The sidecar on `io`'s streams until it stops; its exit status. */
export async function runSidecar(io: CommandIO, options: SidecarOptions = {}): Promise<number> {
  const log = stderrLogger('tandem bridge');
  const host = new ProcessHost((message) => log.error(message));
  try {
    const sidecar = new BridgeSidecar(io.stdin, io.stdout, log, options);
    void host.stopRequested.then((reason) => sidecar.stop(reason));
    // A stop the editor asks for (shutdown, stdin closed) has the same deadline as a signal.
    void sidecar.stopStarted.then((reason) => host.request(reason));
    await sidecar.done;
    return host.exitStatus;
  } finally {
    host.dispose();
  }
}
