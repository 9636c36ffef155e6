import { homedir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { runAsProcess } from '@tandem/command';
import { CompileCache, compileCacheFolder, loadBundlesThrough } from './compile-cache.js';
import { main } from './main.js';

// The command bundles beside this one (dist/commands) compile through a cache: each editor
// window starts a sidecar, and a sidecar loads the MCP sessions when the first CLI connects.
loadBundlesThrough(
  fileURLToPath(new URL('commands', import.meta.url)),
  new CompileCache(compileCacheFolder(process.env, homedir)),
);
void runAsProcess(main);
