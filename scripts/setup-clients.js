#!/usr/bin/env node
// Installs the real Gemini CLI, Qwen Code and Claude Code (2.1.332 and 2.1.110) that the tests
// run (packages/testkit/clients), apart from Tandem's own packages: `npm ci` of Tandem installs
// none of them. Does nothing when the installed copy was made from the current lockfile. First
// the Node 24 that Qwen Code needs (it declares node >=22) and that the suite's Node 24 runs use
// (scripts/install-node.sh, once per machine).
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const dir = new URL('../packages/testkit/clients/', import.meta.url).pathname;
const lock = createHash('sha256')
  .update(readFileSync(join(dir, 'package-lock.json')))
  .digest('hex');
// Kept inside node_modules, so that it goes with the installed copy.
const stamp = join(dir, 'node_modules', '.tandem-lock-sha256');

const installNode = new URL('install-node.sh', import.meta.url).pathname;
const node = spawnSync(installNode, [], { stdio: 'inherit' });
if (node.status !== 0) process.exit(node.status ?? 1);

if (existsSync(stamp) && readFileSync(stamp, 'utf8') === lock) process.exit(0);
console.log(
  'Installing the real Gemini CLI, Qwen Code and Claude Code for the tests (about 1 GB)…',
);
// `install --no-save` installs the locked tree and writes nothing tracked: `npm ci` refuses this
// lockfile (it lacks the other platforms' optional clipboard binaries, which npm never records).
// --loglevel=error: the EBADENGINE warnings of these packages are explained in their .npmrc.
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const args = ['install', '--no-save', '--no-audit', '--no-fund', '--loglevel=error'];
const { status } = spawnSync(npm, args, { cwd: dir, stdio: 'inherit' });
if (status !== 0) process.exit(status ?? 1);
writeFileSync(stamp, lock);
