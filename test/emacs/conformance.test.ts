/**
 * The adapter conformance suite of @tandem/testkit, run against real Emacs in tmux driven with
 * real keys (the testkit's `emacsAdapterDriver`), on the package as a user installs it from the
 * release: `M-x package-install-file` of `tandem-VERSION.tar` in a fresh HOME, with the
 * release's npm package as the `tandem` on the PATH and no checkout anywhere Emacs looks. Also:
 * the commands are autoloaded, `M-x tandem-status` shows the version and that `tandem`, and with
 * no `tandem` at all one message names both fixes. (The other Emacs tests load the package of
 * this checkout, with its built sidecar.)
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import {
  assertNoTandemSaidOnce,
  assertStatusNamesInstall,
  inOwnSandbox,
  emacsAdapterDriver,
  emacsCommand,
  EmacsSession,
  emacsSkipReason,
  lispString,
  runAdapterConformance,
  pathWithoutTandem,
  Sandbox,
  userInstall,
} from '@tandem/testkit';

const install = emacsSkipReason({ sidecar: true, tmux: true }) ? undefined : userInstall();
if (install) {
  const { release, tandem } = install;
  const home = new Sandbox('tandem-emacs-archive-');
  after(() => home.remove());
  const elpa = path.join(home.home, '.emacs.d', 'elpa');
  const installed = path.join(elpa, `tandem-${release.version}`);

  /** Batch Emacs in the fresh HOME with package.el initialized: what `forms` print. */
  const batch = (...forms: string[]) => {
    const [program, ...prefix] = emacsCommand();
    const init =
      '(progn (require (quote package)) (setq package-archives nil) (package-initialize))';
    const run = spawnSync(
      program!,
      [...prefix, '-q', '--batch', ...[init, ...forms].flatMap((form) => ['--eval', form])],
      { cwd: home.workspace, env: home.env({ PATH: tandem.path }), encoding: 'utf8' },
    );
    assert.equal(run.status, 0, `${run.stdout}${run.stderr}`);
    return run.stdout;
  };
  batch(`(package-install-file ${lispString(release.emacsArchive)})`);

  /** Emacs with the installed package and `PATH`, in a sandbox of its own, ended after `body`. */
  const withEmacs = (
    PATH: (sandbox: Sandbox) => string,
    body: (emacs: EmacsSession) => Promise<void>,
  ) =>
    inOwnSandbox(
      (sandbox) =>
        EmacsSession.start(sandbox, { packageUserDir: elpa, env: { PATH: PATH(sandbox) } }),
      body,
    );

  describe('the package installed from its archive', () => {
    test('package-install-file installed it with its autoloads, nothing loaded', () => {
      assert.ok(existsSync(path.join(installed, 'tandem-autoloads.el')));
      const printed = batch(
        `(princ (list (package-desc-version (cadr (assq 'tandem package-alist)))
                      (autoloadp (symbol-function 'tandem-mode))
                      (autoloadp (symbol-function 'tandem-status))
                      (featurep 'tandem)))`,
      );
      assert.equal(printed, `((${release.version.split('.').join(' ')}) t t nil)`);
    });

    test('M-x tandem-status shows the version and the tandem on the PATH', () =>
      withEmacs(
        () => tandem.path,
        async (emacs) => {
          await emacs.eval('(tandem-mode 1)');
          await emacs.waitForState('running');
          const shown = await emacs.text(
            '(progn (tandem-status) (with-current-buffer "*tandem-status*" (buffer-string)))',
          );
          assertStatusNamesInstall(shown, install);
        },
      ));

    test('with no tandem anywhere, the one message says what to run', () =>
      withEmacs(pathWithoutTandem, async (emacs) => {
        await emacs.eval('(tandem-mode 1)');
        const status = await emacs.waitForState('failed');
        const messages = await emacs.text('(with-current-buffer "*Messages*" (buffer-string))');
        assertNoTandemSaidOnce(status.error, messages, "'");
      }));
  });

  runAdapterConformance(emacsAdapterDriver({ packageUserDir: elpa, env: { PATH: tandem.path } }));
}
