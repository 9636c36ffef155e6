/**
 * The Emacs package as package archives and Emacs itself judge it: its ERT suites (in batch
 * Emacs, with real processes), byte-compilation with every warning an error, checkdoc, and
 * package-lint (Debian's elpa-package-lint).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import {
  EMACS_PACKAGE_DIR,
  emacsArgs,
  emacsCommand,
  emacsSkipReason,
  lispString,
} from '@tandem/testkit';

const skip = emacsSkipReason();

const SOURCES = readdirSync(EMACS_PACKAGE_DIR)
  .filter((name) => name.endsWith('.el'))
  .map((name) => path.join(EMACS_PACKAGE_DIR, name));
const TEST_DIR = path.join(EMACS_PACKAGE_DIR, 'test');
const SUITES = existsSync(TEST_DIR)
  ? readdirSync(TEST_DIR).filter((name) => name.endsWith('-test.el'))
  : [];

/** Runs batch Emacs with `args` after Tandem's load path; returns its output and status. */
function batch(...args: string[]): { status: number | null; output: string } {
  return batchWith(emacsCommand(), args);
}

function batchWith(command: string[], args: string[]): { status: number | null; output: string } {
  const [program, ...prefix] = command;
  const run = spawnSync(program!, [...prefix, '--batch', ...emacsArgs(...args)], {
    cwd: os.tmpdir(),
    encoding: 'utf8',
    timeout: 300_000,
  });
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

for (const suite of SUITES) {
  test(`ERT: ${suite}`, { skip }, () => {
    const { status, output } = batch(
      '-L',
      TEST_DIR,
      '-l',
      path.join(TEST_DIR, suite),
      '-f',
      'ert-run-tests-batch-and-exit',
    );
    const ran = /Ran (\d+) tests?, (\d+) results? as expected, 0 unexpected/.exec(output);
    assert.ok(status === 0 && ran, output);
    assert.equal(ran[1], ran[2], output);
    assert.doesNotMatch(output, /skipped/, output);
  });
}

test('byte-compiles with every warning an error', { skip }, () => {
  const out = mkdtempSync(path.join(os.tmpdir(), 'tandem-elc-'));
  try {
    // Compiled files go to a folder of their own: the tests leave the checkout as it was.
    const lisp = `(progn
      (setq byte-compile-error-on-warn t
            byte-compile-dest-file-function
            (lambda (file) (expand-file-name (concat (file-name-base file) ".elc") ${lispString(out)})))
      (dolist (file (list ${SOURCES.map(lispString).join(' ')}))
        (unless (byte-compile-file file) (kill-emacs 1))))`;
    const { status, output } = batch('--eval', lisp);
    assert.equal(status, 0, output);
    assert.doesNotMatch(output, /Warning|Error/, output);
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});

test('checkdoc finds nothing to say', { skip }, () => {
  const lisp = `(progn (require 'checkdoc) (setq vc-handled-backends nil)
    (dolist (file (list ${SOURCES.map(lispString).join(' ')})) (checkdoc-file file)))`;
  const { status, output } = batch('--eval', lisp);
  assert.equal(status, 0, output);
  assert.equal(output.trim(), '', output);
});

/** Where Debian's elpa-package-lint puts package-lint. */
function packageLintDir(): string | undefined {
  const elpa = '/usr/share/emacs/site-lisp/elpa';
  const found =
    existsSync(elpa) && readdirSync(elpa).find((name) => name.startsWith('package-lint-'));
  return found ? path.join(elpa, found) : undefined;
}

test('package-lint accepts the headers and the code', { skip }, (t) => {
  const dir = packageLintDir();
  if (!dir) {
    if (process.env.CI)
      throw new Error('elpa-package-lint is not installed (required when CI is set)');
    t.skip('elpa-package-lint is not installed');
    return;
  }
  // Debian 12's package-lint (0.16) predates Emacs 28 and warns about any package that needs it.
  const predates = /This makes the package uninstallable in all released Emacs versions/;
  // Lint judges the text, whatever Emacs runs it: the system's, where Debian installs package-lint.
  const { status, output } = batchWith(
    ['emacs'],
    [
      '-L',
      dir,
      '--eval',
      `(progn (require 'package-lint) (setq package-lint-main-file ${lispString(path.join(EMACS_PACKAGE_DIR, 'tandem.el'))}))`,
      '-f',
      'package-lint-batch-and-exit',
      ...SOURCES,
    ],
  );
  // Status 1 when it warns; anything else means it did not run.
  assert.ok(status === 0 || (status === 1 && predates.test(output)), output);
  const problems = output
    .split('\n')
    .filter((line) => /: (error|warning): /.test(line) && !predates.test(line));
  assert.deepEqual(problems, [], output);
});
