/**
 * Neovim's own LSP client (0.11+, `vim.lsp.config`) with `tandem lsp` and no Tandem plugin,
 * through the adapter conformance suite of @tandem/testkit, judged by the real clients. Older
 * Neovim has no `vim.lsp.config`: this file says so and runs nothing there.
 */
import { test } from 'node:test';
import { defaultEditor, neovimLspDriver, runAdapterConformance } from '@tandem/testkit';

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
  runAdapterConformance(neovimLspDriver(nvim));
}
