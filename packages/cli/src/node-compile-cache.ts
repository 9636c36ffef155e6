/**
 * Node's own compile cache (`module.enableCompileCache`, Node 22.1 and newer) for the `tandem`
 * command, in the same folder and under the same rule as the hand-written one of Node 20
 * (compile-cache.ts): used only when the folder is private (`makePrivateFolder`), since the cache
 * holds code the process runs. Node checks an entry against its source and its own version.
 */
import { makePrivateFolder } from '@tandem/command';
import nodeModule from 'node:module';
import { debuglog } from 'node:util';

/** What Node 22.1 and newer add to `node:module` (Node 20's types lack them). */
interface RuntimeCompileCache {
  enableCompileCache?: (directory: string) => { status: number; message?: string };
  flushCompileCache?: () => void;
}

/** When the entries are written after a bundle loads: a start is done by then. */
const FLUSH_DELAY_MS = 2000;

/** Whether this Node keeps a compile cache itself: then the hand-written one is not used. */
export function runtimeHasCompileCache(): boolean {
  return typeof (nodeModule as RuntimeCompileCache).enableCompileCache === 'function';
}

/**
 * Turns on Node's compile cache in `folder` (compileCacheFolder; undefined: off) if it is
 * private. Node writes its entries when the process exits; a sidecar runs for hours and an
 * editor may end it with a signal, so they are also written 2 s after each bundle of `bundles`
 * (the folder of the command's bundles) loads, as the hand-written cache writes its own.
 */
export function enableRuntimeCompileCache(folder: string | undefined, bundles: string): void {
  const debug = debuglog('tandem-compile-cache');
  const { enableCompileCache, flushCompileCache } = nodeModule as RuntimeCompileCache;
  // Without user ids (Windows) no folder can be checked: off.
  if (!enableCompileCache || folder === undefined || process.getuid === undefined) return;
  const problem = makePrivateFolder(folder);
  if (problem !== undefined) {
    debug('%s', `off: ${problem}`);
    return;
  }
  const { status, message } = enableCompileCache(folder);
  debug(
    '%s',
    `node's compile cache in ${folder}: status ${status}${message ? `, ${message}` : ''}`,
  );
  if (!flushCompileCache) return;
  const extensions = nodeModule.createRequire(import.meta.url).extensions;
  const plain = extensions['.js']!;
  extensions['.js'] = (module: NodeJS.Module, filename: string) => {
    plain(module, filename);
    if (filename.startsWith(`${bundles}/`)) {
      setTimeout(flushCompileCache, FLUSH_DELAY_MS).unref();
    }
  };
}
