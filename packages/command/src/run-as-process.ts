import type { Command } from './command-io.js';

/**
 * Runs a command as this whole process: its arguments, streams, environment and folder, then
 * exits with its status once what was written has left (stdin may still hold the process open).
 */
export async function runAsProcess(command: Command): Promise<never> {
  // A log nobody reads any more (a closed pipe) must not stop a cleanup half way.
  process.stderr.on('error', () => undefined);
  const status = await command(process.argv.slice(2), {
    stdin: process.stdin,
    stdout: process.stdout,
    stderr: process.stderr,
    env: process.env,
    cwd: process.cwd(),
  });
  return new Promise(() => process.stdout.write('', () => process.exit(status)));
}
