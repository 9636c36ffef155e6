import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  chownSync,
  linkSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { after, beforeEach, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { setFlagsFromString } from 'node:v8';
import { needsRoot, waitFor } from '@tandem/testkit';
import { CompileCache, compileCacheFolder } from './compile-cache.js';

const WRITE_DELAY_MS = 10;
/** A user id no account has here: what it owns is another user's. */
const OTHER_USER = 12345;
/** Long enough for a write that should not come to have come. */
const NO_WRITE_MS = 20 * WRITE_DELAY_MS;

/** A CommonJS module, its functions compiled when called (as a bundle's are). */
const moduleSource = (version: string) =>
  Buffer.from(
    [
      `const helpers = Array.from({ length: 50 }, (_, i) => (x) => x + i);`,
      `exports.version = () => ${JSON.stringify(version)};`,
      `exports.fail = () => { throw new Error('failed'); };`,
      `exports.sum = (x) => helpers.reduce((total, helper) => total + helper(x), 0);`,
    ].join('\n'),
  );

// V8 would reuse a script this process compiled from the same source and file, not read the
// entry: each load here is as a new process's.
setFlagsFromString('--no-compilation-cache');

const root = mkdtempSync(join(tmpdir(), 'compile-cache-'));
after(() => rmSync(root, { recursive: true, force: true }));

let folder: string;
let bundle: string;
beforeEach(() => {
  const base = mkdtempSync(join(root, 'case-'));
  folder = join(base, 'cache', 'tandem', 'compile-cache');
  bundle = join(base, 'bridge.js');
});

/** Compiles and runs `source` as CommonJS module `bundle` through `cache`. */
function load(source: Buffer, cache = new CompileCache(folder, WRITE_DELAY_MS)) {
  const { wrapper, outcome } = cache.compile(bundle, source);
  const module = { exports: {} as Record<string, (x?: number) => unknown> };
  wrapper(module.exports, createRequire(bundle), module as unknown as NodeJS.Module, bundle, '/');
  return { outcome, exports: module.exports };
}

const entries = (at = folder) => readdirSync(at).filter((name) => name.endsWith('.cache'));

/** Loads `source` once so that its entry is written, and returns the entry's path. */
async function written(source: Buffer): Promise<string> {
  load(source);
  return join(folder, await waitFor('the entry', () => entries()[0]));
}

describe('the compile cache', () => {
  it('misses, writes the entry after the start, then is used without writing again', async () => {
    const first = load(moduleSource('A'));
    assert.equal(first.outcome, 'missed');
    assert.equal(first.exports.sum!(1), 1275);
    assert.deepEqual(entries(), [], 'nothing is written before the delay');
    const entry = join(folder, await waitFor('the entry', () => entries()[0]));
    assert.match(entry, /\/bridge-[0-9a-f]{16}-[0-9a-f]{64}\.cache$/);
    assert.equal(statSync(folder).mode & 0o777, 0o700);
    assert.equal(statSync(entry).mode & 0o777, 0o600);
    assert.deepEqual(
      readdirSync(folder).filter((name) => !name.endsWith('.cache')),
      [],
      'no temporary file is left',
    );
    const written = statSync(entry);

    const second = load(moduleSource('A'));
    assert.equal(second.outcome, 'used', 'V8 accepted the entry');
    assert.equal(second.exports.version!(), 'A');
    assert.equal(second.exports.sum!(2), 1325);
    await sleep(NO_WRITE_MS);
    const after = statSync(entry);
    assert.deepEqual([after.ino, after.mtimeMs], [written.ino, written.mtimeMs]);
  });

  it('keeps the positions of the source in stack traces, compiled or from the entry', async () => {
    await written(moduleSource('A'));
    const { exports, outcome } = load(moduleSource('A'));
    assert.equal(outcome, 'used');
    assert.throws(
      () => exports.fail!(),
      (error: Error) => error.stack!.includes(`${bundle}:3:`),
    );
  });

  it('does not use the entry of other content, and replaces it', async () => {
    const old = await written(moduleSource('A'));
    const changed = load(moduleSource('B'));
    assert.equal(changed.outcome, 'missed');
    assert.equal(changed.exports.version!(), 'B');
    await waitFor('the old entry replaced', () => !entries().includes(basename(old)) || undefined);
    assert.equal(entries().length, 1);
    assert.equal(load(moduleSource('B')).outcome, 'used');
  });

  for (const [damage, spoil] of [
    ['a byte changed', (path: string) => flipByte(path, 1000)],
    ['truncated', (path: string) => truncateSync(path, statSync(path).size - 100)],
    ['empty', (path: string) => truncateSync(path, 0)],
  ] as const) {
    it(`runs the code without an entry that is ${damage}, and replaces it`, async () => {
      const entry = await written(moduleSource('A'));
      spoil(entry);
      const spoilt = readFileSync(entry);
      const { outcome, exports } = load(moduleSource('A'));
      assert.equal(outcome, 'missed');
      assert.equal(exports.sum!(1), 1275);
      await waitFor('the entry replaced', () => !readFileSync(entry).equals(spoilt) || undefined);
      assert.equal(load(moduleSource('A')).outcome, 'used');
    });
  }

  it('replaces an entry V8 rejects (as another Node or other flags make)', async () => {
    const entry = await written(moduleSource('A'));
    // Whole and this user's, but V8's data of another module: as another Node's would be.
    const foreign = readFileSync(await writtenElsewhere(moduleSource('a much longer module')));
    writeFileSync(entry, rehashed(foreign, moduleSource('A')));
    const { outcome, exports } = load(moduleSource('A'));
    assert.equal(outcome, 'rejected');
    assert.equal(exports.version!(), 'A');
    await waitFor('the entry replaced', () =>
      load(moduleSource('A')).outcome === 'used' ? true : undefined,
    );
  });

  it('reads no entry it did not write alone: a symlink, a hard link, a huge file', async () => {
    const entry = await written(moduleSource('A'));
    const elsewhere = join(folder, '..', 'elsewhere.cache');
    const valid = readFileSync(entry);
    const plant = (make: () => void) => {
      rmSync(entry);
      make();
      assert.equal(load(moduleSource('A')).outcome, 'missed');
    };

    plant(() => (writeFileSync(elsewhere, valid, { mode: 0o600 }), symlinkSync(elsewhere, entry)));
    await waitFor('the symlink replaced', () =>
      statSync(entry).ino !== statSync(elsewhere).ino ? true : undefined,
    );
    assert.deepEqual(readFileSync(elsewhere), valid, 'the link target is untouched');

    rmSync(elsewhere);
    plant(() => (writeFileSync(elsewhere, valid, { mode: 0o600 }), linkSync(elsewhere, entry)));
    await waitFor('the hard link replaced', () => (statSync(entry).nlink === 1 ? true : undefined));

    plant(() => (writeFileSync(entry, valid, { mode: 0o600 }), truncateSync(entry, 2 ** 30)));
    await waitFor('the huge file replaced', () =>
      statSync(entry).size < 2 ** 20 ? true : undefined,
    );
    assert.equal(load(moduleSource('A')).outcome, 'used');
  });

  it('is off in a folder that is a symlink, or that others may write to', async () => {
    const real = join(folder, '..', 'real');
    mkdirSync(real, { recursive: true, mode: 0o700 });
    symlinkSync(real, folder);
    assert.equal(load(moduleSource('A')).outcome, 'off');
    rmSync(folder);
    for (const mode of [0o770, 0o707, 0o777]) {
      mkdirSync(folder, { recursive: true });
      chmodSync(folder, mode);
      const { outcome, exports } = load(moduleSource('A'));
      assert.equal(outcome, 'off', `mode ${mode.toString(8)}`);
      assert.equal(exports.version!(), 'A');
      rmSync(folder, { recursive: true });
    }
    await sleep(NO_WRITE_MS);
    assert.deepEqual(readdirSync(real), []);
  });

  it('is off in a folder of another user', async (t) => {
    if (!needsRoot(t)) return;
    mkdirSync(folder, { recursive: true, mode: 0o700 });
    chownSync(folder, 65534, 65534);
    assert.equal(load(moduleSource('A')).outcome, 'off');
    await sleep(NO_WRITE_MS);
    assert.deepEqual(readdirSync(folder), []);
  });

  it('is off below a folder of another user, and makes nothing there', async (t) => {
    if (!needsRoot(t)) return;
    // XDG_CACHE_HOME in a shared folder, where another user made `tandem/` first.
    const tandem = join(folder, '..');
    mkdirSync(tandem, { recursive: true, mode: 0o755 });
    chownSync(tandem, OTHER_USER, OTHER_USER);
    assert.equal(load(moduleSource('A')).outcome, 'off');
    await sleep(NO_WRITE_MS);
    assert.deepEqual(readdirSync(tandem), []);
  });

  it('checks the folders again when it writes, and writes nothing once another user can change them', async (t) => {
    if (!needsRoot(t)) return;
    const delay = 5 * NO_WRITE_MS;
    assert.equal(load(moduleSource('A'), new CompileCache(folder, delay)).outcome, 'missed');
    // A cache beside it, started after it with the same delay, writes after it has tried.
    const control = join(folder, '..', '..', 'control');
    const controlCache = new CompileCache(control, delay);
    assert.equal(controlCache.compile(bundle, moduleSource('A')).outcome, 'missed');
    // Between the start and the write, a folder above becomes another user's (who may swap it).
    chownSync(join(folder, '..'), OTHER_USER, OTHER_USER);
    await waitFor('the control entry', () => entries(control)[0]);
    assert.deepEqual(readdirSync(folder), []);
  });

  it('runs the code when the folder cannot be made', () => {
    writeFileSync(join(folder, '..', '..', '..', 'cache'), 'a file where a folder should be');
    const { outcome, exports } = load(moduleSource('A'));
    assert.equal(outcome, 'off');
    assert.equal(exports.version!(), 'A');
  });

  it('is off without a folder (no home)', () => {
    assert.equal(load(moduleSource('A'), new CompileCache(undefined)).outcome, 'off');
  });
});

describe('the compile cache folder', () => {
  const home = () => '/home/user';
  it('is under XDG_CACHE_HOME, else under ~/.cache', () => {
    assert.equal(compileCacheFolder({ XDG_CACHE_HOME: '/xdg' }, home), '/xdg/tandem/compile-cache');
    assert.equal(compileCacheFolder({}, home), '/home/user/.cache/tandem/compile-cache');
    assert.equal(
      compileCacheFolder({ XDG_CACHE_HOME: 'relative' }, home),
      '/home/user/.cache/tandem/compile-cache',
      'a relative XDG_CACHE_HOME is ignored',
    );
  });

  it('is none without a home', () => {
    assert.equal(
      compileCacheFolder({}, () => ''),
      undefined,
    );
    assert.equal(
      compileCacheFolder({}, () => 'relative'),
      undefined,
    );
    const noUser = () => {
      throw new Error('no such user');
    };
    assert.equal(compileCacheFolder({}, noUser), undefined);
  });
});

function flipByte(path: string, at: number) {
  const bytes = readFileSync(path);
  bytes.writeUInt8(bytes.readUInt8(at) ^ 0xff, at);
  writeFileSync(path, bytes);
}

/** The entry of `source` in a folder of its own. */
async function writtenElsewhere(source: Buffer): Promise<string> {
  const other = join(folder, '..', 'other');
  load(source, new CompileCache(other, WRITE_DELAY_MS));
  return join(other, await waitFor('the other entry', () => entries(other)[0]));
}

/** `entry`'s V8 data under a digest made for `source`: whole as far as the cache can tell. */
function rehashed(entry: Buffer, source: Buffer): Buffer {
  const sourceDigest = createHash('sha256').update(source).digest();
  const data = entry.subarray(32);
  return Buffer.concat([createHash('sha256').update(sourceDigest).update(data).digest(), data]);
}
