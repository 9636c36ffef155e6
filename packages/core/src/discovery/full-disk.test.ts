/**
 * The discovery files on a real full disk (a small tmpfs): a rewrite that fails leaves no
 * temporary file and keeps the earlier files, which still connect; they are written again once
 * there is room.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import {
  closeSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import { memoryLogger, RecordingEditor, Sandbox, waitFor } from '@tandem/testkit';
import { startEngine } from '../engine.fixture.js';

/** A 256 KiB tmpfs at `dir`, or `false` (the test skipped, with why) where none can be mounted. */
function smallDisk(t: TestContext, dir: string): boolean {
  mkdirSync(dir);
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=256k,mode=0755', 'tmpfs', dir], {
      stdio: 'pipe',
    });
    return true;
  } catch (error) {
    // CI runs as root and can mount: there, not mounting is a failure.
    if (process.env.CI) throw error;
    const reason = `cannot mount a tmpfs (${String(error).split('\n')[0]})`;
    console.log(`skipped: ${reason}`);
    t.skip(reason);
    return false;
  }
}

/** Fills the disk of `file`'s folder to the last byte. */
function fill(file: string): void {
  const fd = openSync(file, 'w');
  try {
    const chunk = Buffer.alloc(4096, 0x20);
    for (;;) writeSync(fd, chunk);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
  } finally {
    closeSync(fd);
  }
}

const contents = (files: readonly string[]) => files.map((file) => readFileSync(file, 'utf8'));

describe('discovery files on a full disk', () => {
  it('keep the earlier files and leave no temporary file when a rewrite fails, and are written again once there is room', async (t) => {
    const sandbox = new Sandbox();
    const disk = join(sandbox.root, 'disk');
    if (!smallDisk(t, disk)) return sandbox.remove();
    try {
      const folders = {
        tmpDir: join(disk, 'tmp'),
        qwenHome: join(disk, 'qwen'),
        claudeConfigDir: join(disk, 'claude'),
      };
      for (const folder of Object.values(folders)) mkdirSync(folder, { mode: 0o700 });
      const log = memoryLogger();
      const engine = await startEngine({ ...sandbox, ...folders }, new RecordingEditor(), {
        log,
        discovery: { ...folders, retryMs: 50 },
      });
      try {
        const files = [...engine.discoveryFiles];
        assert.equal(files.length, 4);
        const before = contents(files);

        const filler = join(disk, 'filler');
        fill(filler);
        await engine.workspaceChanged(['/moved']);
        assert.deepEqual(contents(files), before, 'the earlier files are kept whole');
        assert.deepEqual(engine.discoveryFiles, files);
        const folderFiles = [
          join(folders.tmpDir, 'gemini', 'ide'),
          join(folders.qwenHome, 'ide'),
        ].flatMap((folder) => readdirSync(folder));
        assert.deepEqual(
          folderFiles.filter((name) => name.endsWith('.tmp')),
          [],
          'no temporary file is left',
        );
        assert.ok(log.lines.some((line) => /^warn: could not write .*ENOSPC/.test(line)));

        rmSync(filler);
        await waitFor('every file written again', () =>
          contents(files).every((text) => text.includes('/moved')) ? true : undefined,
        );
        assert.ok(log.lines.some((line) => line.startsWith('info: wrote ')));
      } finally {
        await engine.stop();
      }
      assert.deepEqual(
        readdirSync(join(folders.tmpDir, 'gemini', 'ide')),
        [],
        'the stop removes them',
      );
    } finally {
      execFileSync('umount', [disk]);
      sandbox.remove();
    }
  });
});
