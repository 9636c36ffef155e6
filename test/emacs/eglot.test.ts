/**
 * Emacs's own LSP client, eglot (built in since Emacs 29), with `tandem lsp` and Tandem's
 * package not started, through the adapter conformance suite of @tandem/testkit, judged by the
 * real clients. Emacs 28 has no eglot built in: this file says so and runs nothing there.
 */
import { test } from 'node:test';
import { defaultEditor, eglotDriver, runAdapterConformance } from '@tandem/testkit';

const emacs = defaultEditor('emacs').editor;
const tooOld =
  emacs !== undefined &&
  Number(emacs.version.split('.')[0]) < 29 &&
  `${emacs.name} has no eglot built in (Emacs 29+): TANDEM_EMACS=newest runs this file`;

if (tooOld) {
  console.log(`# skipping: ${tooOld}`);
  test(`${emacs?.name}'s eglot`, { skip: tooOld }, () => undefined);
} else {
  runAdapterConformance(eglotDriver(emacs));
}
