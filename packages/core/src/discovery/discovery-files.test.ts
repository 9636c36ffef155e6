import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readdir, readFile, stat, writeFile, mkdir } from 'node:fs/promises';
import { delimiter, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { RecordingEditor, Sandbox } from '@tandem/testkit';
import { startEngine } from '../engine.fixture.js';
import type { Engine } from '../engine.js';
import { discoveryFilePath, discoveryLocations } from '../clients/discovery-rules.js';
import { geminiIdePidFor, parentPid } from './processes.js';

/** Where the CLIs of the sandbox look. */
function locationsOf(sandbox: Sandbox) {
  return discoveryLocations(sandbox.env(), sandbox.workspace);
}

describe('discovery files', () => {
  let sandbox: Sandbox;
  let engine: Engine;

  before(async () => {
    sandbox = new Sandbox();
    engine = await startEngine(sandbox, new RecordingEditor(), {
      editor: { name: 'neovim', displayName: 'Neovim', pid: process.pid },
      workspaceFolders: ['/a/one', '/b/two'],
    });
  });

  after(async () => {
    await engine.stop();
    await sandbox.remove();
  });

  it('writes the Gemini file, the Qwen lock, the Qwen 0.1 file and the Claude lock, owner-only', async () => {
    const numbers = { pid: geminiIdePidFor(process.pid), port: engine.port };
    const at = locationsOf(sandbox);
    assert.deepEqual(
      [...engine.discoveryFiles].sort(),
      [
        discoveryFilePath(at, 'qwen-lock', numbers),
        discoveryFilePath(at, 'gemini', numbers),
        discoveryFilePath(at, 'qwen-legacy', numbers),
        join(sandbox.claudeConfigDir, 'ide', `${engine.claudePort}.lock`),
      ].sort(),
    );
    for (const file of engine.discoveryFiles) {
      assert.equal((await stat(file)).mode & 0o777, 0o600, file);
    }
    for (const dir of [
      join(sandbox.tmpDir, 'gemini'),
      join(sandbox.tmpDir, 'gemini', 'ide'),
      join(sandbox.qwenHome, 'ide'),
      join(sandbox.claudeConfigDir, 'ide'),
    ]) {
      assert.equal((await stat(dir)).mode & 0o777, 0o700, dir);
    }
    const leftovers = (await readdir(join(sandbox.tmpDir, 'gemini', 'ide'))).filter((n) =>
      n.endsWith('.tmp'),
    );
    assert.deepEqual(leftovers, []);
  });

  it('names the real editor and its live PID, never a faked TERM_PROGRAM', async () => {
    const gemini = JSON.parse(
      await readFile(
        engine.discoveryFiles.find((f) => f.includes('gemini-ide'))!,
        'utf8',
      ),
    );
    assert.equal(gemini.port, engine.port);
    assert.equal(gemini.workspacePath, ['/a/one', '/b/two'].join(delimiter));
    assert.deepEqual(gemini.ideInfo, { name: 'neovim', displayName: 'Neovim' });
    assert.match(gemini.authToken, /^[\w-]{43}$/);
    const lock = JSON.parse(
      await readFile(
        engine.discoveryFiles.find((f) => f.endsWith('.lock'))!,
        'utf8',
      ),
    );
    assert.equal(lock.ppid, process.pid);
    assert.equal(lock.ideName, 'Neovim');
    assert.equal(lock.authToken, gemini.authToken);
    assert.equal('TERM_PROGRAM' in engine.terminalEnv(), false);
  });

  it('names the Gemini file after the PID the CLI computes from a terminal of the editor', () => {
    const parent = parentPid(process.pid);
    assert.ok(parent !== undefined && parent > 1);
    assert.equal(geminiIdePidFor(process.pid), parent);
    assert.equal(engine.terminalEnv().GEMINI_CLI_IDE_PID, String(parent));
  });

  it('rewrites the files when the workspace changes', async () => {
    await engine.workspaceChanged(['/c/three']);
    const lockPath = engine.discoveryFiles.find((f) => f.endsWith('.lock'))!;
    assert.equal(JSON.parse(await readFile(lockPath, 'utf8')).workspacePath, '/c/three');
    assert.equal(engine.terminalEnv().QWEN_CODE_IDE_WORKSPACE_PATH, '/c/three');
  });

  it('writes a JSON array for Qwen when a folder holds the path delimiter', async () => {
    await engine.workspaceChanged([`/odd${delimiter}name`, '/plain']);
    const lockPath = engine.discoveryFiles.find((f) => f.endsWith('.lock'))!;
    const { workspacePath } = JSON.parse(await readFile(lockPath, 'utf8'));
    assert.deepEqual(JSON.parse(workspacePath), [`/odd${delimiter}name`, '/plain']);
  });
});

describe('each writer can be turned off', () => {
  it('writes only what is on', async () => {
    const sandbox = new Sandbox();
    const engine = await startEngine(sandbox, new RecordingEditor(), {
      discovery: {
        tmpDir: sandbox.tmpDir,
        qwenHome: sandbox.qwenHome,
        gemini: false,
        qwenLegacy: false,
        claude: false,
      },
    });
    try {
      assert.deepEqual(engine.discoveryFiles, [
        discoveryFilePath(locationsOf(sandbox), 'qwen-lock', { pid: 0, port: engine.port }),
      ]);
    } finally {
      await engine.stop();
      await sandbox.remove();
    }
  });
});

describe('files left behind', () => {
  it('are removed on stop', async () => {
    const sandbox = new Sandbox();
    const engine = await startEngine(sandbox, new RecordingEditor());
    const files = [...engine.discoveryFiles];
    await engine.stop();
    for (const file of files) await assert.rejects(stat(file), { code: 'ENOENT' });
    await sandbox.remove();
  });

  it('by a killed engine are swept by the next start; another companion’s are not', async () => {
    const sandbox = new Sandbox();
    try {
      // A real engine in another process, killed with SIGKILL: it cannot clean up.
      const child = spawn(
        process.execPath,
        ['--import', 'tsx', new URL('./discovery-victim.fixture.ts', import.meta.url).pathname],
        {
          env: {
            ...process.env,
            SANDBOX_TMP: sandbox.tmpDir,
            SANDBOX_QWEN: sandbox.qwenHome,
            SANDBOX_CLAUDE: sandbox.claudeConfigDir,
            SANDBOX_WS: sandbox.workspace,
          },
          stdio: ['ignore', 'pipe', 'inherit'],
        },
      );
      const written: string[] = await new Promise((resolve, reject) => {
        let out = '';
        child.stdout.on('data', (d: Buffer) => {
          out += d;
          if (out.includes('\n')) resolve(JSON.parse(out));
        });
        child.on('exit', () => reject(new Error('the victim exited early')));
      });
      child.kill('SIGKILL');
      await new Promise((r) => child.once('exit', r));
      for (const file of written) await stat(file);

      const foreignDir = join(sandbox.qwenHome, 'ide');
      await mkdir(foreignDir, { recursive: true });
      const foreign = join(foreignDir, '1.lock');
      await writeFile(foreign, JSON.stringify({ port: 1, workspacePath: '/x', ppid: 999999999 }));

      const engine = await startEngine(sandbox, new RecordingEditor());
      for (const file of written) await assert.rejects(stat(file), { code: 'ENOENT' }, file);
      await stat(foreign);
      await engine.stop();
    } finally {
      await sandbox.remove();
    }
  });

  it('as temporary files by a writer that died are swept by the next start; a live writer’s are not', async () => {
    const sandbox = new Sandbox();
    try {
      const dir = join(sandbox.tmpDir, 'gemini', 'ide');
      await mkdir(dir, { recursive: true, mode: 0o700 });
      const gone = spawn(process.execPath, ['-e', '']);
      await new Promise((resolve) => gone.once('exit', resolve));
      const left = join(dir, `gemini-ide-server-1-2.json.${gone.pid}.0123456789ab.tmp`);
      const live = join(dir, `gemini-ide-server-1-3.json.${process.pid}.0123456789ab.tmp`);
      const other = join(dir, `other.${gone.pid}.tmp`);
      for (const file of [left, live, other]) await writeFile(file, '');
      const engine = await startEngine(sandbox, new RecordingEditor());
      await engine.stop();
      await assert.rejects(stat(left), { code: 'ENOENT' });
      await stat(live);
      await stat(other);
    } finally {
      await sandbox.remove();
    }
  });
});
