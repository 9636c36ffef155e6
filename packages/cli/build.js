// Bundles the `tandem` command so that it starts fast and needs no install step:
//
//   dist/tandem.js                 the dispatcher: `tandem <command>` loads that command's bundle
//   dist/commands/<command>.js     one bundle a command package (bridge, serve, inspect, …)
//   dist/commands/mcp-sessions.js  the engine's MCP sessions, loaded when the first CLI connects
//   dist/commands/claude-sessions.js  Claude Code's sessions, loaded when Claude Code first connects
//
// Each bundle is built alone, so that it holds only what it uses: the sidecar that every editor
// window starts parses and keeps no other command's code, and no MCP SDK until a CLI connects.
// Built together (code splitting), the sidecar's share would still hold every one of zod's
// locales: esbuild keeps all of a namespace's members once any module uses the namespace whole,
// as the MCP SDK does with zod.
//
// The bundles are CommonJS (dist/package.json says so): Node then starts without its ES module
// loader, which costs a sidecar about 2 MB and 10 ms.
//
// mcp-sessions.js leaves out what the MCP SDK brings along but a sidecar never runs (`unusedBySdk`),
// and gives the SDK the engine's Headers, Request and Response in place of Node's, whose first use
// loads Node's fetch implementation (@tandem/core's fetch-messages.ts says why).
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
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
const sessionModules = {
  'mcp-sessions': withoutExtension(fileURLToPath(import.meta.resolve('@tandem/core/mcp-sessions'))),
  'claude-sessions': withoutExtension(
    fileURLToPath(import.meta.resolve('@tandem/core/claude-sessions')),
  ),
};
/** The bundle of a lazily loaded sessions module, by its resolved path. */
function sessionsBundle(file) {
  const name = Object.keys(sessionModules).find(
    (key) => sessionModules[key] === withoutExtension(file),
  );
  return `./${name}.js`;
}

const moduleUrl = "const __tandemModuleUrl = require('node:url').pathToFileURL(__filename).href;";

const common = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  // import() of a command or of the MCP sessions becomes require(): CommonJS all the way.
  supported: { 'dynamic-import': false },
  // The sources find files beside themselves through import.meta.url.
  define: { 'import.meta.url': '__tandemModuleUrl' },
  minifyWhitespace: true,
  minifySyntax: true,
  sourcemap: 'linked',
  legalComments: 'linked',
  banner: { js: moduleUrl },
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

/**
 * Modules that the MCP SDK imports but that Tandem never runs, each loaded as an empty stand-in:
 * Zod's messages in forty languages (Tandem's are English), Zod 3 and its JSON Schema converter
 * (the SDK takes Zod 3 schemas too; Tandem's are Zod 4), and Ajv (the SDK's default check of the
 * answers to elicitations; Tandem asks for none, and gives the SDK a check of its own in
 * @tandem/core's client-session.ts). They were 580 KB of mcp-sessions.js's 980 KB; loading the
 * bundle alone took 16 MB of memory with them and takes 8 MB without.
 */
const unusedBySdk = [
  {
    file: /\/node_modules\/zod\/v4\/locales\/index\.js$/,
    contents: "export { default as en } from './en.js';",
  },
  { file: /\/node_modules\/zod\/v3\/index\.js$/, contents: 'export {};' },
  {
    file: /\/node_modules\/zod-to-json-schema\/dist\/esm\/index\.js$/,
    contents: 'export const zodToJsonSchema = undefined;',
  },
  {
    file: /\/node_modules\/@modelcontextprotocol\/sdk\/dist\/esm\/validation\/ajv-provider\.js$/,
    contents: 'export const AjvJsonSchemaValidator = undefined;',
  },
];

/** Loads `modules`' files as their stand-ins; fails the build if one is no longer imported. */
function leaveOut(modules) {
  return {
    name: 'leave-out',
    setup(builder) {
      const replaced = new Set();
      builder.onLoad({ filter: /\.js$/ }, ({ path }) => {
        const module = modules.find(({ file }) => file.test(path));
        if (!module) return undefined;
        replaced.add(module);
        return { contents: module.contents, resolveDir: dirname(path) };
      });
      builder.onEnd(() => {
        const missed = modules.filter((module) => !replaced.has(module));
        if (missed.length > 0)
          throw new Error(
            `no longer imported, update the list: ${missed.map(({ file }) => file).join(', ')}`,
          );
      });
    },
  };
}

await rm('dist', { recursive: true, force: true });
await mkdir('dist', { recursive: true });
await writeFile('dist/package.json', `${JSON.stringify({ type: 'commonjs' })}\n`);
await Promise.all([
  build({
    ...common,
    entryPoints: ['src/tandem.ts'],
    outfile: 'dist/tandem.js',
    // The npm package's `tandem` runs it directly.
    banner: { js: `#!/usr/bin/env node\n${moduleUrl}` },
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
          (file) => Object.values(sessionModules).includes(withoutExtension(file)),
          sessionsBundle,
        ),
      ],
    }),
  ),
  ...Object.keys(sessionModules).map((name) =>
    build({
      ...common,
      entryPoints: [`@tandem/core/${name}`],
      outfile: `dist/commands/${name}.js`,
      inject: [fileURLToPath(import.meta.resolve('@tandem/core/fetch-messages'))],
      plugins: [leaveOut(unusedBySdk)],
    }),
  ),
]);
