/**
 * One version for the whole project: the repository's `package.json` names it, and everything
 * that carries a version says the same.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import { TESTED_VSCODE_VERSION } from '@tandem/testkit';

const repository = fileURLToPath(new URL('../..', import.meta.url));
const read = (path: string) => readFileSync(join(repository, path), 'utf8');
const manifest = (path: string) => JSON.parse(read(path)) as Record<string, unknown>;
const { version } = manifest('package.json');

test('every package carries the repository version', () => {
  // The testkit is never released.
  for (const dir of readdirSync(join(repository, 'packages')).filter((d) => d !== 'testkit')) {
    const path = `packages/${dir}/package.json`;
    assert.equal(manifest(path).version, version, path);
  }
});

test("the Emacs package's Version: header is the repository version", () => {
  assert.match(read('emacs/tandem.el'), new RegExp(`^;; Version: ${version}$`, 'm'));
});

test('CHANGELOG.md has the version as its newest release', () => {
  const releases = [...read('CHANGELOG.md').matchAll(/^## \[(.+?)\]/gm)].map((m) => m[1]);
  assert.deepEqual(releases.slice(0, 2), ['Unreleased', version]);
});

test('`tandem --version` prints it', () => {
  const out = execFileSync(process.execPath, [
    join(repository, 'packages/cli/bin/tandem.js'),
    '--version',
  ]);
  assert.equal(out.toString(), `${version}\n`);
});

test("the extension's engines.vscode is the oldest VS Code it is tested in", () => {
  const { engines } = manifest('packages/vscode/package.json') as { engines: { vscode: string } };
  assert.equal(engines.vscode, `^${TESTED_VSCODE_VERSION}`);
});
