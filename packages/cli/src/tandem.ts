import { homedir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { runAsProcess } from '@tandem/command';
import { CompileCache, compileCacheFolder, loadBundlesThrough } from './compile-cache.js';
import { main } from './main.js';
import { enableRuntimeCompileCache, runtimeHasCompileCache } from './node-compile-cache.js';

// The command bundles beside this one (dist/commands) compile through a cache: each editor
// window starts a sidecar, and a sidecar loads the MCP sessions when the first CLI connects.
// Node 22.1 and newer keep one themselves; Node 20 has the hand-written one (docs/benchmarks.md
// has what it saves there).
const bundles = fileURLToPath(new URL('commands', import.meta.url));
const cacheFolder = compileCacheFolder(process.env, homedir);
if (runtimeHasCompileCache()) enableRuntimeCompileCache(cacheFolder, bundles);
else loadBundlesThrough(bundles, new CompileCache(cacheFolder));
void runAsProcess(main);
