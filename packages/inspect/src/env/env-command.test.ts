import assert from 'node:assert/strict';
import { chownSync } from 'node:fs';
import { basename, delimiter, dirname, join } from 'node:path';
import { describe, test } from 'node:test';
import { printable } from '@tandem/command';
import { containerFacts } from '@tandem/core';
import { evaluate, needsRoot, startRealClient, type ClientKind } from '@tandem/testkit';
import { closedPort, deadPid, sceneForEachTest } from '../scan/test-scene.fixture.js';
import { envCommand } from './env-command.js';
import { assertUsage } from '../command-usage.fixture.js';

const NAMES = [
  'GEMINI_CLI_IDE_SERVER_PORT',
  'GEMINI_CLI_IDE_WORKSPACE_PATH',
  'GEMINI_CLI_IDE_PID',
  'QWEN_CODE_IDE_SERVER_PORT',
  'QWEN_CODE_IDE_WORKSPACE_PATH',
  'CLAUDE_CODE_SSE_PORT',
  'CLAUDE_CODE_IDE_SKIP_AUTO_INSTALL',
];

const scene = sceneForEachTest();
const NOBODY = 65534;
const NEOVIM_INFO = { name: 'neovim', displayName: 'Neovim' };

function tandemEnv(cwd: string, argv: string[] = [], extra: NodeJS.ProcessEnv = {}) {
  return scene().run(envCommand, cwd, argv, { SHELL: '/bin/bash', ...extra });
}

/** What the printed code sets, read back by a real bash. */
function exported(code: string): Record<string, string | undefined> {
  return evaluate('bash', code, NAMES);
}

/** The PID in the name of an engine's Gemini CLI file. */
function geminiPidOf(paths: readonly string[]): string {
  const name = paths
    .map((path) => basename(path))
    .find((file) => file.startsWith('gemini-ide-server-'));
  return name?.split('-')[3] ?? '';
}

describe('tandem env', () => {
  test('exports the variables of the editor that has the folder open', async () => {
    const ws = scene().folder('ws');
    const engine = await scene().startEngine([ws]);
    const { status, stdout, stderr } = await tandemEnv(scene().folder('ws/src'));
    assert.equal(status, 0, stderr);
    assert.equal(stderr, '');
    assert.deepEqual(exported(stdout), {
      GEMINI_CLI_IDE_SERVER_PORT: String(engine.port),
      GEMINI_CLI_IDE_WORKSPACE_PATH: ws,
      GEMINI_CLI_IDE_PID: geminiPidOf(engine.discoveryFiles),
      QWEN_CODE_IDE_SERVER_PORT: String(engine.port),
      QWEN_CODE_IDE_WORKSPACE_PATH: ws,
      CLAUDE_CODE_SSE_PORT: String(engine.claudePort),
      CLAUDE_CODE_IDE_SKIP_AUTO_INSTALL: '1',
    });
    assert.deepEqual(
      exported(stdout),
      Object.fromEntries(
        Object.entries(engine.terminalEnv()).filter(([name]) => NAMES.includes(name)),
      ),
      "the same variables as the editor's own terminals get",
    );
  });

  test('--cwd names the folder; the syntax follows $SHELL or --shell', async () => {
    const ws = scene().folder('ws');
    const engine = await scene().startEngine([ws]);
    const fish = await tandemEnv(scene().root, ['--cwd', 'ws'], { SHELL: '/usr/bin/fish' });
    assert.equal(fish.status, 0, fish.stderr);
    assert.match(
      fish.stdout,
      new RegExp(`^set -gx GEMINI_CLI_IDE_SERVER_PORT ${engine.port};$`, 'm'),
    );
    const zsh = await tandemEnv(ws, ['--shell', 'zsh'], { SHELL: '/usr/bin/fish' });
    assert.match(
      zsh.stdout,
      new RegExp(`^export GEMINI_CLI_IDE_SERVER_PORT=${engine.port};$`, 'm'),
    );
  });

  test('the most specific workspace wins over a newer editor of a parent folder', async () => {
    const inner = await scene().startEngine([scene().folder('ws/pkg')]);
    const outer = await scene().startEngine([scene().folder('ws')]);
    const { status, stdout, stderr } = await tandemEnv(scene().folder('ws/pkg/src'));
    assert.equal(status, 0);
    assert.equal(exported(stdout).GEMINI_CLI_IDE_SERVER_PORT, String(inner.port));
    assert.match(stderr, /2 editors have this folder open/);
    assert.match(stderr, new RegExp(`--port ${outer.port}`));
  });

  test('among editors of the same folder the newest wins; --port picks another', async () => {
    const ws = scene().folder('ws');
    const older = await scene().startEngine([ws]);
    const newer = await scene().startEngine([ws]);
    const chosen = await tandemEnv(ws);
    assert.equal(exported(chosen.stdout).QWEN_CODE_IDE_SERVER_PORT, String(newer.port));
    const picked = await tandemEnv(ws, ['--port', String(older.port)]);
    assert.equal(picked.status, 0);
    assert.equal(picked.stderr, '');
    assert.equal(exported(picked.stdout).QWEN_CODE_IDE_SERVER_PORT, String(older.port));
  });

  test('no editor for the folder: exit 1, the reason on stderr, nothing on stdout', async () => {
    const other = scene().folder('other');
    const engine = await scene().startEngine([other]);
    const ws = scene().folder('ws');
    const { status, stdout, stderr } = await tandemEnv(ws);
    assert.equal(status, 1);
    assert.equal(stdout, '');
    assert.match(stderr, new RegExp(`no running editor has ${ws} open`));
    assert.match(
      stderr,
      new RegExp(`Neovim \\(PID ${process.pid}\\) on port ${engine.port}: ${other}`),
    );
    const wrongPort = await tandemEnv(ws, ['--port', String(engine.port)]);
    assert.equal(wrongPort.status, 1);
    assert.match(wrongPort.stderr, /does not have .* open/);
    const unknownPort = await tandemEnv(ws, ['--port', String(await closedPort())]);
    assert.equal(unknownPort.status, 1);
    assert.match(unknownPort.stderr, /no discovery file names port/);
  });

  test('files of editors that are gone do not count', async () => {
    const ws = scene().folder('ws');
    const pid = await deadPid();
    const port = await closedPort();
    const content = { port, workspacePath: ws, authToken: 't' };
    scene().writeFileFor('qwen', content, pid);
    scene().writeFileFor('gemini', content, pid);
    const { status, stderr } = await tandemEnv(ws);
    assert.equal(status, 1);
    assert.match(stderr, /No editor companion is running/);
    assert.match(stderr, /1 stale discovery file set ignored/);
  });

  test("another user's companion is never chosen, even when its file names every folder", async (t) => {
    if (!needsRoot(t)) return;
    const ws = scene().folder('ws');
    const theirs = await scene().startEngine([ws], { hidden: true });
    // Another user created the shared folder first, and planted a file whose workspacePath has
    // an empty entry: Gemini CLI reads that entry as its own folder.
    const fields = { ...scene().fieldsFor(theirs, `${delimiter}/elsewhere`), ideInfo: NEOVIM_INFO };
    const planted = scene().writeFileFor('gemini', fields);
    for (const path of [dirname(planted), planted]) chownSync(path, NOBODY, NOBODY);
    const { status, stdout, stderr } = await tandemEnv(ws);
    assert.equal(status, 1, stdout);
    assert.equal(stdout, '');
    assert.match(stderr, /No editor companion is running/);
    assert.match(stderr, /1 discovery file of another user ignored/);
  });

  test('values from a discovery file reach the terminal escaped, even under eval', async () => {
    const ws = scene().folder('ws');
    const other = scene().folder('other');
    const engine = await scene().startEngine([other], { hidden: true });
    scene().writeHostileFile(engine, other, 'export X=1');
    const { status, stderr } = await tandemEnv(ws);
    assert.equal(status, 1);
    assert.match(stderr, /Running editors and their folders/);
    for (const line of stderr.split('\n')) assert.equal(printable(line), line);
    assert.doesNotMatch(stderr, /^export X=1/m);
  });

  test("a companion with only Gemini CLI's file: the Qwen variables are unset", async () => {
    const ws = scene().folder('ws');
    const engine = await scene().startEngine([ws], { hidden: true });
    scene().writeFileFor('gemini', scene().fieldsFor(engine, ws));
    const { status, stdout } = await tandemEnv(ws);
    assert.equal(status, 0);
    const result = evaluate('bash', stdout, NAMES, { QWEN_CODE_IDE_SERVER_PORT: '1' });
    assert.equal(result.GEMINI_CLI_IDE_SERVER_PORT, String(engine.port));
    assert.equal(result.QWEN_CODE_IDE_SERVER_PORT, undefined);
  });

  test("an older companion's file named after a PID: GEMINI_CLI_IDE_PID names it", async () => {
    const ws = scene().folder('ws');
    const engine = await scene().startEngine([ws], { hidden: true });
    scene().writeDiscoveryFile('gemini-pid', { pid: process.pid }, scene().fieldsFor(engine, ws));
    const { status, stdout } = await tandemEnv(ws);
    assert.equal(status, 0);
    assert.deepEqual(exported(stdout), {
      GEMINI_CLI_IDE_SERVER_PORT: String(engine.port),
      GEMINI_CLI_IDE_WORKSPACE_PATH: ws,
      GEMINI_CLI_IDE_PID: String(process.pid),
      QWEN_CODE_IDE_SERVER_PORT: undefined,
      QWEN_CODE_IDE_WORKSPACE_PATH: undefined,
      // Hand-written files of an older companion: no Claude Code listener.
      CLAUDE_CODE_SSE_PORT: undefined,
      CLAUDE_CODE_IDE_SKIP_AUTO_INSTALL: undefined,
    });
  });

  test('in a container, Gemini CLI is told to dial 127.0.0.1; an override already set stays', async () => {
    const ws = scene().folder('ws');
    await scene().startEngine([ws]);
    const read = (code: string) => evaluate('bash', code, ['REMOTE_CONTAINERS']);
    const inContainer = containerFacts({}).marker !== undefined;
    const plain = await tandemEnv(ws, [], {
      REMOTE_CONTAINERS: undefined,
      SSH_CONNECTION: undefined,
    });
    assert.deepEqual(read(plain.stdout), { REMOTE_CONTAINERS: inContainer ? 'true' : undefined });
    const ssh = await tandemEnv(ws, [], {
      REMOTE_CONTAINERS: undefined,
      SSH_CONNECTION: '1 2 3 4',
    });
    assert.deepEqual(read(ssh.stdout), { REMOTE_CONTAINERS: undefined });
  });

  test('usage errors exit 2; --help exits 0', async () => {
    const ws = scene().folder('ws');
    await assertUsage('env', (argv) => tandemEnv(ws, argv), [
      ['--nope'],
      ['extra'],
      ['--shell', 'tcsh'],
      ['--port', 'x'],
      ['--cwd', join(ws, 'missing')],
    ]);
  });
});

describe('tandem env makes the real clients pick the chosen editor', () => {
  for (const kind of ['gemini', 'qwen'] as ClientKind[]) {
    test(`${kind}: two editors on one folder, --port names the older`, async () => {
      // Left alone, both clients pick the newer editor: Qwen Code the newest lock, Gemini CLI
      // the file named after the higher running PID.
      const ws = scene().folder('ws');
      const [low, high] = [process.ppid, process.pid].sort((a, b) => a - b) as [number, number];
      const older = await scene().startEngine([ws], { geminiIdePid: low });
      await scene().startEngine([ws], { geminiIdePid: high });
      const { stdout } = await tandemEnv(ws, ['--port', String(older.port)]);
      const variables = exported(stdout);
      const client = await startRealClient({
        kind,
        cwd: ws,
        tmpDir: scene().tmpDir,
        qwenHome: scene().qwenHome,
        home: scene().home,
        env: variables,
      });
      try {
        const state = await client.connect();
        assert.equal(state.status, 'connected', state.details);
        assert.deepEqual(scene().connectedPorts(), [older.port]);
      } finally {
        await client.kill();
      }
    });
  }
});

describe('tandem env in a container', () => {
  test('gemini: with the exports alone the real client dials 127.0.0.1 and connects', async (t) => {
    if (!containerFacts({}).marker) {
      t.skip(
        'not in a container (no /.dockerenv or /run/.containerenv): Gemini CLI dials 127.0.0.1 anyway',
      );
      return;
    }
    const ws = scene().folder('ws');
    const engine = await scene().startEngine([ws]);
    const noOverride = {
      REMOTE_CONTAINERS: undefined,
      SSH_CONNECTION: undefined,
      VSCODE_REMOTE_CONTAINERS_SESSION: undefined,
    };
    const { stdout } = await tandemEnv(ws, [], noOverride);
    const connect = async (env: Record<string, string | undefined>) => {
      const client = await startRealClient({
        kind: 'gemini',
        cwd: ws,
        tmpDir: scene().tmpDir,
        qwenHome: scene().qwenHome,
        home: scene().home,
        env: { ...noOverride, ...env },
      });
      try {
        return await client.connect();
      } finally {
        await client.kill();
      }
    };
    // Without them it dials host.docker.internal and fails: the rule is the client's own.
    const without = await connect({});
    assert.notEqual(without.status, 'connected');
    const exportedHere = evaluate('bash', stdout, [...NAMES, 'REMOTE_CONTAINERS']);
    assert.equal(exportedHere.REMOTE_CONTAINERS, 'true');
    const withThem = await connect(exportedHere);
    assert.equal(withThem.status, 'connected', withThem.details);
    assert.deepEqual(scene().connectedPorts(), [engine.port]);
  });
});
