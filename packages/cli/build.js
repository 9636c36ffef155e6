// Bundles the `tandem` command into one file that starts fast and needs no install step.
import { build } from 'esbuild';

await build({
  entryPoints: ['src/tandem.ts'],
  // Every @tandem package's entry point is its TypeScript source: esbuild alone builds it all.
  outfile: 'dist/tandem.js',
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'esm',
  minifyWhitespace: true,
  minifySyntax: true,
  sourcemap: 'linked',
  legalComments: 'linked',
  // Some bundled CommonJS dependencies call require(): give the ESM bundle one.
  banner: {
    js: "import { createRequire as __tandemRequire } from 'node:module'; const require = __tandemRequire(import.meta.url);",
  },
  logLevel: 'warning',
});
