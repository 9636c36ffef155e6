// Builds the review page into dist/: index.html, and assets/ with the script (split so that
// each language loads only when a file needs it) and the style sheet. Everything is local:
// the page works offline.
//   node build.js [--outdir DIR]
import { build } from 'esbuild';
import { cp, rm } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const here = dirname(fileURLToPath(import.meta.url));
const { values } = parseArgs({ options: { outdir: { type: 'string' } } });
const outdir = resolve(values.outdir ?? resolve(here, 'dist'));

await rm(outdir, { recursive: true, force: true });
await build({
  absWorkingDir: here,
  entryPoints: { app: 'src/main.ts', styles: 'src/styles.css' },
  outdir: resolve(outdir, 'assets'),
  chunkNames: 'chunks/[name]-[hash]',
  bundle: true,
  splitting: true,
  format: 'esm',
  target: ['chrome111', 'firefox115', 'safari16.4'],
  minify: true,
  sourcemap: true,
  legalComments: 'linked',
  logLevel: 'warning',
});
await cp(resolve(here, 'src/index.html'), resolve(outdir, 'index.html'));
await cp(resolve(here, 'src/icon.svg'), resolve(outdir, 'assets/icon.svg'));
