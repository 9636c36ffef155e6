/**
 * The adapter conformance suite of @tandem/testkit, run against real Vim in tmux with the plugin
 * as a user installs it without building anything: a clone of the repository without
 * `packages/` (so no built sidecar, no node_modules) and the `tandem` of the release's npm
 * package on the PATH. The driver (the testkit's `vimAdapterDriver`) types keys and commands as
 * a user would. Also: the status view names that `tandem` and the version, and without any
 * `tandem` Tandem says so once, with both ways to fix it. (The other Vim tests run the plugin of
 * this checkout with its built sidecar.)
 */
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import {
  inOwnSandbox,
  runAdapterConformance,
  Sandbox,
  userInstall,
  userPath,
  vimAdapterDriver,
  VimSession,
} from '@tandem/testkit';

const install = userInstall();
if (install) {
  const { release, tandem, pluginDir } = install;

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
          assert.match(shown, new RegExp(`^Tandem ${release.version}: running`, 'm'));
          assert.ok(shown.includes(`Sidecar: ${tandem.prefix}/bin/tandem bridge`), shown);
        },
      ));

    test('with no tandem anywhere, the one message says what to run', () =>
      withVim(
        (sandbox) =>
          userPath(mkdirSync(path.join(sandbox.root, 'no-tandem'), { recursive: true })!),
        async (vim) => {
          const status = await vim.waitForState('failed');
          assert.match(
            status.error ?? '',
            /^no `tandem` command: run `npm run build:sidecar` in \S+, or put a `tandem` on/,
          );
          const messages = await vim.eval<string>(`execute('messages')`);
          assert.equal(messages.split('no `tandem` command').length - 1, 1, messages);
        },
      ));
  });

  runAdapterConformance(vimAdapterDriver({ pluginDir, env: { PATH: tandem.path } }));
}
