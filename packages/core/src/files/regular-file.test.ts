/**
 * What a companion reads: regular files within a size, never a FIFO, a device, a socket or a
 * file the kernel makes up, and nothing that waits.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chown, mkdir, symlink, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { needsRoot, Sandbox } from '@tandem/testkit';
import { readRegularFile, type FileRead } from './regular-file.js';

const NOBODY = 65534;

/**
 * The read settles, or the test fails: nothing may wait. A read that waits on a FIFO or a
 * device never settles; the bound is far beyond what a busy machine takes to read a file.
 */
async function settles(read: Promise<FileRead>, what: string): Promise<FileRead> {
  const late = new Promise<never>((_, reject) => {
    setTimeout(() => reject(new Error(`reading ${what} did not settle`)), 10_000).unref();
  });
  return Promise.race([read, late]);
}

async function withSandbox(body: (sandbox: Sandbox) => Promise<void>): Promise<void> {
  const sandbox = new Sandbox();
  try {
    await body(sandbox);
  } finally {
    sandbox.remove();
  }
}

describe('readRegularFile', () => {
  it('reads a regular file, through a link only when asked to', () =>
    withSandbox(async ({ workspace }) => {
      const file = join(workspace, 'a.txt');
      await writeFile(file, 'héllo\n');
      await symlink(file, join(workspace, 'link.txt'));
      assert.deepEqual(await readRegularFile(file, { maxBytes: 100 }), {
        status: 'text',
        text: 'héllo\n',
      });
      const link = join(workspace, 'link.txt');
      assert.equal(
        (await readRegularFile(link, { maxBytes: 100, followLinks: true })).status,
        'text',
      );
      assert.deepEqual(await readRegularFile(link, { maxBytes: 100 }), {
        status: 'refused',
        reason: 'is a symbolic link',
      });
      const missing = join(workspace, 'none', 'b.txt');
      assert.deepEqual(await readRegularFile(missing, { maxBytes: 100 }), { status: 'missing' });
    }));

  it('refuses a FIFO, a socket, a folder and devices at once, without reading them', () =>
    withSandbox(async ({ workspace }) => {
      const fifo = join(workspace, 'fifo');
      execFileSync('mkfifo', [fifo]);
      const socketPath = join(workspace, 'socket');
      const server = createServer().listen(socketPath);
      await new Promise((resolve) => server.once('listening', resolve));
      await symlink('/dev/zero', join(workspace, 'zero.txt'));
      try {
        const cases: [string, string][] = [
          [fifo, 'is a FIFO'],
          [socketPath, 'is a socket'],
          [workspace, 'is a folder'],
          ['/dev/zero', 'is a device'],
          ['/dev/urandom', 'is a device'],
          [join(workspace, 'zero.txt'), 'is a device'],
        ];
        const before = process.memoryUsage().rss;
        for (const [path, reason] of cases) {
          const read = await settles(
            readRegularFile(path, { maxBytes: 64 * 1024 * 1024, followLinks: true }),
            path,
          );
          assert.deepEqual(read, { status: 'refused', reason }, path);
        }
        assert.ok(process.memoryUsage().rss - before < 32 * 1024 * 1024);
      } finally {
        server.close();
      }
    }));

  it('refuses what /proc makes up: its size says nothing of its content', async () => {
    for (const path of ['/proc/self/environ', '/proc/self/cmdline', '/proc/self/status']) {
      const read = await readRegularFile(path, { maxBytes: 1024 * 1024, followLinks: true });
      assert.equal(read.status, 'refused', path);
      assert.match(read.status === 'refused' ? read.reason : '', /not a file on disk/, path);
    }
  });

  it('refuses a file over the size, by its size and by what it holds', () =>
    withSandbox(async ({ workspace }) => {
      const file = join(workspace, 'big.txt');
      await writeFile(file, Buffer.alloc(1025, 0x61));
      assert.deepEqual(await readRegularFile(file, { maxBytes: 1024 }), {
        status: 'refused',
        reason: 'is larger than 1024 bytes',
      });
      assert.equal((await readRegularFile(file, { maxBytes: 1025 })).status, 'text');
    }));

  it("refuses another user's file when the owner is asked for", (t) =>
    withSandbox(async ({ workspace }) => {
      if (!needsRoot(t)) return;
      const dir = join(workspace, 'theirs');
      await mkdir(dir);
      const file = join(dir, 'x.json');
      await writeFile(file, '{}');
      await chown(file, NOBODY, NOBODY);
      const read = await readRegularFile(file, { maxBytes: 100, ownerUid: process.getuid!() });
      assert.deepEqual(read, {
        status: 'refused',
        reason: `belongs to another user (uid ${NOBODY})`,
      });
    }));
});
