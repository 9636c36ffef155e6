import assert from 'node:assert/strict';
import path from 'node:path';
import { readFile } from 'node:fs/promises';
import { describe, it } from 'node:test';
import { claudeCodeMissing, missing, waitFor } from '@tandem/testkit';
import { claudeAgainstEngine, ORIGINAL } from '../claude/claude-run.fixture.js';
import { claudeSettings } from './claude-settings.js';

/**
 * The permission-mode rule against the newest real binary, started as a user starts it (no
 * `--permission-mode`): what `claudeSettings` predicts from its settings is what it does — no
 * settings, it writes the edit with no `openDiff`; `defaultMode: "default"` in its user
 * settings, the edit waits in the editor.
 */

async function run(userSettings: unknown | undefined) {
  const s = await claudeAgainstEngine('newest', { userSettings, permissionMode: null });
  try {
    const predicted = await claudeSettings(s.sandbox.workspace, {
      HOME: path.join(s.sandbox.root, 'claude-run', 'home'),
      CLAUDE_CONFIG_DIR: s.sandbox.claudeConfigDir,
      PATH: '',
    });
    await s.connected();
    await s.prompt();
    // Whichever comes first: the file written, or the diff in the editor.
    const outcome = await waitFor(
      'the edit written or shown',
      async () =>
        s.editor.diffFor(s.file)
          ? 'diff in the editor'
          : (await readFile(s.file, 'utf8')) !== ORIGINAL
            ? 'written without asking'
            : undefined,
      60_000,
    );
    return { predicted, outcome, stop: s.stop, editor: s.editor, file: s.file };
  } catch (error) {
    await s.stop();
    throw error;
  }
}

describe(
  'Claude Code newest, real: the permission mode its settings give',
  {
    skip: missing(['tmux'], claudeCodeMissing('newest')),
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
