/**
 * Qwen Code as a user meets it: started without flags, in the approval mode its settings give
 * ("auto" by default). It writes the edit without asking, so no diff ever reaches the editor —
 * and doctor, the engine's warnings and the CLI agree on it beforehand.
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import {
  CLIENTS_DIR,
  editPrompt,
  inputPattern,
  needsProgram,
  RecordingEditor,
  Sandbox,
  startCliSession,
  startEngine,
  waitFor,
} from '@tandem/testkit';
import { diagnose } from './diagnosis.js';

test('Qwen Code in its default approval mode writes the edit itself: no diff, as doctor said', async (t) => {
  if (!needsProgram(t, 'tmux')) return;
  const sandbox = new Sandbox('tandem-approval-');
  const target = join(sandbox.workspace, 'notes.txt');
  writeFileSync(target, 'before\n');
  const proposal = 'after, written without a review\n';
  const editor = new RecordingEditor();
  const engine = await startEngine(sandbox, editor);
  const session = await startCliSession({
    cli: 'qwen',
    cwd: sandbox.workspace,
    home: sandbox.home,
    tmpDir: sandbox.tmpDir,
    qwenHome: sandbox.qwenHome,
    edit: { filePath: target, content: proposal },
    approvalMode: null,
    promptAtStart: false,
  });
  try {
    const env = {
      // The real Qwen Code first on the PATH: doctor reads its version, whose default decides.
      PATH: `${join(CLIENTS_DIR, 'node_modules', '.bin')}:${process.env.PATH}`,
      HOME: sandbox.home,
      TMPDIR: sandbox.tmpDir,
      QWEN_HOME: sandbox.qwenHome,
      QWEN_CODE_SYSTEM_SETTINGS_PATH: join(sandbox.home, 'no-system-settings.json'),
      QWEN_CODE_SYSTEM_DEFAULTS_PATH: join(sandbox.home, 'no-system-defaults.json'),
    };
    const report = await diagnose({ dir: sandbox.workspace, env, clients: ['qwen'] });
    const qwen = report.clients[0]!;
    assert.equal(qwen.connects, true, qwen.status);
    const { version } = JSON.parse(
      readFileSync(
        join(CLIENTS_DIR, 'node_modules', '@qwen-code', 'qwen-code', 'package.json'),
        'utf8',
      ),
    );
    assert.deepEqual(qwen.approvalMode, { mode: 'auto', showsDiffs: false, version });
    const problem = report.problems.find((p) => p.code === 'no-diffs');
    assert.match(problem?.message ?? '', /diffs will never be shown/);
    assert.match(problem?.fix ?? '', /\/approval-mode default/);
    assert.ok(engine.warnings().some((w) => w.code === 'no-diffs' && w.cli === 'qwen'));

    // Connected first: the edit must have had every chance to reach the editor.
    await waitFor(
      'Qwen Code to connect',
      () => engine.clients().some((client) => client.name === 'Qwen Code') || undefined,
    );
    await session.waitForScreen(inputPattern);
    await session.submit(editPrompt({ filePath: target, content: proposal }));
    await waitFor(
      'Qwen Code to write the proposal itself',
      () => readFileSync(target, 'utf8') === proposal || undefined,
      120_000,
    ).catch(async (error: unknown) => {
      throw new Error(`${String(error)}\nthe CLI's screen:\n${await session.screen()}`);
    });
    assert.equal(editor.shown.size, 0, 'no diff may have been shown');
  } finally {
    await session.stop();
    await engine.stop();
    sandbox.remove();
  }
});
