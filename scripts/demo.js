#!/usr/bin/env node
// `npm run demo`: `tandem serve` on a fresh copy of examples/workspace, so that the edits you
// accept change the copy, never the repository (and the next demo starts from the example again).
import { spawn } from 'node:child_process';
import { cpSync, mkdtempSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const repository = fileURLToPath(new URL('..', import.meta.url));
const copy = join(realpathSync(mkdtempSync(join(tmpdir(), 'tandem-demo-'))), 'workspace');
cpSync(join(repository, 'examples', 'workspace'), copy, { recursive: true });
process.stdout.write(`A fresh copy of examples/workspace: ${copy}\n\n`);

const serve = spawn(
  process.execPath,
  [
    join(repository, 'packages', 'cli', 'bin', 'tandem.js'),
    'serve',
    copy,
    ...process.argv.slice(2),
  ],
  // A process group of its own: each signal reaches it once, from here (a second one would cut
  // its clean-up short).
  { stdio: 'inherit', detached: true },
);
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(signal, () => serve.kill(signal));
}
serve.on('exit', (code, signal) => {
  process.stdout.write(`\nThe demo's copy stays in ${copy} (the repository is unchanged).\n`);
  process.exit(code ?? (signal ? 1 : 0));
});
