// Bundles the extension into one CommonJS file, the engine included from its source, so that
// the .vsix needs no node_modules.
import { copyFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

await build({
  entryPoints: ['src/extension.ts'],
  alias: {
    '@tandem/core': fileURLToPath(new URL('../core/src/index.ts', import.meta.url)),
    '@tandem/inspect': fileURLToPath(new URL('../inspect/src/index.ts', import.meta.url)),
  },
  outfile: 'dist/extension.cjs',
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  // Provided by the extension host.
  external: ['vscode'],
  minifyWhitespace: true,
  minifySyntax: true,
  sourcemap: 'linked',
  legalComments: 'linked',
  logLevel: 'warning',
});

// The project's one changelog goes into the .vsix (vsce takes it only from inside this folder).
copyFileSync(
  new URL('../../CHANGELOG.md', import.meta.url),
  new URL('dist/CHANGELOG.md', import.meta.url),
);
