import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { describe, it } from 'node:test';
import {
  claudeCodeMissing,
  claudeCodeVersions,
  missing,
  waitFor,
  waitUntil,
} from '@tandem/testkit';
import { claudeAgainstEngine, ORIGINAL, PROMPT, type ClaudeRun } from './claude-run.fixture.js';

/**
 * Connected by `CLAUDE_CODE_SSE_PORT` alone; the user selects two lines once Claude Code listens
 * (it hears the selection only once it has set the connection up: the selection is made again
 * until it shows it), then sends the prompt; resolves with the diff shown in the editor.
 */
async function selectAndPrompt(s: ClaudeRun) {
  await s.connected();
  s.engine.fileFocused(s.file);
  let selected = false;
  await waitFor(
    'Claude Code to show the selection',
    async () => {
      if (/2 lines selected/.test(await s.screen())) return true;
      selected = !selected;
      if (selected) s.engine.cursorChanged(s.file, 3, 5, 'beta\ngamma');
      else s.engine.cursorChanged(s.file, 1, 1);
      return undefined;
    },
    60_000,
    500,
  );
  await s.prompt();
  const diff = await waitFor('the diff in the editor', () => s.editor.diffFor(s.file), 60_000);
  assert.equal(diff.oldContent, ORIGINAL);
  assert.equal(diff.newContent, 'alpha\nBETA\ngamma\n');
  assert.equal(diff.client.name, 'Claude Code');
  // The selection went to the model with the prompt.
  const withPrompt = s.run.model.requests.filter((texts) => texts.some((t) => t.includes(PROMPT)));
  assert.ok(
    withPrompt.some((texts) =>
      texts.some((text) => text.includes(s.file) && text.includes('beta\ngamma')),
    ),
    'the selection is in a model request of the prompt',
  );
  return diff;
}

for (const version of claudeCodeVersions()) {
  const skip = missing(['tmux'], claudeCodeMissing(version));
  describe(`Claude Code ${version}, real, against a real engine`, { skip }, () => {
    it('shows the selection the user made before it connected', async () => {
      const s = await claudeAgainstEngine(version, { selectedBeforeStart: true });
      try {
        await s.connected();
        await waitUntil('Claude Code to show the selection', async () =>
          /2 lines selected/.test(await s.screen()),
        );
      } finally {
        await s.stop();
      }
    });

    it('writes exactly the user’s text after an accept in the editor with an edit', async () => {
      const s = await claudeAgainstEngine(version);
      try {
        const diff = await selectAndPrompt(s);
        const userText = 'alpha\nthe user’s own line\ngamma\n';
        assert.deepEqual(s.engine.diffAccepted(diff.id, userText), { ok: true });
        await waitUntil(
          'the file written',
          async () => (await readFile(s.file, 'utf8')) === userText,
        );
        await waitUntil('the turn over', async () =>
          (await s.screen()).includes('The proposed edit is done.'),
        );
        assert.equal(await readFile(s.file, 'utf8'), userText);
      } finally {
        await s.stop();
      }
    });

    it('leaves the file untouched after a reject in the editor, and ends the turn', async () => {
      const s = await claudeAgainstEngine(version);
      try {
        const diff = await selectAndPrompt(s);
        assert.deepEqual(s.engine.diffRejected(diff.id), { ok: true });
        await waitUntil('the turn over', async () =>
          /Rejected update to notes\.txt|User rejected/.test(await s.screen()),
        );
        assert.equal(await readFile(s.file, 'utf8'), ORIGINAL);
      } finally {
        await s.stop();
      }
    });
  });
}
