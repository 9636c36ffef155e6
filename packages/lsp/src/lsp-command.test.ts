/** `tandem lsp` as a shell user calls it: `--help`, usage errors and their exit statuses. */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { TANDEM } from '@tandem/testkit';

function tandem(...args: string[]) {
  return spawnSync(process.execPath, [TANDEM, ...args], { encoding: 'utf8', input: '' });
}

test('--help prints the usage, status 0', () => {
  const run = tandem('lsp', '--help');
  assert.equal(run.status, 0);
  assert.match(
    run.stdout,
    /^Usage: tandem lsp \[--outlive-editor-kill\]\n {7}tandem lsp --config helix \[--write\] \[LANGUAGE\.\.\.\]/,
  );
});

test('usage errors: status 2, with the reason and the usage on stderr', () => {
  for (const [args, reason] of [
    [['--bogus'], /Unknown option '--bogus'/],
    [['--config', 'vim'], /--config knows helix, not "vim"/],
    [['rust'], /unexpected argument rust/],
    [['--write'], /--write goes with --config helix/],
  ] as const) {
    const run = tandem('lsp', ...args);
    assert.equal(run.status, 2, run.stderr);
    assert.match(run.stderr, reason);
    assert.match(run.stderr, /Usage: tandem lsp/);
  }
});

test('the command list names it', () => {
  assert.match(tandem('--help').stdout, /^ {2}lsp +the language server an editor/m);
});
