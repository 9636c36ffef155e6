/**
 * Diffs in real Neovim, asked for by the real Gemini CLI and Qwen Code clients: what Neovim
 * shows, the ways to answer that are Neovim's own (the gestures every adapter shares are in
 * conformance.test.ts), a new file, line endings, an unsaved buffer, two diffs of one file.
 */
import assert from 'node:assert/strict';
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import {
  connectedClientIn,
  NeovimSession,
  neovimSkipReason,
  suiteInSandbox,
  waitFor,
  waitForDiffTab,
  waitForNoDiffTab,
} from '@tandem/testkit';

const skip = neovimSkipReason({ sidecar: true });

/** Neovim with Tandem and a connected real Gemini client, for the tests of one block. */
function neovimWithGemini() {
  return suiteInSandbox({}, async (sandbox) => {
    const session = await NeovimSession.start(sandbox, { tandem: '{}' });
    try {
      const gemini = await connectedClientIn(sandbox, 'gemini');
      const close = async () => {
        await gemini.kill();
        await session.close();
      };
      return { session, gemini, close };
    } catch (error) {
      await session.close();
      throw error;
    }
  });
}

describe('diff views in Neovim', { skip }, () => {
  const scene = neovimWithGemini();

  /** Writes `name` with `disk`, has the CLI propose `proposal`, and waits for the view. */
  async function propose(name: string, disk: string | null, proposal: string) {
    const filePath = path.join(scene.sandbox.workspace, name);
    if (disk !== null) writeFileSync(filePath, disk);
    const diff = scene.started.gemini.openDiff(filePath, proposal);
    await diff.opened;
    const tab = await waitForDiffTab(scene.started.session);
    return { filePath, diff, tab };
  }

  test('shows the file on the left and the proposal on the right, in a new tab', async () => {
    const { diff, tab } = await propose(
      'shape.py',
      'def area(r):\n    return 3 * r\n',
      'import math\n\ndef area(r):\n    return math.pi * r * r\n',
    );
    assert.equal(tab.tabs, 2);
    const [left, right] = tab.windows;
    assert.deepEqual(left?.lines, ['def area(r):', '    return 3 * r']);
    assert.equal(left?.modifiable, false);
    assert.match(left?.label ?? '', /On disk: shape\.py/);
    // Buffer names a tab's label shows readably: the file and the side.
    assert.equal(left?.name, `${scene.sandbox.workspace}/shape.py (on disk)`);
    assert.equal(right?.name, `${scene.sandbox.workspace}/shape.py (Gemini CLI)`);
    assert.deepEqual(right?.lines, [
      'import math',
      '',
      'def area(r):',
      '    return math.pi * r * r',
    ]);
    assert.equal(right?.current, true);
    assert.equal(right?.buftype, 'acwrite');
    assert.match(
      right?.label ?? '',
      /^Gemini CLI · accept: :w or <leader>da · reject: :q or <leader>dr$/,
    );
    assert.equal(left?.filetype, 'python');
    assert.equal(right?.filetype, 'python');
    await scene.started.session.input(':TandemReject<CR>');
    assert.equal((await diff.result).status, 'rejected');
    await waitForNoDiffTab(scene.started.session);
  });

  test(":wq accepts, with the user's edits to the proposal, and closes the tab", async () => {
    const { diff } = await propose('notes.txt', 'alpha\nbeta\n', 'alpha\nBETA\n');
    await scene.started.session.input('Goedited in Neovim<Esc>');
    await scene.started.session.input(':wq<CR>');
    assert.deepEqual(await diff.result, {
      status: 'accepted',
      content: 'alpha\nBETA\nedited in Neovim\n',
    });
    await waitForNoDiffTab(scene.started.session);
  });

  test(':wq of an emptied proposal keeps the tab, with the reason, and the CLI waits', async () => {
    const { diff } = await propose('notes.txt', 'alpha\n', 'ALPHA\n');
    await scene.started.session.input('ggdG:wq<CR>');
    await waitFor('the reason', async () =>
      /empty/i.test(await scene.started.session.lua<string>(`return vim.fn.execute('messages')`))
        ? true
        : undefined,
    );
    assert.equal((await scene.started.session.currentTab()).windows.length, 2);
    assert.equal((await scene.started.session.status()).diffs.length, 1);
    await scene.started.session.input(':q!<CR>');
    assert.equal((await diff.result).status, 'rejected');
    await waitForNoDiffTab(scene.started.session);
  });

  const rejects: [string, string][] = [
    [':q in the file side', '<C-w>h:q<CR>'],
    [':bwipeout of the proposal', ':bwipeout!<CR>'],
  ];
  for (const [gesture, keys] of rejects) {
    test(`${gesture} rejects`, async () => {
      const { diff } = await propose('notes.txt', 'alpha\nbeta\n', 'alpha\nBETA\n');
      await scene.started.session.input(keys);
      assert.deepEqual(await diff.result, { status: 'rejected' });
      await waitForNoDiffTab(scene.started.session);
    });
  }

  test('an edited proposal is not lost to a plain :q (Neovim refuses; :q! rejects)', async () => {
    const { diff } = await propose('notes.txt', 'alpha\n', 'ALPHA\n');
    await scene.started.session.input('Aedit<Esc>:q<CR>');
    assert.equal((await scene.started.session.currentTab()).windows.length, 2);
    await scene.started.session.input(':q!<CR>');
    assert.equal((await diff.result).status, 'rejected');
    await waitForNoDiffTab(scene.started.session);
  });

  test('a diff answered once gets no second answer: the next diff of that file waits for its own', async () => {
    const first = await propose('notes.txt', 'one\n', 'two\n');
    await scene.started.session.input(':wq<CR>');
    assert.equal((await first.diff.result).status, 'accepted');
    await waitForNoDiffTab(scene.started.session);
    const second = await propose('notes.txt', 'one\n', 'three\n');
    const tab = await scene.started.session.currentTab();
    assert.deepEqual(tab.windows[1]?.lines, ['three']);
    assert.deepEqual((await scene.started.session.status()).diffs.length, 1);
    await scene.started.session.input(':TandemReject<CR>');
    assert.equal((await second.diff.result).status, 'rejected');
    await waitForNoDiffTab(scene.started.session);
  });

  test("a diff in Neovim's only tab leaves an empty window behind", async () => {
    const { diff } = await propose('notes.txt', 'a\n', 'b\n');
    await scene.started.session.command('tabonly');
    await scene.started.session.input(':w<CR>');
    assert.equal((await diff.result).status, 'accepted');
    const tab = await waitFor('the diff to be gone', async () => {
      const view = await scene.started.session.currentTab();
      return view.windows.length === 1 && view.windows[0]?.buftype === '' ? view : undefined;
    });
    assert.deepEqual(tab.windows[0]?.lines, ['']);
    assert.equal(tab.windows[0]?.diff, false);
  });

  test('a new file: an empty left side, and the whole proposal on accept', async () => {
    const { filePath, diff, tab } = await propose('src/fresh.md', null, '# Fresh\n\nNew text.\n');
    const [left, right] = tab.windows;
    assert.deepEqual(left?.lines, ['']);
    assert.match(left?.label ?? '', /New file: src\/fresh\.md/);
    assert.deepEqual(right?.lines, ['# Fresh', '', 'New text.']);
    assert.equal(right?.filetype, 'markdown');
    await scene.started.session.input(':w<CR>');
    assert.deepEqual(await diff.result, { status: 'accepted', content: '# Fresh\n\nNew text.\n' });
    assert.equal(existsSync(filePath), false, 'Neovim must not write the file: the CLI does');
    await waitForNoDiffTab(scene.started.session);
  });

  test('a proposal is untrusted text: its modelines set nothing', async () => {
    // An unknown file type: filetype detection runs in the proposal's buffer. Modelines are on
    // as for every user but root (the view's scratch buffers are 'nomodeline' all the same).
    await scene.started.session.lua('vim.o.modeline = true');
    const { diff, tab } = await propose(
      'notes.untyped',
      'vim: set shiftwidth=6 :\n',
      'vim: set shiftwidth=7 :\n',
    );
    assert.equal(tab.windows[1]?.current, true);
    const options = `return { vim.bo.shiftwidth, vim.bo.modeline }`;
    assert.deepEqual(await scene.started.session.lua(options), [8, false]);
    await scene.started.session.input(':TandemReject<CR>');
    assert.equal((await diff.result).status, 'rejected');
    await waitForNoDiffTab(scene.started.session);
    await scene.started.session.lua('vim.o.modeline = false');
  });

  test('the text keeps a missing final newline and CRLF line endings', async () => {
    const noNewline = await propose('plain.txt', 'a', 'a\nb');
    await scene.started.session.input(':w<CR>');
    assert.deepEqual(await noNewline.diff.result, { status: 'accepted', content: 'a\nb' });
    await waitForNoDiffTab(scene.started.session);
    const crlf = await propose('dos.txt', 'a\r\n', 'a\r\nb\r\n');
    assert.deepEqual(crlf.tab.windows[1]?.lines, ['a', 'b']);
    await scene.started.session.input(':w<CR>');
    assert.deepEqual(await crlf.diff.result, { status: 'accepted', content: 'a\r\nb\r\n' });
    await waitForNoDiffTab(scene.started.session);
  });

  test('after the CLI writes an accepted file, its unmodified buffer shows the new text', async () => {
    const filePath = path.join(scene.sandbox.workspace, 'reloaded.txt');
    writeFileSync(filePath, 'old text\n');
    await scene.started.session.command(`edit ${filePath}`);
    const buffer = await scene.started.session.lua<number>('return vim.api.nvim_get_current_buf()');
    const diff = scene.started.gemini.openDiff(filePath, 'new text\n');
    await diff.opened;
    await waitForDiffTab(scene.started.session);
    await scene.started.session.input(':w<CR>');
    const result = await diff.result;
    assert.equal(result.status, 'accepted');
    writeFileSync(filePath, result.content ?? ''); // what the CLI does after an accept
    await waitFor('the buffer to show the new text', async () => {
      const lines = await scene.started.session.lines(buffer);
      return lines.join('\n') === 'new text' ? true : undefined;
    });
    assert.equal(await scene.started.session.lua('return vim.bo[...].modified', [buffer]), false);
    await scene.started.session.command('bwipeout!');
  });

  test('unsaved changes: the user is warned in the view, and their text is never overwritten', async () => {
    const filePath = path.join(scene.sandbox.workspace, 'draft.txt');
    writeFileSync(filePath, 'saved line\n');
    await scene.started.session.command(`edit ${filePath}`);
    const buffer = await scene.started.session.lua<number>('return vim.api.nvim_get_current_buf()');
    await scene.started.session.input('ccmy unsaved line<Esc>');
    const diff = scene.started.gemini.openDiff(filePath, 'proposed line\n');
    await diff.opened;
    const tab = await waitForDiffTab(scene.started.session);
    const [left] = tab.windows;
    assert.deepEqual(left?.lines, ['saved line']);
    assert.match(left?.label ?? '', /On disk: draft\.txt · .*your unsaved edits are not shown/);
    await scene.started.session.input(':w<CR>');
    const result = await diff.result;
    assert.equal(result.status, 'accepted');
    writeFileSync(filePath, result.content ?? '');
    await waitFor('the warning that the buffer kept its changes', async () => {
      const messages = await scene.started.session.lua<string>(`return vim.fn.execute('messages')`);
      return messages.includes('unsaved changes that were kept') ? true : undefined;
    });
    assert.deepEqual(await scene.started.session.lines(buffer), ['my unsaved line']);
    assert.equal(await scene.started.session.lua('return vim.bo[...].modified', [buffer]), true);
    await scene.started.session.command('bwipeout!');
  });

  test('Qwen Code closing a diff the user edited: the edits, which it does not write, stay in a buffer', async () => {
    const qwen = await connectedClientIn(scene.sandbox, 'qwen');
    try {
      const filePath = path.join(scene.sandbox.workspace, 'kept.txt');
      writeFileSync(filePath, 'one\n');
      const diff = qwen.openDiff(filePath, 'two\n');
      await diff.opened;
      await waitForDiffTab(scene.started.session);
      await scene.started.session.input('Amine<Esc>');
      await qwen.resolveDiffFromCli(filePath, 'accepted');
      await diff.result;
      await waitForNoDiffTab(scene.started.session);
      const kept = await waitFor('the buffer with the edits', async () => {
        const buf = await scene.started.session.lua<number>('return vim.fn.bufnr(...)', [
          `${filePath} (your edits)`,
        ]);
        return buf > 0 ? buf : undefined;
      });
      assert.deepEqual(await scene.started.session.lines(kept), ['twomine']);
      const messages = await scene.started.session.lua<string>(`return vim.fn.execute('messages')`);
      assert.match(
        messages,
        new RegExp(`your edits to kept\\.txt were not written: :buffer ${kept}`),
      );
      // As the whole Qwen Code does after an approval: it writes its own proposal. The engine
      // sees it and Neovim says what happened.
      writeFileSync(filePath, 'two\n');
      await waitFor(
        'the outcome in the messages',
        async () => {
          const now = await scene.started.session.lua<string>(`return vim.fn.execute('messages')`);
          return now.includes('Tandem: Qwen Code wrote its own proposal to kept.txt')
            ? true
            : undefined;
        },
        60_000,
      );
      await scene.started.session.command(`bwipeout ${kept}`);
    } finally {
      await qwen.kill();
    }
  });

  test('two CLIs, two diffs of one file at once, each in its own tab with its own answer', async () => {
    const qwen = await connectedClientIn(scene.sandbox, 'qwen');
    try {
      await waitFor('both CLIs in the status', async () =>
        (await scene.started.session.status()).clients.length === 2 ? true : undefined,
      );
      // Both propose a change to the same file.
      const fromGemini = await propose('one.txt', '1\n', 'one\n');
      const fromQwen = qwen.openDiff(fromGemini.filePath, 'two\n');
      await fromQwen.opened;
      await waitFor('two diff tabs', async () =>
        (await scene.started.session.currentTab()).tabs === 3 ? true : undefined,
      );
      const current = await waitForDiffTab(scene.started.session);
      assert.deepEqual(current.windows[1]?.lines, ['two']);
      assert.match(current.windows[1]?.label ?? '', /Qwen/);
      await scene.started.session.input(':w<CR>');
      assert.deepEqual(await fromQwen.result, { status: 'accepted', content: 'two\n' });
      const back = await waitFor('the first diff tab', async () => {
        const tab = await scene.started.session.currentTab();
        return tab.tabs === 2 && tab.windows[1]?.lines[0] === 'one' ? tab : undefined;
      });
      assert.equal(back.windows.length, 2);
      // Still pending: accepting the other diff did not answer this one.
      assert.equal((await scene.started.session.status()).diffs.length, 1);
      await scene.started.session.input(':q<CR>');
      assert.equal((await fromGemini.diff.result).status, 'rejected');
      await waitForNoDiffTab(scene.started.session);
    } finally {
      await qwen.kill();
    }
  });
});

describe(':TandemStop with a diff open', { skip }, () => {
  const scene = neovimWithGemini();

  test('rejects it and closes the view', async () => {
    const filePath = path.join(scene.sandbox.workspace, 'stopped.txt');
    writeFileSync(filePath, 'a\n');
    const diff = scene.started.gemini.openDiff(filePath, 'b\n');
    await diff.opened;
    await waitForDiffTab(scene.started.session);
    await scene.started.session.command('TandemStop');
    assert.deepEqual(await diff.result, { status: 'rejected' });
    await waitFor('the view to close', async () =>
      (await scene.started.session.currentTab()).tabs === 1 ? true : undefined,
    );
  });
});
