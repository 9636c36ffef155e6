/**
 * The discovery folders may be shared with other users (`/tmp/gemini/ide` is the same for
 * everyone on the machine): what another user can put or change there must neither stall the
 * engine nor receive its secret.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmod, chown, mkdir, readdir, stat, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { privateFolderProblem } from '@tandem/command';
import { memoryLogger, needsRoot, RecordingEditor, Sandbox } from '@tandem/testkit';
import { discoveryLocations } from '../clients/discovery-rules.js';
import { startEngine } from '../engine.fixture.js';
import { readSmallRegularFile } from './safe-folder.js';

/** These folders are Gemini CLI's and Qwen Code's: Claude Code's lock file is left out. */
const GEMINI_QWEN_ONLY = { discovery: { claude: false } };

const NOBODY = 65534;
/** A user id no account has here, as a home of another user's. */
const OTHER_USER = 12345;

async function withSandbox(body: (sandbox: Sandbox) => Promise<void>): Promise<void> {
  const sandbox = new Sandbox();
  try {
    await body(sandbox);
  } finally {
    await sandbox.remove();
  }
}

function foldersOf(sandbox: Sandbox) {
  const at = discoveryLocations(sandbox.env(), sandbox.workspace);
  return { gemini: at.geminiIdeDir, qwen: at.qwenIdeDir };
}

/** Fails instead of hanging when `promise` does not settle within a generous bound. */
async function settles<T>(promise: Promise<T>, what: string, ms = 30_000): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const hang = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not finish in ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, hang]);
  } finally {
    clearTimeout(timer);
  }
}

describe('the start-up sweep of shared discovery folders', () => {
  it('is not stalled by a FIFO, a link to /dev/zero or a huge file posing as discovery files', () =>
    withSandbox(async (sandbox) => {
      const { gemini, qwen } = foldersOf(sandbox);
      for (const dir of [gemini, qwen]) {
        await mkdir(dir, { recursive: true, mode: 0o700 });
        execFileSync('mkfifo', [join(dir, 'x.json')]);
        execFileSync('mkfifo', [join(dir, '9.lock')]);
        await symlink('/dev/zero', join(dir, 'zero.json'));
        await writeFile(join(dir, 'huge.json'), Buffer.alloc(8 * 1024 * 1024, 0x20));
      }
      const before = process.memoryUsage().rss;
      const engine = await settles(
        startEngine(sandbox, new RecordingEditor(), GEMINI_QWEN_ONLY),
        'the start',
      );
      try {
        assert.equal(engine.discoveryFiles.length, 3);
        // Reading /dev/zero would have cost hundreds of megabytes.
        assert.ok(process.memoryUsage().rss - before < 100 * 1024 * 1024);
      } finally {
        await settles(engine.stop(), 'the stop');
      }
      for (const dir of [gemini, qwen]) {
        assert.ok((await readdir(dir)).includes('x.json'), 'another program’s files are left');
      }
    }));

  it('reads only small regular files, never through a link', () =>
    withSandbox(async (sandbox) => {
      const dir = sandbox.tmpDir;
      await writeFile(join(dir, 'ok.json'), '{"a":1}');
      execFileSync('mkfifo', [join(dir, 'fifo.json')]);
      await symlink(join(dir, 'ok.json'), join(dir, 'link.json'));
      await symlink('/dev/zero', join(dir, 'zero.json'));
      await writeFile(join(dir, 'big.json'), Buffer.alloc(65 * 1024, 0x20));
      assert.equal(await readSmallRegularFile(join(dir, 'ok.json')), '{"a":1}');
      for (const name of ['fifo.json', 'link.json', 'zero.json', 'big.json', 'none.json']) {
        assert.equal(await settles(readSmallRegularFile(join(dir, name)), name), undefined, name);
      }
    }));
});

describe('discovery folders another user can change', () => {
  it('a Gemini folder owned by another user is skipped with a warning; the Qwen lock is still written', (t) =>
    withSandbox(async (sandbox) => {
      if (!needsRoot(t)) return;
      const { gemini } = foldersOf(sandbox);
      await mkdir(gemini, { recursive: true, mode: 0o755 });
      await chown(gemini, NOBODY, NOBODY);
      const log = memoryLogger();
      const engine = await startEngine(sandbox, new RecordingEditor(), {
        ...GEMINI_QWEN_ONLY,
        log,
      });
      try {
        assert.deepEqual(
          engine.discoveryFiles.map((file) => file.startsWith(gemini)),
          [false],
          'only the Qwen lock',
        );
        assert.ok(engine.discoveryFiles[0]!.endsWith('.lock'));
        const warnings = log.lines.filter((line) => line.startsWith('warn:'));
        assert.equal(warnings.length, 2, warnings.join('\n'));
        for (const warning of warnings) assert.match(warning, /belongs to another user/);
        assert.deepEqual(await readdir(gemini), [], 'nothing written into the foreign folder');
      } finally {
        await engine.stop();
      }
    }));

  it('a folder above the discovery folder owned by another user is refused', (t) =>
    withSandbox(async (sandbox) => {
      if (!needsRoot(t)) return;
      const { gemini } = foldersOf(sandbox);
      const above = join(sandbox.tmpDir, 'gemini');
      await mkdir(gemini, { recursive: true, mode: 0o700 });
      await chown(above, NOBODY, NOBODY);
      assert.match(privateFolderProblem(gemini)!, /gemini, which holds .* another user/);
      const engine = await startEngine(sandbox, new RecordingEditor(), {
        ...GEMINI_QWEN_ONLY,
        log: memoryLogger(),
      });
      try {
        assert.equal(engine.discoveryFiles.filter((f) => f.startsWith(gemini)).length, 0);
        assert.equal(engine.discoveryFiles.length, 1);
      } finally {
        await engine.stop();
      }
    }));

  it('a world-writable discovery folder is refused, even one of this user', () =>
    withSandbox(async (sandbox) => {
      const { qwen } = foldersOf(sandbox);
      await mkdir(qwen, { recursive: true });
      await chmod(qwen, 0o777);
      const log = memoryLogger();
      const engine = await startEngine(sandbox, new RecordingEditor(), {
        ...GEMINI_QWEN_ONLY,
        log,
      });
      try {
        assert.equal(engine.discoveryFiles.filter((f) => f.startsWith(qwen)).length, 0);
        assert.equal(engine.discoveryFiles.length, 2, 'both files in the Gemini folder');
        assert.ok(log.lines.some((l) => /can be changed by other users \(mode 0777\)/.test(l)));
        assert.deepEqual(await readdir(qwen), []);
      } finally {
        await engine.stop();
      }
    }));

  it('a discovery folder that is a symbolic link is refused', () =>
    withSandbox(async (sandbox) => {
      const { gemini } = foldersOf(sandbox);
      const elsewhere = join(sandbox.root, 'elsewhere');
      await mkdir(elsewhere, { mode: 0o700 });
      await mkdir(join(sandbox.tmpDir, 'gemini'), { mode: 0o700 });
      await symlink(elsewhere, gemini);
      const log = memoryLogger();
      const engine = await startEngine(sandbox, new RecordingEditor(), {
        ...GEMINI_QWEN_ONLY,
        log,
      });
      try {
        assert.equal(engine.discoveryFiles.length, 1, 'only the Qwen lock');
        assert.ok(log.lines.some((l) => l.includes('is a symbolic link')));
        assert.deepEqual(await readdir(elsewhere), []);
      } finally {
        await engine.stop();
      }
    }));

  it('a folder the engine creates is owner-only and passes', () =>
    withSandbox(async (sandbox) => {
      const engine = await startEngine(sandbox, new RecordingEditor(), GEMINI_QWEN_ONLY);
      try {
        const { gemini, qwen } = foldersOf(sandbox);
        for (const dir of [gemini, qwen]) {
          assert.equal((await stat(dir)).mode & 0o777, 0o700);
          assert.equal(privateFolderProblem(dir), undefined);
        }
      } finally {
        await engine.stop();
      }
    }));

  it('nothing is made in a home that is not this user’s (root with a user’s HOME)', (t) =>
    withSandbox(async (sandbox) => {
      if (!needsRoot(t)) return;
      const home = join(sandbox.root, 'their-home');
      await mkdir(home, { mode: 0o755 });
      await chown(home, OTHER_USER, OTHER_USER);
      const log = memoryLogger();
      const engine = await startEngine(sandbox, new RecordingEditor(), {
        log,
        discovery: {
          tmpDir: sandbox.tmpDir,
          qwenHome: join(home, '.qwen'),
          claudeConfigDir: join(home, '.claude'),
        },
      });
      try {
        assert.equal(engine.discoveryFiles.length, 2, 'both files in the Gemini folder');
        assert.ok(log.lines.some((l) => /their-home, which holds .* another user/.test(l)));
        assert.deepEqual(await readdir(home), [], 'no ~/.qwen or ~/.claude made');
      } finally {
        await engine.stop();
      }
    }));
});
