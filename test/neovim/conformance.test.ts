/**
 * The adapter conformance suite of @tandem/testkit, run against real Neovim with the plugin as
 * a user installs it without building anything: a clone of the repository without `packages/`
 * (so no built sidecar, no node_modules) and the `tandem` of the release's npm package on the
 * PATH. The driver (the testkit's `neovimAdapterDriver`) types keys and commands as a user
 * would, and reads the windows Neovim shows. Also: the status view names that `tandem` and the
 * version, and without any `tandem` Tandem says so once, with both ways to fix it. (The other
 * Neovim tests run the plugin of this checkout with its built sidecar.)
 */
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import {
  inOwnSandbox,
  neovimAdapterDriver,
  NeovimSession,
  runAdapterConformance,
  Sandbox,
  userInstall,
  userPath,
} from '@tandem/testkit';

const install = userInstall();
if (install) {
  const { release, tandem, pluginDir } = install;

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
          assert.match(printed, new RegExp(`^Tandem ${release.version}: running`, 'm'));
          assert.ok(printed.includes(`Sidecar: ${tandem.prefix}/bin/tandem bridge`), printed);
        },
      ));

    test('with no tandem anywhere, the one message says what to run', () =>
      withNeovim(
        (sandbox) =>
          userPath(mkdirSync(path.join(sandbox.root, 'no-tandem'), { recursive: true })!),
        undefined,
        async (session) => {
          await session.lua(`require('tandem').setup({})`);
          const status = await session.waitForState('failed');
          assert.match(
            status.error ?? '',
            /^no `tandem` command: run `npm run build:sidecar` in \S+, or put a `tandem` on/,
          );
          const messages = await session.lua<string>(`return vim.fn.execute('messages')`);
          assert.equal(messages.split('no `tandem` command').length - 1, 1, messages);
        },
      ));
  });

  runAdapterConformance(neovimAdapterDriver({ pluginDir, env: { PATH: tandem.path } }));
}
