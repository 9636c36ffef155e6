/**
 * The .vsix as the Marketplace and Open VSX take it: vsce packages it without a warning, with
 * the license, a 128×128 icon and the README.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { missing, Sandbox } from '@tandem/testkit';

const PACKAGE = fileURLToPath(new URL('..', import.meta.url));
const VSCE = fileURLToPath(new URL('../../../node_modules/.bin/vsce', import.meta.url));
const BUNDLE = path.join(PACKAGE, 'dist/extension.cjs');
const sandbox = new Sandbox('tandem-vsce-');
after(() => sandbox.remove());

test(
  'vsce packages the extension without a warning, with its license, icon and README',
  {
    skip: missing([], existsSync(BUNDLE) ? [] : [`${BUNDLE} is not built (npm run build)`]),
  },
  () => {
    const out = path.join(sandbox.root, 'tandem-companion.vsix');
    const packaged = spawnSync(
      VSCE,
      ['package', '--no-dependencies', '--allow-missing-repository', '--out', out],
      { cwd: PACKAGE, encoding: 'utf8' },
    );
    assert.equal(packaged.status, 0, packaged.stderr);
    assert.doesNotMatch(packaged.stdout + packaged.stderr, /WARNING/);
    const listed = spawnSync(VSCE, ['ls', '--no-dependencies'], { cwd: PACKAGE, encoding: 'utf8' });
    const files = listed.stdout.split('\n');
    for (const file of ['LICENSE', 'README.md', 'images/icon.png', 'dist/extension.cjs']) {
      assert.ok(files.includes(file), `${file} in ${files.join(', ')}`);
    }
    // The PNG header: width and height, big-endian, at bytes 16 and 20.
    const icon = readFileSync(path.join(PACKAGE, 'images/icon.png'));
    assert.deepEqual([icon.readUInt32BE(16), icon.readUInt32BE(20)], [128, 128]);
  },
);
