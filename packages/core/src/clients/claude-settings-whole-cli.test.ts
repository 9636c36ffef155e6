import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, it } from 'node:test';
import {
  claudeCodeBinary,
  missing,
  RecordingEditor,
  Sandbox,
  startClaudeCode,
  waitFor,
  waitUntil,
} from '@tandem/testkit';
import { startEngine } from '../engine.fixture.js';
import { claudeSettings } from './claude-settings.js';

/**
 * The permission-mode rule against the newest real binary, started as a user starts it (no
 * `--permission-mode`): what `claudeSettings` predicts from its settings is what it does — no
 * settings, it writes the edit with no `openDiff`; `defaultMode: "default"` in its user
 * settings, the edit waits in the editor.
 */

const PROMPT = 'Please change beta in the notes';
const ORIGINAL = 'alpha\nbeta\ngamma\n';

function binaryMissing(): string[] {
  try {
    return existsSync(claudeCodeBinary('newest')) ? [] : ['Claude Code newest is not installed'];
  } catch (error) {
    return [(error as Error).message];
  }
}

async function run(userSettings: unknown | undefined) {
  const sandbox = new Sandbox();
  const editor = new RecordingEditor();
  const file = path.join(sandbox.workspace, 'notes.txt');
  await writeFile(file, ORIGINAL);
  if (userSettings !== undefined) {
    await mkdir(sandbox.claudeConfigDir, { recursive: true });
    await writeFile(
      path.join(sandbox.claudeConfigDir, 'settings.json'),
      JSON.stringify(userSettings),
    );
  }
  const predicted = await claudeSettings(sandbox.workspace, {
    HOME: path.join(sandbox.root, 'claude-run', 'home'),
    CLAUDE_CONFIG_DIR: sandbox.claudeConfigDir,
    PATH: '',
  });
  const engine = await startEngine(sandbox, editor);
  const cli = await startClaudeCode({
    version: 'newest',
    cwd: sandbox.workspace,
    dir: path.join(sandbox.root, 'claude-run'),
    claudeConfigDir: sandbox.claudeConfigDir,
    ssePort: engine.claudePort,
    script: { prompt: PROMPT, filePath: file, oldString: 'beta', newString: 'BETA' },
    permissionMode: null,
  });
  const stop = async () => {
    await cli.stop();
    await engine.stop();
    sandbox.remove();
  };
  try {
    await waitUntil('Claude Code connected', () =>
      engine.clients().some((client) => client.name === 'Claude Code'),
    );
    await cli.pane.type(PROMPT);
    await waitUntil('the prompt typed', async () => (await cli.pane.capture()).includes(PROMPT));
    await cli.pane.sendKeys('Enter');
    // Whichever comes first: the file written, or the diff in the editor.
    const outcome = await waitFor(
      'the edit written or shown',
      async () =>
        editor.diffFor(file)
          ? 'diff in the editor'
          : (await readFile(file, 'utf8')) !== ORIGINAL
            ? 'written without asking'
            : undefined,
      60_000,
    );
    return { predicted, outcome, stop, editor, file };
  } catch (error) {
    await stop();
    throw error;
  }
}

describe(
  'Claude Code newest, real: the permission mode its settings give',
  {
    skip: missing(['tmux'], binaryMissing()),
  },
  () => {
    it('no setting: it writes without openDiff, as predicted', async () => {
      const r = await run(undefined);
      try {
        assert.equal(r.predicted.showsDiffs, false);
        assert.equal(r.outcome, 'written without asking');
        assert.equal(r.editor.diffFor(r.file), undefined);
      } finally {
        await r.stop();
      }
    });

    it('defaultMode "default" in its user settings: the edit waits in the editor, as predicted', async () => {
      const r = await run({ permissions: { defaultMode: 'default' } });
      try {
        assert.equal(r.predicted.showsDiffs, true);
        assert.equal(r.outcome, 'diff in the editor');
        assert.equal(await readFile(r.file, 'utf8'), ORIGINAL);
      } finally {
        await r.stop();
      }
    });
  },
);
