/**
 * Neovim's own LSP client (0.11+, `vim.lsp.config`) with `tandem lsp` and no Tandem plugin,
 * through the adapter conformance suite of @tandem/testkit, judged by the real clients. Older
 * Neovim has no `vim.lsp.config`: this file says so and runs nothing there.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  defaultEditor,
  neovimLspDriver,
  processEnvironment,
  processesWhere,
  runAdapterConformance,
  runProposalNames,
  Sandbox,
} from '@tandem/testkit';

const nvim = defaultEditor('nvim').editor;
const [major = 0, minor = 0] = (nvim?.version ?? '').split('.').map(Number);
const tooOld =
  nvim !== undefined &&
  major === 0 &&
  minor < 11 &&
  `${nvim.name} has no vim.lsp.config (0.11+): TANDEM_NVIM=newest runs this file`;

if (tooOld) {
  console.log(`# skipping: ${tooOld}`);
  test(`${nvim?.name}'s LSP client`, { skip: tooOld }, () => undefined);
} else {
  const driver = neovimLspDriver(nvim);
  runAdapterConformance(driver);
  runProposalNames(driver, ':w');

  test(
    `${driver.name} starts tandem lsp with the README's environment`,
    { skip: driver.skip },
    async () => {
      const sandbox = new Sandbox();
      const editor = await driver.start(sandbox);
      try {
        const servers = processesWhere(
          (argv, environment) => argv.includes('lsp') && environment.HOME === sandbox.home,
        );
        assert.equal(servers.length, 1, `tandem lsp processes: ${servers.join(', ')}`);
        const environment = processEnvironment(servers[0]!);
        assert.equal(environment.NODE_EXTRA_CA_CERTS, '');
        assert.equal(environment.GLIBC_TUNABLES, 'glibc.malloc.mmap_threshold=65536');
      } finally {
        await editor.close();
        sandbox.remove();
      }
    },
  );
}
