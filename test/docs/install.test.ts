/**
 * The README's quick start, run as written by a new user: a fresh HOME, a clone of this
 * checkout (its committed HEAD) for `REPOSITORY`, a PATH with Node and the system's programs
 * only. The `tandem` it puts on the PATH must run. It costs what the user waits for: `npm ci`
 * (from the machine's npm cache, offline when it can) and `npm run build`, about a minute.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, realpathSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { missing, REPO_ROOT, Sandbox } from '@tandem/testkit';

const README = readFileSync(path.join(REPO_ROOT, 'README.md'), 'utf8');

/** The first `sh` block of the README's section `heading`, word for word. */
function firstShellBlock(heading: string): string {
  const section = README.slice(README.indexOf(`\n${heading}\n`));
  const block = /```sh\n([\s\S]*?)```/.exec(section)?.[1];
  assert.ok(block, `README.md has no sh block under ${heading}`);
  return block;
}

const skip = missing(['git', 'npm', 'bash']);

test(
  "the README's quick start puts a working tandem on the PATH, from a clone, in a fresh HOME",
  { skip },
  () => {
    const block = firstShellBlock('## Quick start');
    assert.match(block, /^git clone REPOSITORY ~\/tandem$/m);
    assert.match(block, /^tandem --version$/m);
    const sandbox = new Sandbox('tandem-readme-install-');
    try {
      const home = path.join(sandbox.root, 'fresh-home');
      mkdirSync(home);
      const script = block.replace('REPOSITORY', REPO_ROOT);
      const run = spawnSync('bash', ['-e', '-c', script], {
        cwd: home,
        encoding: 'utf8',
        env: {
          HOME: home,
          // A user's PATH: Node and npm, the system's programs, no tandem and no ~/.local/bin.
          PATH: [path.dirname(process.execPath), '/usr/local/bin', '/usr/bin', '/bin'].join(':'),
          LANG: 'C.UTF-8',
          // The machine's download cache, so that the test does not fetch what it has.
          npm_config_cache: process.env.npm_config_cache ?? path.join(homedir(), '.npm'),
          npm_config_prefer_offline: 'true',
          npm_config_audit: 'false',
          npm_config_fund: 'false',
          npm_config_update_notifier: 'false',
        },
      });
      const output = `${run.stdout}\n${run.stderr}`;
      assert.equal(run.status, 0, output);
      const { version } = JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8'));
      // The last line is `tandem --version`'s, run from the PATH the block set up.
      assert.equal(run.stdout.trim().split('\n').at(-1), version, output);
      const clone = realpathSync(path.join(home, 'tandem'));
      assert.equal(
        realpathSync(path.join(home, '.local', 'bin', 'tandem')),
        path.join(clone, 'packages', 'cli', 'bin', 'tandem.js'),
      );
    } finally {
      sandbox.remove();
    }
  },
);
