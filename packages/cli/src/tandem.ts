import { main } from './main.js';

// A log nobody reads any more (a closed pipe) must not stop a cleanup half way.
process.stderr.on('error', () => undefined);

const status = await main(process.argv.slice(2), {
  stdin: process.stdin,
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
  cwd: process.cwd(),
});
// Exit once what was written has left: stdin may still hold the process open.
process.stdout.write('', () => process.exit(status));
