/**
 * Doctor's Claude Code model against the newest real binary: the lock files it says Claude Code
 * deletes (a dead `pid`, one it cannot read) are gone once it has connected, a live one stays, and it connects by
 * itself to the editor that `CLAUDE_CODE_SSE_PORT` names, as doctor said.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { claudeIdeDir, Engine } from '@tandem/core';
import {
  claudeCodeBinary,
  needsProgram,
  RecordingEditor,
  Sandbox,
  startClaudeCode,
  waitUntil,
} from '@tandem/testkit';
import { deadPid } from '../scan/test-scene.fixture.js';
import { predictClaude } from './claude-prediction.js';

function binaryInstalled(): boolean {
  try {
    return existsSync(claudeCodeBinary('newest'));
  } catch {
    return false;
  }
}

test('Claude Code deletes the locks doctor names and connects by itself where doctor says', async (t) => {
  if (!needsProgram(t, 'tmux')) return;
  if (!binaryInstalled()) return void t.skip('Claude Code newest is not installed');
  const sandbox = new Sandbox('tandem-claude-doctor-');
  const engine = await Engine.start({
    editor: { name: 'test-editor', displayName: 'Test Editor', pid: process.pid },
    frontend: new RecordingEditor(),
    workspaceFolders: [sandbox.workspace],
    discovery: {
      tmpDir: sandbox.tmpDir,
      qwenHome: sandbox.qwenHome,
      claudeConfigDir: sandbox.claudeConfigDir,
    },
  });
  const ide = claudeIdeDir(sandbox.claudeConfigDir);
  mkdirSync(ide, { recursive: true });
  const dead = join(ide, '30002.lock');
  writeFileSync(
    dead,
    JSON.stringify({
      pid: await deadPid(),
      workspaceFolders: [sandbox.workspace],
      ideName: 'Gone',
    }),
  );
  const broken = join(ide, '30003.lock');
  writeFileSync(broken, '{not json');
  // Another editor, alive, elsewhere: doctor does not name it, and it stays.
  const other = join(ide, '30004.lock');
  writeFileSync(
    other,
    JSON.stringify({
      pid: process.pid,
      workspaceFolders: [sandbox.root + '-elsewhere'],
      ideName: 'Other',
    }),
  );
  const home = join(sandbox.root, 'claude-run', 'home');
  const env = {
    HOME: home,
    CLAUDE_CONFIG_DIR: sandbox.claudeConfigDir,
    CLAUDE_CODE_SSE_PORT: String(engine.claudePort),
    PATH: '',
  };
  const predicted = await predictClaude(sandbox.workspace, env);
  assert.equal(predicted.connection, 'by-itself');
  assert.equal(predicted.port, engine.claudePort);
  assert.deepEqual(predicted.deletes.sort(), [dead, broken].sort());
  const cli = await startClaudeCode({
    version: 'newest',
    cwd: sandbox.workspace,
    dir: join(sandbox.root, 'claude-run'),
    claudeConfigDir: sandbox.claudeConfigDir,
    ssePort: engine.claudePort,
    script: {
      prompt: 'unused',
      filePath: join(sandbox.workspace, 'x'),
      oldString: 'a',
      newString: 'b',
    },
  });
  try {
    await waitUntil('Claude Code connected', () =>
      engine.clients().some((client) => client.name === 'Claude Code'),
    );
    await waitUntil(
      'the locks doctor named deleted',
      () => !existsSync(dead) && !existsSync(broken),
    );
    // Tandem's own lock stays, and the live one elsewhere.
    assert.ok(existsSync(join(ide, `${engine.claudePort}.lock`)));
    assert.ok(existsSync(other));
  } finally {
    await cli.stop();
    await engine.stop();
    sandbox.remove();
  }
});
