import { spawn } from 'node:child_process';

const FORWARDED_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/**
 * `tandem lsp --outlive-editor-kill`: the server runs in a child process, in a session of its
 * own, on this process's stdin and stdout; this process only waits for it and passes signals
 * on. An editor that kills its servers as it quits, without waiting for them (Helix 25.07
 * writes `shutdown` and `exit` and kills at once), kills this process alone: the server then
 * sees its input end and cleans up as always — open diffs rejected, files removed.
 */
export function serveBeyondKill(script: string): Promise<number> {
  const child = spawn(process.execPath, [script, 'lsp'], { stdio: 'inherit', detached: true });
  const forward = (signal: NodeJS.Signals) => child.kill(signal);
  for (const signal of FORWARDED_SIGNALS) process.on(signal, forward);
  return new Promise((resolve) => {
    const done = (status: number) => {
      for (const signal of FORWARDED_SIGNALS) process.off(signal, forward);
      resolve(status);
    };
    child.once('error', () => done(1));
    child.once('exit', (code) => done(code ?? 1));
  });
}
