#!/usr/bin/env node
// The `tandem` command: runs the bundle that `npm run build` makes.
import { existsSync } from 'node:fs';

const bundle = new URL('../dist/tandem.js', import.meta.url);
if (!existsSync(bundle)) {
  process.stderr.write('tandem: not built yet. Run `npm run build` in the repository first.\n');
  process.exit(1);
}
await import(bundle.href);
