import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { printable } from '@tandem/command';
import { closedPort, deadPid, sceneForEachTest } from '../scan/test-scene.fixture.js';
import type { DoctorReport } from './doctor-report.js';
import { doctorCommand } from './doctor-command.js';
import { assertUsage } from '../command-usage.fixture.js';

const scene = sceneForEachTest();
const inContainer = existsSync('/.dockerenv') || existsSync('/run/.containerenv');

function doctor(cwd: string, argv: string[] = [], extra: NodeJS.ProcessEnv = {}) {
  return scene().run(doctorCommand, cwd, argv, { REMOTE_CONTAINERS: 'true', ...extra });
}

async function report(cwd: string, argv: string[] = [], extra: NodeJS.ProcessEnv = {}) {
  const { status, stdout, stderr } = await doctor(cwd, ['--json', ...argv], extra);
  assert.equal(stderr, '');
  const parsed = JSON.parse(stdout) as DoctorReport;
  assert.equal(status, parsed.ok ? 0 : 1);
  return parsed;
}

function codes(parsed: DoctorReport): string[] {
  return parsed.problems.map((problem) => `${problem.client ?? '-'}:${problem.code}`);
}

describe('tandem doctor', () => {
  test('all well: exit 0, readable sections, both CLIs connect', async () => {
    scene().enableIdeMode();
    const ws = scene().folder('ws');
    const engine = await scene().startEngine([ws]);
    const { status, stdout, stderr } = await doctor(scene().folder('ws/src'));
    assert.equal(stderr, '');
    assert.equal(status, 0, stdout);
    for (const heading of ['Discovery files', 'Gemini CLI', 'Qwen Code']) {
      assert.match(stdout, new RegExp(`^${heading}$`, 'm'));
    }
    assert.match(stdout, /✓ IDE mode on/);
    assert.match(
      stdout,
      new RegExp(`✓ connects to Neovim on port ${engine.port}, diffs shown in the editor`),
    );
    assert.match(
      stdout,
      new RegExp(
        `✓ Gemini CLI connects \\(port ${engine.port}\\); Qwen Code connects \\(port ${engine.port}\\)\\.\\n$`,
      ),
    );
    assert.deepEqual(engine.clients(), [], 'the handshakes left no session behind');
  });

  test('the JSON report keeps its documented shape', async () => {
    scene().enableIdeMode();
    const ws = scene().folder('ws');
    const engine = await scene().startEngine([ws]);
    const parsed = await report(ws);
    assert.deepEqual(Object.keys(parsed).sort(), [
      'clients',
      'dir',
      'environment',
      'files',
      'locations',
      'ok',
      'problems',
      'realDir',
      'version',
    ]);
    assert.equal(parsed.version, 1);
    assert.equal(parsed.ok, true);
    assert.deepEqual(parsed.files.map((file) => file.kind).sort(), [
      'gemini',
      'qwen-legacy',
      'qwen-lock',
    ]);
    for (const file of parsed.files) {
      assert.equal(file.port, engine.port);
      assert.equal(file.live, true);
      assert.equal(file.tandem, true);
      assert.equal(file.probe?.outcome, 'ok');
      assert.equal(file.workspace?.outcome, 'match');
    }
    assert.deepEqual(
      parsed.clients.map((client) => [client.client, client.connects, client.port]),
      [
        ['gemini', true, engine.port],
        ['qwen', true, engine.port],
      ],
    );
    const gemini = parsed.clients[0];
    assert.equal(gemini?.chosenFile, parsed.files.find((file) => file.kind === 'gemini')?.path);
    assert.deepEqual(gemini?.detectedIde, {
      name: 'neovim',
      displayName: 'Neovim',
      from: 'ideInfo',
    });
    assert.equal(gemini?.ideMode.decidedBy?.scope, 'user');
    const only = await report(ws, ['--cli', 'qwen']);
    assert.deepEqual(
      only.clients.map((client) => client.client),
      ['qwen'],
    );
  });

  test('IDE mode off: exit 1, and the fix says how to turn it on', async () => {
    const ws = scene().folder('ws');
    await scene().startEngine([ws]);
    const parsed = await report(ws);
    assert.equal(parsed.ok, false);
    assert.deepEqual(codes(parsed), ['gemini:ide-mode-off', 'qwen:ide-mode-off', 'qwen:no-diffs']);
    assert.match(parsed.problems[0]?.fix ?? '', /\/ide enable/);
    // Gemini CLI's first-run question offers an install that cannot work: say to answer No.
    assert.match(parsed.problems[0]?.fix ?? '', /answer No .*then type \/ide enable/);
    assert.match(
      parsed.problems[1]?.fix ?? '',
      new RegExp(join(scene().qwenHome, 'settings.json')),
    );
    const text = await doctor(ws);
    assert.match(text.stdout, /✗ IDE mode off/);
    assert.match(text.stdout, /would connect \(port \d+\) once IDE mode is on/);
  });

  test('Qwen Code in its default approval mode: connects, but no diff is ever shown', async () => {
    scene().enableIdeMode(null);
    const ws = scene().folder('ws');
    const engine = await scene().startEngine([ws]);
    const parsed = await report(ws);
    assert.equal(parsed.ok, true);
    assert.deepEqual(codes(parsed), ['qwen:no-diffs']);
    assert.deepEqual(parsed.clients[1]?.approvalMode, { mode: 'auto', showsDiffs: false });
    assert.match(parsed.problems[0]?.message ?? '', /diffs will never be shown/);
    assert.match(parsed.problems[0]?.fix ?? '', /Type \/approval-mode default in Qwen Code/);
    assert.match(parsed.problems[0]?.fix ?? '', /"tools": \{"approvalMode": "default"\}/);
    const text = await doctor(ws);
    assert.match(
      text.stdout,
      /! approval mode auto \((its default since 0\.21\.0|the default of Qwen Code [\d.]+)\): writes edits without asking/,
    );
    assert.match(
      text.stdout,
      new RegExp(`Qwen Code connects \\(port ${engine.port}\\) but shows no diffs`),
    );
  });

  test('directory mismatch: the open folders and where to start the CLI', async () => {
    scene().enableIdeMode();
    const other = scene().folder('other');
    await scene().startEngine([other]);
    const parsed = await report(scene().folder('ws'));
    assert.deepEqual(codes(parsed), ['gemini:directory-mismatch', 'qwen:directory-mismatch']);
    for (const problem of parsed.problems) assert.match(problem.message, new RegExp(other));
  });

  test('no editor: the fix says to start the companion before the CLI', async () => {
    scene().enableIdeMode();
    const parsed = await report(scene().folder('ws'));
    assert.deepEqual(codes(parsed), ['gemini:no-companion', 'qwen:no-companion']);
    assert.match(parsed.problems[0]?.fix ?? '', /tandem serve/);
  });

  test('stale files, a wrong token: each named with its fix', async () => {
    scene().enableIdeMode();
    const ws = scene().folder('ws');
    const engine = await scene().startEngine([ws], { hidden: true });
    const pid = await deadPid();
    const port = await closedPort();
    const lock = scene().writeDiscoveryFile(
      'qwen-lock',
      { port: port },
      { port, workspacePath: ws, authToken: 'x', ppid: pid },
    );
    scene().writeDiscoveryFile(
      'gemini',
      { pid: process.pid, port: engine.port },
      {
        port: engine.port,
        workspacePath: ws,
        authToken: 'wrong',
        ideInfo: { name: 'neovim', displayName: 'Neovim' },
      },
    );
    const parsed = await report(ws);
    assert.deepEqual(codes(parsed), [
      'gemini:wrong-token',
      'qwen:no-companion',
      '-:stale-discovery-file',
      '-:stale-discovery-file',
    ]);
    const staleLock = parsed.problems.find((problem) => problem.message.startsWith(lock));
    assert.match(staleLock?.message ?? '', /Qwen Code deletes it when it starts/);
    assert.equal(staleLock?.fix, `rm ${lock}`);
    assert.deepEqual(parsed.clients[1]?.deletes, [lock]);
    assert.ok(existsSync(lock), 'doctor itself deletes nothing');
  });

  test('several editors on the folder: how to choose one', async () => {
    scene().enableIdeMode();
    const ws = scene().folder('ws');
    const first = await scene().startEngine([ws]);
    const second = await scene().startEngine([ws]);
    const parsed = await report(ws, ['--cli', 'qwen']);
    assert.equal(parsed.clients[0]?.port, second.port);
    const info = parsed.problems.find((problem) => problem.code === 'several-editors');
    assert.match(info?.fix ?? '', new RegExp(`tandem env --port ${first.port}`));
  });

  test('the environment: TERM_PROGRAM, port variables, the container host', async () => {
    scene().enableIdeMode();
    const ws = scene().folder('ws');
    const engine = await scene().startEngine([ws]);
    const leaked = await report(ws, [], { TERM_PROGRAM: 'vscode', QWEN_CODE_IDE_SERVER_PORT: '1' });
    assert.ok(codes(leaked).includes('-:editor-variable'));
    assert.ok(codes(leaked).includes('qwen:stale-port-variable'));
    const tmux = await report(ws, [], { TERM_PROGRAM: 'tmux' });
    assert.deepEqual(codes(tmux), ['-:term-program']);
    const container = await report(ws, ['--cli', 'gemini'], { REMOTE_CONTAINERS: undefined });
    if (inContainer) {
      assert.deepEqual(codes(container), ['gemini:container-host']);
      assert.match(container.problems[0]?.fix ?? '', /REMOTE_CONTAINERS=true/);
      assert.equal(container.environment.container?.geminiHost, 'host.docker.internal');
    } else {
      assert.deepEqual(codes(container), []);
      assert.equal(container.clients[0]?.port, engine.port);
    }
  });

  test('values from a discovery file are printed escaped: no title, clipboard, erased line or new line', async () => {
    const ws = scene().folder('ws');
    const engine = await scene().startEngine([ws], { hidden: true });
    scene().writeHostileFile(engine, ws, '✓ all good');
    const { stdout } = await doctor(ws);
    for (const line of stdout.split('\n')) assert.equal(printable(line), line);
    assert.doesNotMatch(stdout, /^✓ all good/m);
    assert.ok(stdout.includes('Ed\\u001b]0;owned\\u0007'), stdout);
  });

  test('usage errors exit 2; --help documents the JSON', async () => {
    const ws = scene().folder('ws');
    const help = await assertUsage('doctor', (argv) => doctor(ws, argv), [
      ['--nope'],
      ['extra'],
      ['--cli', 'copilot'],
      ['--cwd', join(ws, 'missing')],
    ]);
    assert.match(help, /--json prints one object \(version 1/);
  });
});
