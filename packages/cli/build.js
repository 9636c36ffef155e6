// Bundles the `tandem` command so that it starts fast and needs no install step:
//
//   dist/tandem.js                 the dispatcher: `tandem <command>` loads that command's bundle
//   dist/commands/<command>.js     one bundle a command package (bridge, serve, inspect, …)
//   dist/commands/mcp-sessions.js  the engine's MCP sessions, loaded when the first CLI connects
//
// Each bundle is built alone, so that it holds only what it uses: the sidecar that every editor
// window starts parses and keeps no other command's code, and no MCP SDK until a CLI connects.
// Built together (code splitting), the sidecar's share would still hold every one of zod's
// locales: esbuild keeps all of a namespace's members once any module uses the namespace whole,
// as the MCP SDK does with zod.
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const manifest = JSON.parse(await readFile('package.json', 'utf8'));
/** The command packages: every @tandem dependency but the one they all share. */
const commands = Object.keys(manifest.dependencies)
  .filter((name) => name.startsWith('@tandem/') && name !== '@tandem/command')
  .map((name) => name.slice('@tandem/'.length));
/**
 * What the engine imports when the first CLI connects: @tandem/core's `mcp-sessions` entry point,
 * which its session hub loads at run time (named without its extension, as imports name it).
 */
const sessionsModule = withoutExtension(
  fileURLToPath(import.meta.resolve('@tandem/core/mcp-sessions')),
);

const common = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'esm',
  minifyWhitespace: true,
  minifySyntax: true,
  sourcemap: 'linked',
  legalComments: 'linked',
  // Some bundled CommonJS dependencies call require(): give each ESM bundle one.
  banner: {
    js: "import { createRequire as __tandemRequire } from 'node:module'; const require = __tandemRequire(import.meta.url);",
  },
  logLevel: 'warning',
};

function withoutExtension(file) {
  return file.replace(/\.[jt]s$/, '');
}

/** Leaves the dynamic imports that `matches` (resolved paths) to be loaded at run time from `path`. */
function loadAtRunTime(matches, path) {
  return {
    name: 'load-at-run-time',
    setup(builder) {
      builder.onResolve({ filter: /.*/ }, ({ path: specifier, resolveDir, kind }) => {
        const resolved = specifier.startsWith('.') ? join(resolveDir, specifier) : specifier;
        if (kind !== 'dynamic-import' || !matches(resolved)) return undefined;
        return { path: path(resolved), external: true };
      });
    },
  };
}

await rm('dist', { recursive: true, force: true });
await Promise.all([
  build({
    ...common,
    entryPoints: ['src/tandem.ts'],
    outfile: 'dist/tandem.js',
    plugins: [
      loadAtRunTime(
        (specifier) => specifier.startsWith('@tandem/'),
        (specifier) => `./commands/${specifier.slice('@tandem/'.length)}.js`,
      ),
    ],
  }),
  ...commands.map((command) =>
    build({
      ...common,
      // Every @tandem package's entry point is its TypeScript source: esbuild alone builds it all.
      entryPoints: [`@tandem/${command}`],
      outfile: `dist/commands/${command}.js`,
      plugins: [
        loadAtRunTime(
          (file) => withoutExtension(file) === sessionsModule,
          () => './mcp-sessions.js',
        ),
      ],
    }),
  ),
  build({
    ...common,
    entryPoints: ['@tandem/core/mcp-sessions'],
    outfile: 'dist/commands/mcp-sessions.js',
  }),
]);
