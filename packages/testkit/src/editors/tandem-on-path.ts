import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { shellQuote } from '@tandem/command';
import { TANDEM } from '../bridge-editor.js';
import type { Sandbox } from '../sandbox.js';

/**
 * A folder in the sandbox holding a `tandem` command (this checkout's), for an editor's PATH:
 * editors start `tandem lsp` by that name, as the set-up in docs/lsp.md tells users.
 */
export function tandemOnPath(sandbox: Sandbox): string {
  const bin = path.join(sandbox.root, 'bin');
  mkdirSync(bin, { recursive: true });
  // The editor may run in an editor root: the `node` there runs the bundle of this checkout.
  const tandem = path.join(bin, 'tandem');
  writeFileSync(tandem, `#!/bin/sh\nexec node ${shellQuote(TANDEM)} "$@"\n`);
  chmodSync(tandem, 0o755);
  return bin;
}
