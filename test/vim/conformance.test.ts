/**
 * The adapter conformance suite of @tandem/testkit, run against real Vim in tmux with the plugin
 * as a user installs it without building anything: a clone of the repository without
 * `packages/` (so no built sidecar, no node_modules) and the `tandem` of the release's npm
 * package on the PATH. The driver (the testkit's `vimAdapterDriver`) types keys and commands as
 * a user would. Also: the status view names that `tandem` and the version, and without any
 * `tandem` Tandem says so once, with both ways to fix it. (The other Vim tests run the plugin of
 * this checkout with its built sidecar.)
 */
import { describe, test } from 'node:test';
import {
  assertNoTandemSaidOnce,
  assertStatusNamesInstall,
  inOwnSandbox,
  runAdapterConformance,
  pathWithoutTandem,
  Sandbox,
  userInstall,
  vimAdapterDriver,
  VimSession,
} from '@tandem/testkit';

const install = userInstall();
if (install) {
  const { tandem, pluginDir } = install;

  /** Vim with the plugin clone and `PATH`, in a sandbox of its own, ended after `body`. */
  const withVim = (PATH: (sandbox: Sandbox) => string, body: (vim: VimSession) => Promise<void>) =>
    inOwnSandbox(
      (sandbox) => VimSession.start(sandbox, { pluginDir, env: { PATH: PATH(sandbox) } }),
      body,
    );

  describe('the plugin without a build, with the tandem command on the PATH', () => {
    test(':TandemStatus shows the version and the tandem it runs', () =>
      withVim(
        () => tandem.path,
        async (vim) => {
          await vim.waitForState('running');
          const shown = await vim.eval<string>(`execute('TandemStatus')`);
          assertStatusNamesInstall(shown, install);
        },
      ));

    test('with no tandem anywhere, the one message says what to run', () =>
      withVim(pathWithoutTandem, async (vim) => {
        const status = await vim.waitForState('failed');
        const messages = await vim.eval<string>(`execute('messages')`);
        assertNoTandemSaidOnce(status.error, messages);
      }));
  });

  runAdapterConformance(vimAdapterDriver({ pluginDir, env: { PATH: tandem.path } }));
}
