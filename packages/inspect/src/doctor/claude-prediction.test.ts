import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, test } from 'node:test';
import { deadPid, sceneForEachTest } from '../scan/test-scene.fixture.js';
import type { DoctorReport } from './doctor-report.js';
import { doctorCommand } from './doctor-command.js';

/** `tandem doctor` for Claude Code, with lock files planted where its binary looks. */

const scene = sceneForEachTest();

function write(path: string, value: unknown): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, typeof value === 'string' ? value : JSON.stringify(value));
}

function lock(
  port: number,
  content: Record<string, unknown>,
  dir = join(scene().home, '.claude'),
): string {
  const path = join(dir, 'ide', `${port}.lock`);
  write(path, { transport: 'ws', authToken: 't', runningInWindows: false, ...content });
  return path;
}

async function doctor(cwd: string, argv: string[] = [], extra: NodeJS.ProcessEnv = {}) {
  const { status, stdout, stderr } = await scene().run(doctorCommand, cwd, argv, extra);
  assert.equal(stderr, '');
  return { status, stdout };
}

async function report(cwd: string, argv: string[] = [], extra: NodeJS.ProcessEnv = {}) {
  const { status, stdout } = await doctor(cwd, ['--json', ...argv], extra);
  const parsed = JSON.parse(stdout) as DoctorReport;
  assert.equal(status, parsed.ok ? 0 : 1);
  return parsed;
}

const claudeCodes = (parsed: DoctorReport) =>
  parsed.problems.filter((p) => p.client === 'claude').map((p) => p.code);

/** The user settings that ask before each edit: the diffs reach the editor. */
function askBeforeEdits(): void {
  write(join(scene().home, '.claude', 'settings.json'), {
    permissions: { defaultMode: 'default' },
  });
}

describe('tandem doctor: Claude Code', () => {
  test('no lock for the folder: it finds no editor; its newest default mode shows no diffs', async () => {
    const ws = scene().folder('ws');
    const parsed = await report(ws, ['--cli', 'claude']);
    assert.equal(parsed.ok, false);
    assert.deepEqual(parsed.clients, []);
    assert.equal(parsed.claude?.connection, 'none');
    assert.deepEqual(parsed.claude?.lockFolders, [join(scene().home, '.claude', 'ide')]);
    assert.deepEqual(claudeCodes(parsed), ['claude-no-editor', 'no-diffs']);
    const noDiffs = parsed.problems.find((p) => p.code === 'no-diffs')!;
    assert.match(noDiffs.fix!, /--permission-mode default/);
    const { stdout } = await doctor(ws, ['--cli', 'claude']);
    assert.match(stdout, /^Claude Code$/m);
    assert.match(
      stdout,
      /✗ CLAUDE_CODE_SSE_PORT is not set, and no live lock file has this folder/,
    );
    assert.match(stdout, /✗ Claude Code finds no editor\.\n$/);
  });

  test('a live lock for the folder: --ide or /ide; dead and unreadable locks are deleted', async () => {
    askBeforeEdits();
    const ws = scene().folder('ws');
    const live = lock(30001, { pid: process.pid, workspaceFolders: [ws], ideName: 'Neovim' });
    const dead = lock(30002, { pid: await deadPid(), workspaceFolders: [ws], ideName: 'Emacs' });
    const broken = join(dirname(live), '30003.lock');
    write(broken, '{not json');
    lock(30004, { pid: process.pid, workspaceFolders: [scene().folder('elsewhere')] });
    const parsed = await report(scene().folder('ws/src'), ['--cli', 'claude']);
    assert.equal(parsed.ok, true);
    const claude = parsed.claude!;
    assert.equal(claude.connection, 'with-ide-flag');
    assert.equal(claude.port, 30001);
    assert.deepEqual(claude.listed, [30001]);
    assert.deepEqual(claude.deletes.sort(), [dead, broken].sort());
    assert.deepEqual(claudeCodes(parsed), [
      'claude-needs-ide',
      'claude-deletes-lock',
      'claude-deletes-lock',
    ]);
    assert.match(
      claude.locks.find((l) => l.port === 30004)!.note,
      /does not contain this folder: not offered/,
    );
    // A second editor on the folder: /ide offers both, and the other companion is named.
    lock(30005, { pid: process.pid, workspaceFolders: [ws], ideName: 'Visual Studio Code' });
    const two = await report(ws, ['--cli', 'claude']);
    assert.equal(two.claude?.connection, 'by-ide-command');
    assert.deepEqual(two.claude?.listed, [30001, 30005]);
    const others = two.problems.filter((p) => p.code === 'claude-other-companion');
    assert.equal(others.length, 2);
    assert.match(others[1]!.fix!, /disable Anthropic's Claude Code extension/);
  });

  test('CLAUDE_CODE_SSE_PORT naming a live lock: it connects by itself; naming none: say so', async () => {
    askBeforeEdits();
    const ws = scene().folder('ws');
    lock(30001, { pid: process.pid, workspaceFolders: [ws], ideName: 'Neovim' });
    const parsed = await report(ws, ['--cli', 'claude'], { CLAUDE_CODE_SSE_PORT: '30001' });
    assert.equal(parsed.claude?.connection, 'by-itself');
    assert.equal(parsed.claude?.port, 30001);
    assert.deepEqual(claudeCodes(parsed), []);
    const { stdout } = await doctor(ws, ['--cli', 'claude'], { CLAUDE_CODE_SSE_PORT: '30001' });
    assert.match(stdout, /✓ Claude Code connects by itself \(port 30001\)\.\n$/);
    const stale = await report(ws, ['--cli', 'claude'], { CLAUDE_CODE_SSE_PORT: '30009' });
    assert.equal(stale.claude?.connection, 'with-ide-flag');
    assert.deepEqual(claudeCodes(stale), ['claude-port-stale', 'claude-needs-ide']);
  });

  test('with CLAUDE_CONFIG_DIR it reads both folders; diffTool "terminal" is named', async () => {
    const ws = scene().folder('ws');
    const config = scene().folder('claude-config');
    write(join(config, 'settings.json'), { permissions: { defaultMode: 'acceptEdits' } });
    write(join(config, '.claude.json'), { diffTool: 'terminal' });
    lock(30001, { pid: process.pid, workspaceFolders: [ws], ideName: 'Neovim' });
    const parsed = await report(ws, ['--cli', 'claude'], { CLAUDE_CONFIG_DIR: config });
    assert.deepEqual(parsed.claude?.lockFolders, [
      join(config, 'ide'),
      join(scene().home, '.claude', 'ide'),
    ]);
    assert.equal(parsed.claude?.port, 30001);
    // Warnings before information.
    assert.deepEqual(claudeCodes(parsed), ['no-diffs', 'terminal-diffs', 'claude-needs-ide']);
    assert.match(
      parsed.problems.find((p) => p.code === 'no-diffs')!.message,
      /"acceptEdits" \(set in .*claude-config\/settings\.json\)/,
    );
  });

  test('without --cli, Claude Code is checked only for its users', async () => {
    scene().enableIdeMode();
    const ws = scene().folder('ws');
    await scene().startEngine([ws]);
    // The engine's own lock makes ~/.claude/ide: that is not Claude Code being installed.
    assert.equal((await report(ws)).claude, undefined);
    askBeforeEdits();
    const parsed = await report(ws);
    assert.equal(parsed.claude?.connection, 'with-ide-flag');
    assert.equal(parsed.claude?.locks[0]?.tandem, true);
  });
});
