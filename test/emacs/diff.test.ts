/**
 * Diffs in real Emacs (in tmux, answered with real keys), proposed by the real Gemini CLI and
 * Qwen Code clients: the view, every way to accept and reject, a close from the CLI, a new
 * file, the buffer following the written file, unsaved changes, and two diffs at once.
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import {
  connectedClientIn,
  EmacsSession,
  emacsSkipReason,
  realClientIn,
  Sandbox,
  waitFor,
  type EmacsDiffView,
  type RealClient,
} from '@tandem/testkit';

const skip = emacsSkipReason({ sidecar: true, tmux: true });

describe('diff views in Emacs', { skip }, () => {
  const scene = {} as { sandbox: Sandbox; emacs: EmacsSession; gemini: RealClient };

  before(async () => {
    scene.sandbox = new Sandbox();
    scene.emacs = await EmacsSession.start(scene.sandbox, { tandem: true });
    scene.gemini = await connectedClientIn(scene.sandbox, 'gemini');
  });
  after(async () => {
    await scene.gemini?.kill();
    await scene.emacs?.close();
    scene.sandbox?.remove();
  });

  /** Writes `name` with `disk` (null: no file), has Gemini propose `proposal`, waits for the view. */
  async function propose(
    name: string,
    disk: string | null,
    proposal: string,
    client = scene.gemini,
  ) {
    const filePath = path.join(scene.sandbox.workspace, name);
    if (disk !== null) writeFileSync(filePath, disk);
    const diff = client.openDiff(filePath, proposal);
    await diff.opened;
    const view = await waitFor('the view in Emacs', async () =>
      (await scene.emacs.views()).find((v: EmacsDiffView) => v.path === filePath),
    );
    return { filePath, diff, view };
  }

  async function noViewLeft(): Promise<void> {
    await waitFor('no view left', async () =>
      (await scene.emacs.views()).length === 0 ? true : undefined,
    );
  }

  /** Waits until *Messages* holds `text` (the engine watches the file first). */
  async function messageShown(text: string): Promise<void> {
    await waitFor(
      `"${text}" in *Messages*`,
      async () => {
        const messages = await scene.emacs.text(
          '(with-current-buffer "*Messages*" (buffer-string))',
        );
        return messages.includes(text) ? true : undefined;
      },
      60_000,
    );
  }

  test('the file beside the editable proposal, in the file’s mode, with a header line', async () => {
    const { diff, view } = await propose('shape.py', 'r = 1\n', 'import math\nr = math.pi\n');
    assert.equal(view.disk, 'r = 1\n');
    assert.equal(view.proposal, 'import math\nr = math.pi\n');
    assert.equal(view.mode, 'python-mode');
    assert.equal(view.diskReadOnly, true);
    assert.equal(view.selected, true);
    assert.equal(view.diskHeader, 'On disk: shape.py');
    assert.match(view.proposalHeader, /Gemini CLI proposes this · C-c C-c accept · C-c C-k reject/);
    await scene.emacs.waitForScreen(/C-c C-c accept · C-c C-k reject/);
    await scene.emacs.press('C-c', 'C-k');
    assert.equal((await diff.result).status, 'rejected');
  });

  test('C-c C-c after an edit accepts the edited text', async () => {
    const { diff } = await propose('accept.txt', 'one\n', 'one\ntwo\n');
    await scene.emacs.press('M->');
    await scene.emacs.type('three 文件');
    await scene.emacs.press('C-c', 'C-c');
    assert.deepEqual(await diff.result, { status: 'accepted', content: 'one\ntwo\nthree 文件' });
    await noViewLeft();
  });

  test('C-c C-k rejects, and the file stays as it was', async () => {
    const { diff, filePath } = await propose('reject.txt', 'keep\n', 'replace\n');
    await scene.emacs.press('C-c', 'C-k');
    assert.equal((await diff.result).status, 'rejected');
    await noViewLeft();
    assert.equal(readFileSync(filePath, 'utf8'), 'keep\n');
  });

  test('killing the proposal buffer with C-x k is a rejection', async () => {
    const { diff } = await propose('kill.txt', 'a\n', 'b\n');
    await scene.emacs.type('edited ');
    await scene.emacs.press('C-x', 'k', 'Enter');
    assert.equal((await diff.result).status, 'rejected');
    await noViewLeft();
  });

  test('deleting the proposal’s window with C-x 0, or with C-x 1 from the file, rejects', async () => {
    const first = await propose('window.txt', 'a\n', 'b\n');
    await scene.emacs.press('C-x', '0');
    assert.equal((await first.diff.result).status, 'rejected');
    await noViewLeft();
    const second = await propose('window.txt', 'a\n', 'c\n');
    await scene.emacs.press('C-x', 'o', 'C-x', '1');
    assert.equal((await second.diff.result).status, 'rejected');
    await noViewLeft();
  });

  test('showing another buffer in the proposal’s window is no answer; C-x b brings it back', async () => {
    const { diff } = await propose('away.txt', 'a\n', 'b\n');
    await scene.emacs.press('C-x', 'b');
    await scene.emacs.type('*scratch*');
    await scene.emacs.press('Enter');
    await scene.emacs.waitForScreen(/\*scratch\*/);
    assert.equal((await scene.emacs.views()).length, 1);
    await scene.emacs.press('C-x', 'b');
    await scene.emacs.type('*tandem proposal: away.txt*');
    await scene.emacs.press('Enter', 'C-c', 'C-c');
    assert.deepEqual(await diff.result, { status: 'accepted', content: 'b\n' });
    await noViewLeft();
  });

  test('C-c C-e compares the sides with ediff; after it, the view answers as before', async () => {
    const { diff } = await propose('ediff.txt', 'one\ntwo\n', 'one\nTWO\n');
    await scene.emacs.press('C-c', 'C-e');
    await scene.emacs.waitForScreen(/\*Ediff Control Panel\*/);
    await scene.emacs.press('q');
    await scene.emacs.waitForScreen(/Quit this Ediff session\?/);
    await scene.emacs.press('y');
    const [view] = await waitFor('the view again', async () => {
      const views = await scene.emacs.views();
      return views[0]?.selected ? views : undefined;
    });
    assert.equal(view?.proposal, 'one\nTWO\n');
    await scene.emacs.press('C-c', 'C-c');
    assert.deepEqual(await diff.result, { status: 'accepted', content: 'one\nTWO\n' });
    await noViewLeft();
  });

  test('a close from the CLI removes the view and returns the edited text', async () => {
    const { filePath, diff } = await propose('close.txt', 'a\n', 'b\n');
    await scene.emacs.press('M->');
    await scene.emacs.type('edited in Emacs\n');
    await scene.emacs.settled();
    const content = await scene.gemini.closeDiff(filePath);
    assert.equal(content, 'b\nedited in Emacs\n');
    await noViewLeft();
    // Closed by the CLI, the diff got no answer from Emacs: the client settles it itself.
    assert.equal((await diff.result).status, 'rejected');
    const screen = await scene.emacs.screen();
    assert.doesNotMatch(screen, /tandem proposal/);
  });

  test('Gemini CLI closing an untouched diff: its message, nothing kept', async () => {
    const { filePath, diff } = await propose('untouched.txt', 'a\n', 'b\n');
    await scene.gemini.resolveDiffFromCli(filePath, 'rejected');
    await diff.result;
    await noViewLeft();
    await scene.emacs.waitForScreen(/Tandem: Gemini CLI closed this diff/);
    assert.equal(
      await scene.emacs.eval('(get-buffer "*tandem: untouched.txt (your edits)*")'),
      'nil',
    );
    // Nothing written: after a few seconds the engine knows it was a cancel, and Emacs says so.
    await messageShown(
      "Tandem: untouched.txt was not changed: the proposal was cancelled in Gemini CLI's terminal.",
    );
  });

  test('Qwen Code closing a diff the user edited: the edits, which it does not write, stay in a buffer', async () => {
    const qwen = await realClientIn(scene.sandbox, 'qwen');
    try {
      const state = await qwen.connect();
      assert.equal(state.status, 'connected', state.details);
      const { filePath, diff } = await propose('stats.js', 'let n = 1;\n', 'let n = 2;\n', qwen);
      await scene.emacs.press('M->');
      await scene.emacs.type('// mine\n');
      await scene.emacs.settled();
      await qwen.resolveDiffFromCli(filePath, 'accepted');
      await diff.result;
      await noViewLeft();
      const name = '*tandem: stats.js (your edits)*';
      const kept = await scene.emacs.json<{ text: string; mode: string }>(
        `(with-current-buffer "${name}" (list (cons 'text (buffer-string)) (cons 'mode (symbol-name major-mode))))`,
      );
      assert.deepEqual(kept, { text: 'let n = 2;\n// mine\n', mode: 'js-mode' });
      const messages = await scene.emacs.text('(with-current-buffer "*Messages*" (buffer-string))');
      assert.match(
        messages,
        /Tandem: Qwen Code closed this diff.*Your text is in the buffer \*tandem: stats\.js \(your edits\)\*\./,
      );
      // As the whole Qwen Code does after an approval: it writes its own proposal. The engine
      // sees it, and Emacs says what happened.
      writeFileSync(filePath, 'let n = 2;\n');
      await messageShown(
        'Tandem: Qwen Code wrote its own proposal to stats.js, not your edits (approved in its ' +
          'terminal; your edits were kept when the diff closed).',
      );
      await scene.emacs.eval(`(kill-buffer "${name}")`);
    } finally {
      await qwen.kill();
    }
  });

  test('a new file diffs against an empty side', async () => {
    const { diff, view } = await propose(path.join('sub', 'new.txt'), null, 'fresh\n');
    assert.equal(view.disk, '');
    assert.equal(view.diskHeader, 'New file: sub/new.txt');
    await scene.emacs.press('C-c', 'C-c');
    assert.deepEqual(await diff.result, { status: 'accepted', content: 'fresh\n' });
  });

  test('an emptied proposal is refused with the engine’s reason; the view stays', async () => {
    const { diff } = await propose('empty.txt', 'a\n', 'b\n');
    await scene.emacs.press('C-x', 'h', 'C-w', 'C-c', 'C-c');
    await scene.emacs.waitForScreen(/Tandem: .*empty/i);
    assert.equal((await scene.emacs.views()).length, 1);
    await scene.emacs.press('C-c', 'C-k');
    assert.equal((await diff.result).status, 'rejected');
  });

  test('after the CLI writes the accepted file, its unmodified buffer shows it', async () => {
    const filePath = path.join(scene.sandbox.workspace, 'reload.txt');
    writeFileSync(filePath, 'old\n');
    await scene.emacs.eval(`(find-file-noselect ${JSON.stringify(filePath)})`);
    const { diff } = await propose('reload.txt', 'old\n', 'new\n');
    await scene.emacs.press('C-c', 'C-c');
    const result = await diff.result;
    assert.equal(result.status, 'accepted');
    // What the CLI does next: write the file itself.
    writeFileSync(filePath, result.content ?? '');
    await waitFor('the buffer to show the written file', async () =>
      (await scene.emacs.text(
        `(with-current-buffer (get-file-buffer ${JSON.stringify(filePath)}) (buffer-string))`,
      )) === 'new\n'
        ? true
        : undefined,
    );
  });

  test('a buffer with unsaved changes is never reverted over; the view warns', async () => {
    const filePath = path.join(scene.sandbox.workspace, 'unsaved.txt');
    writeFileSync(filePath, 'disk\n');
    const buffer = `(get-file-buffer ${JSON.stringify(filePath)})`;
    await scene.emacs.eval(
      `(with-current-buffer (find-file-noselect ${JSON.stringify(filePath)}) (goto-char (point-max)) (insert "mine\\n"))`,
    );
    const { diff, view } = await propose('unsaved.txt', 'disk\n', 'theirs\n');
    assert.match(view.diskHeader, /unsaved\.txt has unsaved changes in Emacs/);
    await scene.emacs.press('C-c', 'C-c');
    writeFileSync(filePath, (await diff.result).content ?? '');
    await scene.emacs.waitForScreen(/unsaved changes that were kept/);
    assert.equal(
      await scene.emacs.text(`(with-current-buffer ${buffer} (buffer-string))`),
      'disk\nmine\n',
    );
    assert.equal(await scene.emacs.eval(`(buffer-modified-p ${buffer})`), 't');
  });

  test('two diffs at once, from two CLIs, each with its own answer', async () => {
    const qwen = await realClientIn(scene.sandbox, 'qwen');
    try {
      assert.equal((await qwen.connect()).status, 'connected');
      const fromGemini = await propose('both-a.txt', 'a\n', 'A\n');
      const fromQwen = await propose('both-b.txt', 'b\n', 'B\n', qwen);
      assert.equal((await scene.emacs.views()).length, 2);
      // The newer view is on top; answering it brings back the first.
      await scene.emacs.press('C-c', 'C-k');
      assert.equal((await fromQwen.diff.result).status, 'rejected');
      const [left] = await waitFor('the first view back', async () => {
        const views = await scene.emacs.views();
        return views.length === 1 && views[0]?.selected ? views : undefined;
      });
      assert.equal(left?.path, fromGemini.filePath);
      await scene.emacs.press('C-c', 'C-c');
      assert.deepEqual(await fromGemini.diff.result, { status: 'accepted', content: 'A\n' });
      await noViewLeft();
    } finally {
      await qwen.kill();
    }
  });
});
