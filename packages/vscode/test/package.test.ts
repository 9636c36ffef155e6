/**
 * The .vsix as the Marketplace and Open VSX take it: vsce packages it without a warning, with
 * the license, a 128×128 icon and the README.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { missing, pngSize, Sandbox } from '@tandem/testkit';

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
    assert.deepEqual(pngSize(path.join(PACKAGE, 'images/icon.png')), { width: 128, height: 128 });
  },
);
