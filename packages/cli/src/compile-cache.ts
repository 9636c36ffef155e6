/**
 * V8's code cache of the `tandem` command's bundles, kept on disk: a start that finds its bundle's
 * entry skips compiling it, and skips compiling the functions that the previous start called too,
 * since an entry is made once a start has run. Every editor window starts a sidecar: it pays.
 *
 * It never breaks a command: any problem means a plain compile (`NODE_DEBUG=tandem-compile-cache`
 * says why). The cache holds code the process runs, so another user must not be able to write
 * it: it is used only in a private folder, and an entry only if this user alone wrote it, whole
 * (a digest checks it: V8 itself checks no more than the source's length and its own version and
 * flags, and runs damaged data). The folder follows the rule of every folder Tandem writes in
 * (`makePrivateFolder`), checked again at each write.
 *
 * Used on Node 20 alone, which has no `module.enableCompileCache()`: Node 22.1 and newer keep
 * their own (node-compile-cache.ts). `vm.Script` writes the entry when it is worth most, after
 * the start.
 */
import { createHash, randomBytes } from 'node:crypto';
import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  unlinkSync,
  writeFileSync,
  type Stats,
} from 'node:fs';
import { makePrivateFolder, privateFolderProblem } from '@tandem/command';
import { createRequire } from 'node:module';
import { basename, dirname, isAbsolute, join } from 'node:path';
import { debuglog } from 'node:util';
import { Script } from 'node:vm';

/** The function Node wraps a CommonJS module in, its first line its own: positions do not move. */
const WRAPPER_START = '(function (exports, require, module, __filename, __dirname) {\n';
const WRAPPER_END = '\n})';

/** When a bundle's entry is written, once it ran: a start is done by then, a short command gone. */
const WRITE_DELAY_MS = 2000;
/** An entry is a digest of the source's digest and the data, then V8's data. */
const DIGEST_BYTES = 32;
const MiB = 2 ** 20;
/** Leftovers of a write that was cut short are removed once this old. */
const STALE_TEMPORARY_MS = 60_000;

export type ModuleWrapper = (
  exports: unknown,
  require: NodeJS.Require,
  module: NodeJS.Module,
  filename: string,
  dirname: string,
) => void;

/**
 * What the cache did for a compile: `used` its entry; `missed` (no usable entry) or `rejected`
 * (V8 refused the entry: another Node or other flags), and will write one; `off`: no private
 * folder, nothing read or written.
 */
export type CacheOutcome = 'used' | 'missed' | 'rejected' | 'off';

/** `$XDG_CACHE_HOME/tandem/compile-cache`, else `~/.cache/…`; undefined without a home. */
export function compileCacheFolder(env: NodeJS.ProcessEnv, home: () => string): string | undefined {
  // The XDG spec: a relative path is invalid and ignored.
  const xdg = env.XDG_CACHE_HOME;
  if (xdg && isAbsolute(xdg)) return join(xdg, 'tandem', 'compile-cache');
  let homeFolder: string;
  try {
    homeFolder = home();
  } catch {
    return undefined;
  }
  return isAbsolute(homeFolder) ? join(homeFolder, '.cache', 'tandem', 'compile-cache') : undefined;
}

/** Whether an opened entry (its `fstat`) is one this user wrote: a file of its own, 0600, whole. */
function isOwnEntry(stats: Stats, uid: number, maxBytes: number): boolean {
  return (
    stats.isFile() &&
    stats.uid === uid &&
    (stats.mode & 0o077) === 0 &&
    // A hard link could have been made to a file of this user's by anyone.
    stats.nlink === 1 &&
    stats.size > DIGEST_BYTES &&
    stats.size <= maxBytes
  );
}

/** A debug log of plain text (debuglog would read `%` in a path as a format). */
const logTo =
  (log: (format: string, ...values: unknown[]) => void) =>
  (message: string): void =>
    log('%s', message);

const sha256 = (...parts: Buffer[]) => {
  const hash = createHash('sha256');
  for (const part of parts) hash.update(part);
  return hash.digest();
};

export class CompileCache {
  /** The private folder, once checked (undefined: none, the cache is off). */
  private checked: { folder: string | undefined } | undefined;
  private readonly debug = logTo(debuglog('tandem-compile-cache'));

  /**
   * @param folder where the entries live (compileCacheFolder); undefined: the cache is off.
   * @param writeDelayMs how long after a start that found no entry it writes one.
   */
  constructor(
    private readonly folder: string | undefined,
    private readonly writeDelayMs = WRITE_DELAY_MS,
  ) {}

  /** Compiles CommonJS module `filename`, whose text is `source`, through the cache. */
  compile(filename: string, source: Buffer): { wrapper: ModuleWrapper; outcome: CacheOutcome } {
    const code = WRAPPER_START + source.toString('utf8') + WRAPPER_END;
    const options = { filename, lineOffset: -1 };
    const folder = this.privateFolder();
    if (folder === undefined) {
      return { wrapper: new Script(code, options).runInThisContext(), outcome: 'off' };
    }
    // The entries of a bundle at one place: V8 keeps the file name its data was made with (in
    // stack traces), and two installs of the command would each replace the other's entry.
    const place = sha256(Buffer.from(filename)).toString('hex', 0, 8);
    const bundle = `${basename(filename, '.js')}-${place}`;
    const sourceDigest = sha256(source);
    const entry = join(folder, `${bundle}-${sourceDigest.toString('hex')}.cache`);
    // V8's data for a bundle is about twice its source at most: far larger is not an entry.
    const cachedData = this.read(entry, sourceDigest, MiB + 4 * source.length);
    const script = new Script(code, { ...options, cachedData });
    const outcome =
      cachedData === undefined ? 'missed' : script.cachedDataRejected ? 'rejected' : 'used';
    this.debug(`${bundle}: ${outcome} ${entry}`);
    if (outcome !== 'used') {
      setTimeout(
        () => this.write(folder, bundle, entry, sourceDigest, script),
        this.writeDelayMs,
      ).unref();
    }
    return { wrapper: script.runInThisContext(), outcome };
  }

  private privateFolder(): string | undefined {
    this.checked ??= { folder: this.checkFolder() };
    return this.checked.folder;
  }

  private checkFolder(): string | undefined {
    // Without user ids (Windows) no folder can be checked: off.
    if (this.folder === undefined || process.getuid === undefined) return undefined;
    try {
      const problem = makePrivateFolder(this.folder);
      if (problem === undefined) return this.folder;
      this.debug(`off: ${problem}`);
    } catch (error) {
      this.debug(`off: ${String(error)}`);
    }
    return undefined;
  }

  /** The V8 data of `entry`, if it is whole and this user's alone. */
  private read(entry: string, sourceDigest: Buffer, maxBytes: number): Buffer | undefined {
    let fd: number;
    try {
      // No symlink followed; nothing planted (a FIFO) can hold the start.
      fd = openSync(entry, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT')
        this.debug(`unread: ${String(error)}`);
      return undefined;
    }
    try {
      if (!isOwnEntry(fstatSync(fd), process.getuid!(), maxBytes)) {
        this.debug(`unread: ${entry} is not an entry of this user's alone`);
        return undefined;
      }
      const file = readFileSync(fd);
      const data = file.subarray(DIGEST_BYTES);
      if (sha256(sourceDigest, data).equals(file.subarray(0, DIGEST_BYTES))) return data;
      this.debug(`unread: ${entry} is damaged`);
    } catch (error) {
      this.debug(`unread: ${String(error)}`);
    } finally {
      closeSync(fd);
    }
    return undefined;
  }

  /**
   * Writes `script`'s data, with the functions compiled since it ran, as `entry`: whole or not at
   * all (a new file, renamed into place), then removes the entries of the bundle's earlier builds.
   */
  private write(
    folder: string,
    bundle: string,
    entry: string,
    sourceDigest: Buffer,
    script: Script,
  ) {
    const temporary = join(folder, `.${randomBytes(8).toString('hex')}.tmp`);
    try {
      // The folders may have changed since the start: whoever could change them now chooses
      // where the entry goes.
      const problem = privateFolderProblem(folder);
      if (problem !== undefined) {
        this.debug(`${bundle}: not written: ${problem}`);
        return;
      }
      const data = script.createCachedData();
      // 'wx': a new file, never one planted under its name.
      writeFileSync(temporary, Buffer.concat([sha256(sourceDigest, data), data]), {
        flag: 'wx',
        mode: 0o600,
      });
      renameSync(temporary, entry);
      this.debug(`${bundle}: wrote ${entry}`);
      this.removeOthers(folder, bundle, entry);
    } catch (error) {
      this.debug(`${bundle}: not written: ${String(error)}`);
      try {
        unlinkSync(temporary);
      } catch {
        // Never made.
      }
    }
  }

  private removeOthers(folder: string, bundle: string, entry: string) {
    for (const file of readdirSync(folder)) {
      const path = join(folder, file);
      const ofBundle =
        file.startsWith(`${bundle}-`) &&
        /^[0-9a-f]{64}\.cache$/.test(file.slice(bundle.length + 1));
      const stale =
        path !== entry &&
        (ofBundle ||
          (/^\.[0-9a-f]{16}\.tmp$/.test(file) &&
            Date.now() - lstatSync(path).mtimeMs > STALE_TEMPORARY_MS));
      if (stale) unlinkSync(path);
    }
  }
}

/**
 * Loads every CommonJS bundle of `folder` through `cache`, whoever requires it: the dispatcher
 * its command's bundle, a command the bundles it loads later.
 */
export function loadBundlesThrough(folder: string, cache: CompileCache): void {
  // Node maps stack traces (--enable-source-maps) only of the modules it compiles itself.
  if (process.sourceMapsEnabled) return;
  const extensions = createRequire(import.meta.url).extensions;
  const plain = extensions['.js']!;
  extensions['.js'] = (module: NodeJS.Module, filename: string) => {
    if (dirname(filename) !== folder) return plain(module, filename);
    const { wrapper } = cache.compile(filename, readFileSync(filename));
    wrapper.call(module.exports, module.exports, createRequire(filename), module, filename, folder);
  };
}
