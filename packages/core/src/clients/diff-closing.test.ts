/**
 * What a frontend is told when the CLI closes a diff, judged by the real clients. An answer in
 * the terminal (`resolveDiffFromCli`: approved or cancelled, the client closes the same way)
 * first closes the view, keeping the user's edits where the CLI drops them; then the engine
 * watches the file and says which it was. The real clients stop at resolving their diff: what
 * the whole CLI then writes, the tests write here, as each CLI does (docs/clients.md, "Both").
 */
import assert from 'node:assert/strict';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import {
  connectedClientIn,
  engineForBlock,
  realClientIn,
  RecordingEditor,
  Sandbox,
  waitFor,
  type RealClient,
} from '@tandem/testkit';
import type { DiffClosedNotice, DiffOutcomeNotice } from '../editor-port.js';
import { startEngine } from '../engine.fixture.js';
import { TERMINAL_WRITE_LIMIT_MS } from './diff-rules.js';

/** Records what the user is told of each view closed and what became of it; `userText` is the user's typing. */
class ClosingEditor extends RecordingEditor {
  readonly closings = new Map<string, DiffClosedNotice>();
  readonly outcomes = new Map<string, DiffOutcomeNotice>();
  readonly userText = new Map<string, string>();

  diffClosed(id: string, notice: DiffClosedNotice): void {
    assert.ok(!this.closings.has(id), `one notice for ${id}`);
    this.closings.set(id, notice);
  }

  override async closeDiff(id: string): Promise<string> {
    const typed = this.userText.get(this.shown.get(id)!.filePath);
    if (typed !== undefined) this.edits.set(id, typed);
    return super.closeDiff(id);
  }

  diffOutcome(id: string, outcome: DiffOutcomeNotice): void {
    assert.ok(!this.outcomes.has(id), `one outcome for ${id}`);
    this.outcomes.set(id, outcome);
  }
}

/**
 * `client` proposes `proposal\n` for `path` (holding `before` first, or absent when null); resolves
 * once the editor shows it, with the diff's id there.
 */
async function propose(
  client: RealClient,
  editor: ClosingEditor,
  path: string,
  before: string | null = 'before\n',
) {
  if (before !== null) await writeFile(path, before);
  const diff = client.openDiff(path, 'proposal\n');
  await diff.opened;
  return { diff, id: editor.diffFor(path)!.id };
}

/** Long enough for any outcome: the engine's own time limit, and the machine's load. */
const OUTCOME_WAIT_MS = TERMINAL_WRITE_LIMIT_MS + 30_000;

// Most cases wait out the engine's time limit for the CLI's write; each block below has an
// engine, a client and a sandbox of its own, so they wait side by side.
describe("diffs answered in the CLI's terminal", { concurrency: 3 }, () => {
  for (const kind of ['gemini', 'qwen'] as const) {
    const cli = kind === 'gemini' ? 'Gemini CLI' : 'Qwen Code';

    describe(`${kind}: a diff answered in the CLI's terminal, then written or not`, () => {
      const world = engineForBlock(() => new ClosingEditor());
      let client: RealClient;

      before(async () => {
        client = await connectedClientIn(world.sandbox, kind);
      });
      after(async () => {
        await client?.kill();
      });

      /** Opens a diff of `name` (holding `before`, or absent when null), answered in the terminal. */
      async function answerInTerminal(
        name: string,
        answer: 'accepted' | 'rejected',
        options: { before?: string | null; typed?: string } = {},
      ) {
        const path = join(world.sandbox.workspace, name);
        if (options.typed !== undefined) world.editor.userText.set(path, options.typed);
        const { diff, id } = await propose(client, world.editor, path, options.before);
        await client.resolveDiffFromCli(path, answer);
        const closing = await waitFor('the view to be closed', () => world.editor.closings.get(id));
        assert.equal(closing.reason, 'terminal');
        const result = await diff.result;
        assert.equal(result.status, answer);
        return { path, id, closing, result };
      }

      function outcomeOf(id: string): Promise<DiffOutcomeNotice> {
        return waitFor(
          'what became of the diff',
          () => world.editor.outcomes.get(id),
          OUTCOME_WAIT_MS,
        );
      }

      /** `name` is written with `text` while its diff is open, then the diff is answered. */
      async function writtenThenAnswered(
        name: string,
        text: string,
        answer: 'accepted' | 'rejected',
      ): Promise<DiffOutcomeNotice> {
        const path = join(world.sandbox.workspace, name);
        const { id } = await propose(client, world.editor, path);
        await writeFile(path, text);
        await client.resolveDiffFromCli(path, answer);
        return outcomeOf(id);
      }

      it('approved with the user edits: the closing keeps them where the CLI drops them, the outcome says what was written', async () => {
        const typed = 'proposal\nedited by the user\n';
        const { path, id, closing, result } = await answerInTerminal('edited.txt', 'accepted', {
          typed,
        });
        assert.equal(closing.filePath, path);
        if (kind === 'gemini') {
          assert.equal(closing.keptText, undefined);
          assert.equal(
            closing.message,
            'Gemini CLI closed this diff: you answered in its terminal.',
          );
          // What Gemini CLI takes as the text to write: the view's, with the user's edits.
          assert.equal(result.content, typed);
          // As the whole Gemini CLI does next: it writes that text.
          await writeFile(path, result.content!);
        } else {
          assert.equal(closing.keptText, typed);
          assert.match(closing.message, /Qwen Code closed this diff: .*never writes your edits/);
          assert.match(closing.message, /kept here to copy/);
          // As the whole Qwen Code does next: it writes its own proposal.
          await writeFile(path, 'proposal\n');
        }
        const outcome = await outcomeOf(id);
        assert.equal(outcome.kind, 'approved');
        assert.equal(outcome.filePath, path);
        assert.equal(
          outcome.message,
          kind === 'gemini'
            ? 'Gemini CLI wrote edited.txt with your edits (approved in its terminal).'
            : 'Qwen Code wrote its own proposal to edited.txt, not your edits (approved in its ' +
                'terminal; your edits were kept when the diff closed).',
        );
      });

      it('approved as proposed, to a new file written by rename: the CLI wrote its proposal', async () => {
        const path = join(world.sandbox.workspace, 'new', 'created.txt');
        await mkdir(join(world.sandbox.workspace, 'new'));
        const { id } = await answerInTerminal('new/created.txt', 'accepted', { before: null });
        // A writer that renames a finished file into place: the watch sees the new file whole.
        await writeFile(`${path}.partial`, 'proposal\n');
        await rename(`${path}.partial`, path);
        const outcome = await outcomeOf(id);
        assert.equal(outcome.kind, 'approved');
        assert.equal(
          outcome.message,
          `${cli} wrote its own proposal to created.txt (approved in its terminal).`,
        );
      });

      it('approved on a file with CRLF line endings, which Gemini CLI restores: still approved', async () => {
        const { path, id, result } = await answerInTerminal('crlf.txt', 'accepted', {
          before: 'before\r\n',
        });
        const written = kind === 'gemini' ? result.content! : 'proposal\n';
        await writeFile(path, written.replace(/\n/g, '\r\n'));
        assert.equal((await outcomeOf(id)).kind, 'approved');
      });

      it('cancelled: nothing is written, and the outcome says the file was not changed', async () => {
        const { path, id, closing } = await answerInTerminal('cancelled.txt', 'rejected', {
          typed: 'edited, then cancelled\n',
        });
        assert.equal(closing.keptText, kind === 'gemini' ? undefined : 'edited, then cancelled\n');
        const outcome = await outcomeOf(id);
        assert.equal(outcome.kind, 'cancelled');
        assert.equal(
          outcome.message,
          `cancelled.txt was not changed: the proposal was cancelled in ${cli}'s terminal.`,
        );
        assert.equal(await readFile(path, 'utf8'), 'before\n');
      });

      if (kind === 'qwen') {
        it('approved, and written before the close reaches the engine (Qwen Code does not wait for it): approved', async () => {
          // Qwen Code confirms the tool call (which writes its proposal) and only then starts
          // resolveDiffFromCli, without waiting in between.
          const outcome = await writtenThenAnswered('early.txt', 'proposal\n', 'accepted');
          assert.equal(outcome.kind, 'approved');
          assert.match(outcome.message, /^Qwen Code wrote its own proposal to early\.txt/);
        });
      }

      it('the file saved while the diff was open, then cancelled: not changed by the CLI', async () => {
        const text = 'saved by the user meanwhile, a longer text\n';
        const outcome = await writtenThenAnswered('saved.txt', text, 'rejected');
        assert.equal(outcome.kind, 'cancelled');
        assert.match(outcome.message, /^saved\.txt was not changed: the proposal was cancelled/);
      });

      it('the file changed to something else meanwhile, or was removed: the outcome says so', async () => {
        const changed = await answerInTerminal('changed.txt', 'rejected');
        await writeFile(changed.path, 'written by another program\n');
        const removed = await answerInTerminal('removed.txt', 'rejected');
        await rm(removed.path);
        const [afterChange, afterRemoval] = await Promise.all([
          outcomeOf(changed.id),
          outcomeOf(removed.id),
        ]);
        assert.equal(afterChange.kind, 'changed');
        assert.match(afterChange.message, /^changed\.txt changed, but not as/);
        assert.match(afterChange.message, new RegExp(`not as ${cli} writes it after an approval`));
        assert.equal(afterRemoval.kind, 'changed');
        assert.match(afterRemoval.message, /^removed\.txt was removed, but not as/);
      });

      it('withdrawn by the CLI (closeDiff without suppressing): nothing is written, no outcome follows', async () => {
        const path = join(world.sandbox.workspace, 'withdrawn.txt');
        const { id } = await propose(client, world.editor, path);
        await client.closeDiff(path);
        const closing = await waitFor('the view to be closed', () => world.editor.closings.get(id));
        assert.equal(closing.reason, 'withdrawn');
        assert.equal(closing.keptText, undefined, 'nothing edited, nothing kept');
        assert.match(closing.message, /the file stays as it was/);
        // A terminal answer made later still gets its outcome; the withdrawn diff never does.
        const later = await answerInTerminal('later.txt', 'rejected');
        await outcomeOf(later.id);
        assert.equal(world.editor.outcomes.has(id), false);
      });
    });
  }

  describe('an engine that stops while it watches tells the editor nothing more', () => {
    it('no outcome after stop', async () => {
      const sandbox = new Sandbox();
      const editor = new ClosingEditor();
      const engine = await startEngine(sandbox, editor);
      const client = await realClientIn(sandbox, 'gemini');
      try {
        assert.equal((await client.connect()).status, 'connected');
        const path = join(sandbox.workspace, 'stopping.txt');
        const { id } = await propose(client, editor, path);
        await client.resolveDiffFromCli(path, 'rejected');
        await waitFor('the view to be closed', () => editor.closings.get(id));
        await engine.stop();
        // Past the time limit, an engine still watching would have said "cancelled".
        await new Promise((resolve) => setTimeout(resolve, TERMINAL_WRITE_LIMIT_MS + 1_000));
        assert.equal(editor.outcomes.has(id), false);
      } finally {
        await client.kill();
        await engine.stop();
        sandbox.remove();
      }
    });
  });
});
