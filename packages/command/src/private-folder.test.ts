import assert from 'node:assert/strict';
import {
  chmodSync,
  chownSync,
  existsSync,
  lchownSync,
  mkdirSync,
  mkdtempSync,
  realpathSync,
  rmSync,
  statSync,
  symlinkSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, beforeEach, describe, it } from 'node:test';
import { needsRoot } from '@tandem/testkit';
import { makePrivateFolder, privateFolderProblem } from './private-folder.js';

/** A user id no account has here: a folder given to it is another user's. */
const OTHER_USER = 12345;

const root = realpathSync(mkdtempSync(join(tmpdir(), 'private-folder-')));
after(() => rmSync(root, { recursive: true, force: true }));

let base: string;
beforeEach(() => {
  base = mkdtempSync(join(root, 'case-'));
});

describe('a private folder', () => {
  it('is made owner-only, each missing folder, and then passes', () => {
    const folder = join(base, 'cache', 'tandem', 'compile-cache');
    assert.equal(privateFolderProblem(folder), `${folder} does not exist`);
    assert.equal(makePrivateFolder(folder), undefined);
    for (const made of ['cache', 'cache/tandem', 'cache/tandem/compile-cache']) {
      assert.equal(statSync(join(base, made)).mode & 0o777, 0o700, made);
    }
    assert.equal(makePrivateFolder(folder), undefined, 'again, as it is');
  });

  it('is refused when a folder above belongs to another user, and nothing is made there', (t) => {
    if (!needsRoot(t)) return;
    const shared = join(base, 'tandem');
    mkdirSync(shared, { mode: 0o755 });
    chownSync(shared, OTHER_USER, OTHER_USER);
    const folder = join(shared, 'compile-cache');
    assert.equal(
      makePrivateFolder(folder),
      `${shared}, which holds ${folder}, belongs to another user (uid ${OTHER_USER})`,
    );
    assert.equal(existsSync(folder), false);
  });

  it('is never made in a home that is not this user’s (root with a user’s HOME)', (t) => {
    if (!needsRoot(t)) return;
    const home = join(base, 'home');
    mkdirSync(home, { mode: 0o755 });
    chownSync(home, OTHER_USER, OTHER_USER);
    const folder = join(home, '.cache', 'tandem', 'compile-cache');
    assert.match(makePrivateFolder(folder)!, /home, which holds .* belongs to another user/);
    assert.equal(existsSync(join(home, '.cache')), false, 'not even ~/.cache');
  });

  it('is refused below a folder others may write to, unless it is sticky', () => {
    const open = join(base, 'open');
    mkdirSync(open);
    chmodSync(open, 0o777);
    assert.match(makePrivateFolder(join(open, 'x'))!, /open, which holds .* \(mode 0777\)/);
    assert.equal(existsSync(join(open, 'x')), false);
    chmodSync(open, 0o1777);
    assert.equal(makePrivateFolder(join(open, 'x')), undefined);
  });

  it('is refused when the group or others may write to it, or when it is a link', () => {
    const folder = join(base, 'folder');
    mkdirSync(folder, { mode: 0o700 });
    for (const mode of [0o770, 0o707, 0o1777]) {
      chmodSync(folder, mode);
      assert.match(privateFolderProblem(folder)!, /can be changed by other users/);
    }
    chmodSync(folder, 0o700);
    const link = join(base, 'link');
    symlinkSync(folder, link);
    assert.equal(privateFolderProblem(link), `${link} is a symbolic link`);
  });

  it('is reached through this user’s own links, each target walked by the same rule', (t) => {
    const real = join(base, 'real');
    mkdirSync(join(real, 'tandem'), { recursive: true, mode: 0o700 });
    symlinkSync(real, join(base, 'absolute'));
    symlinkSync('../real', join(base, 'tandem-up'));
    mkdirSync(join(base, 'sub'));
    symlinkSync('../real', join(base, 'sub', 'relative'));
    for (const via of ['absolute', 'sub/relative']) {
      assert.equal(privateFolderProblem(join(base, via, 'tandem')), undefined, via);
    }
    if (!needsRoot(t)) return;
    const theirs = join(base, 'theirs');
    symlinkSync(real, theirs);
    lchownSync(theirs, OTHER_USER, OTHER_USER);
    assert.match(privateFolderProblem(join(theirs, 'tandem'))!, /is a link of another user/);
    // The target is walked too: a folder of another user there is found.
    chownSync(real, OTHER_USER, OTHER_USER);
    assert.match(
      privateFolderProblem(join(base, 'absolute', 'tandem'))!,
      /real, which holds .* another user/,
    );
  });

  it('is refused when it is not a folder, or a loop of links', () => {
    const loop = join(base, 'loop');
    symlinkSync(loop, loop);
    assert.match(privateFolderProblem(join(loop, 'x'))!, /too many links/);
    assert.match(privateFolderProblem('relative/folder')!, /not an absolute path/);
  });

  it('is only made where there are no user ids (Windows)', () => {
    const getuid = Object.getOwnPropertyDescriptor(process, 'getuid')!;
    Object.defineProperty(process, 'getuid', { value: undefined, configurable: true });
    try {
      const folder = join(base, 'made', 'whole');
      assert.equal(makePrivateFolder(folder), undefined);
      assert.ok(statSync(folder).isDirectory());
    } finally {
      Object.defineProperty(process, 'getuid', getuid);
    }
  });
});
