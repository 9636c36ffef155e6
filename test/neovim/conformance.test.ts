/**
 * The adapter conformance suite of @tandem/testkit, run against real Neovim with the plugin as
 * a user installs it without building anything: a clone of the repository without `packages/`
 * (so no built sidecar, no node_modules) and the `tandem` of the release's npm package on the
 * PATH. The driver (the testkit's `neovimAdapterDriver`) types keys and commands as a user
 * would, and reads the windows Neovim shows. Also: the status view names that `tandem` and the
 * version, and without any `tandem` Tandem says so once, with both ways to fix it. (The other
 * Neovim tests run the plugin of this checkout with its built sidecar.)
 */
import { describe, test } from 'node:test';
import {
  assertNoTandemSaidOnce,
  assertStatusNamesInstall,
  inOwnSandbox,
  neovimAdapterDriver,
  NeovimSession,
  runAdapterConformance,
  pathWithoutTandem,
  Sandbox,
  userInstall,
} from '@tandem/testkit';

const install = userInstall();
if (install) {
  const { tandem, pluginDir } = install;

  /** Neovim with the plugin clone and `PATH`, in a sandbox of its own, ended after `body`. */
  const withNeovim = (
    PATH: (sandbox: Sandbox) => string,
    tandemOptions: string | undefined,
    body: (session: NeovimSession) => Promise<void>,
  ) =>
    inOwnSandbox(
      (sandbox) =>
        NeovimSession.start(sandbox, {
          pluginDir,
          env: { PATH: PATH(sandbox) },
          tandem: tandemOptions,
        }),
      body,
    );

  describe('the plugin without a build, with the tandem command on the PATH', () => {
    test(':TandemStatus shows the version and the tandem it runs', () =>
      withNeovim(
        () => tandem.path,
        '{}',
        async (session) => {
          const printed = await session.lua<string>(`return vim.fn.execute('TandemStatus')`);
          assertStatusNamesInstall(printed, install);
        },
      ));

    test('with no tandem anywhere, the one message says what to run', () =>
      withNeovim(pathWithoutTandem, undefined, async (session) => {
        await session.lua(`require('tandem').setup({})`);
        const status = await session.waitForState('failed');
        const messages = await session.lua<string>(`return vim.fn.execute('messages')`);
        assertNoTandemSaidOnce(status.error, messages);
      }));
  });

  runAdapterConformance(neovimAdapterDriver({ pluginDir, env: { PATH: tandem.path } }));
}
