import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, it } from 'node:test';
import {
  claudeCodeMissing,
  claudeCodeVersions,
  missing,
  RecordingEditor,
  Sandbox,
  startClaudeCode,
  waitFor,
  waitUntil,
  type ClaudeCodeRun,
  type ClaudeCodeVersion,
} from '@tandem/testkit';
import { startEngine } from '../engine.fixture.js';
import type { Engine } from '../engine.js';

const PROMPT = 'Please change beta in the notes';
const ORIGINAL = 'alpha\nbeta\ngamma\n';

/** One real Claude Code against a real engine whose editor is the test's. */
async function scene(version: ClaudeCodeVersion) {
  const sandbox = new Sandbox();
  const editor = new RecordingEditor();
  const file = path.join(sandbox.workspace, 'notes.txt');
  await writeFile(file, ORIGINAL);
  const engine: Engine = await startEngine(sandbox, editor);
  const run: ClaudeCodeRun = await startClaudeCode({
    version,
    cwd: sandbox.workspace,
    dir: path.join(sandbox.root, 'claude-run'),
    claudeConfigDir: sandbox.claudeConfigDir,
    ssePort: engine.claudePort,
    script: { prompt: PROMPT, filePath: file, oldString: 'beta', newString: 'BETA' },
  });
  const screen = () => run.pane.capture();
  const stop = async () => {
    await run.stop();
    await engine.stop();
    sandbox.remove();
  };
  return { sandbox, editor, file, engine, run, screen, stop };
}

type Scene = Awaited<ReturnType<typeof scene>>;

/**
 * Connected by `CLAUDE_CODE_SSE_PORT` alone; the user selects two lines once Claude Code listens
 * (it hears the selection only once it has set the connection up: the selection is made again
 * until it shows it), then sends the prompt; resolves with the diff shown in the editor.
 */
async function selectAndPrompt(s: Scene) {
  await waitUntil('Claude Code connected', () =>
    s.engine.clients().some((client) => client.name === 'Claude Code'),
  );
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
  await s.run.pane.type(PROMPT);
  await waitUntil('the prompt typed', async () => (await s.screen()).includes(PROMPT));
  await s.run.pane.sendKeys('Enter');
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
    it('writes exactly the user’s text after an accept in the editor with an edit', async () => {
      const s = await scene(version);
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
      const s = await scene(version);
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
