/** Runs `tandem serve` from the source, as the bundle's entry would: for tests. */
import { serveCommand } from './serve-command.js';

const status = await serveCommand(process.argv.slice(2), {
  stdin: process.stdin,
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
  cwd: process.cwd(),
});
process.stdout.write('', () => process.exit(status));
