/**
 * Diffs in real Vim, asked for by the real Gemini CLI and Qwen Code clients, answered with real
 * keys: every way to accept and reject, a close from the CLI, two diffs at once, a new file, an
 * unsaved buffer, the buffer reloading after the CLI writes, and quitting with a diff open.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import {
  connectedClientIn,
  Sandbox,
  VimSession,
  vimSkipReason,
  waitFor,
  waitForDiffTab,
  waitForNoDiffTab,
  type ClientKind,
  type DiffHandle,
  type RealClient,
  type VimTabView,
} from '@tandem/testkit';

const skip = vimSkipReason({ sidecar: true });

/** Vim with Tandem and connected real Gemini and Qwen clients, for the tests of one block. */
function vimWithClients() {
  const scene = {} as {
    sandbox: Sandbox;
    vim: VimSession;
    clients: Record<ClientKind, RealClient>;
    file(name: string, text?: string): string;
    propose(
      kind: ClientKind,
      name: string,
      text: string | undefined,
      proposal: string,
    ): Promise<{ file: string; diff: DiffHandle; tab: VimTabView }>;
  };
  before(async () => {
    scene.sandbox = new Sandbox();
    scene.vim = await VimSession.start(scene.sandbox);
    await scene.vim.waitForState('running');
    scene.clients = {
      gemini: await connectedClientIn(scene.sandbox, 'gemini'),
      qwen: await connectedClientIn(scene.sandbox, 'qwen'),
    };
  });
  after(async () => {
    await scene.clients?.gemini.kill();
    await scene.clients?.qwen.kill();
    await scene.vim?.close();
    scene.sandbox?.remove();
  });
  scene.file = (name, text) => {
    const file = path.join(scene.sandbox.workspace, name);
    if (text !== undefined) writeFileSync(file, text);
    return file;
  };
  /** Writes `name` with `text` (undefined: no file), has `kind` propose `proposal`, waits for the view. */
  scene.propose = async (kind, name, text, proposal) => {
    const file = scene.file(name, text);
    const diff = scene.clients[kind].openDiff(file, proposal);
    await diff.opened;
    return { file, diff, tab: await waitForDiffTab(scene.vim) };
  };
  return scene;
}

describe('diff views in Vim', { skip }, () => {
  const scene = vimWithClients();

  test('the view: a new tab, the file on the left, the proposal on the right, filetype, hint', async () => {
    const { diff, tab } = await scene.propose('gemini', 'view.py', 'print(1)\n', 'print(2)\n');
    assert.equal(tab.tabs, 2);
    const [left, right] = tab.windows;
    assert.deepEqual(left?.lines, ['print(1)']);
    assert.equal(left?.modifiable, 0);
    assert.match(left?.label ?? '', /On disk: view\.py/);
    assert.deepEqual(right?.lines, ['print(2)']);
    assert.equal(right?.current, true, 'the cursor is in the proposal');
    assert.equal(right?.filetype, 'python');
    assert.equal(left?.filetype, 'python');
    assert.match(
      right?.label ?? '',
      /Gemini CLI · accept: :w or <leader>da · reject: :q or <leader>dr/,
    );
    await waitFor('the hint on the screen', async () =>
      /accept: :w or <leader>da/.test(await scene.vim.screen()) ? true : undefined,
    );
    await scene.vim.ex('TandemReject');
    assert.deepEqual(await diff.result, { status: 'rejected' });
    await waitForNoDiffTab(scene.vim);
  });

  for (const kind of ['gemini', 'qwen'] as const) {
    test(`${kind}: an edit in the proposal, then :w, accepts the edited text`, async () => {
      const { diff } = await scene.propose(kind, `accept-${kind}.txt`, 'one\ntwo\n', 'one\nTWO\n');
      await scene.vim.type('Goedited in Vim');
      await scene.vim.keys('Escape');
      await scene.vim.ex('w');
      assert.deepEqual(await diff.result, {
        status: 'accepted',
        content: 'one\nTWO\nedited in Vim\n',
      });
      await waitForNoDiffTab(scene.vim);
    });

    test(`${kind}: :q rejects`, async () => {
      const { diff } = await scene.propose(kind, `reject-${kind}.txt`, 'one\n', 'two\n');
      await scene.vim.ex('q');
      assert.deepEqual(await diff.result, { status: 'rejected' });
      await waitForNoDiffTab(scene.vim);
    });
  }

  const gestures: [string, (vim: VimSession) => Promise<void>, 'accepted' | 'rejected'][] = [
    [':wq', (vim) => vim.ex('wq'), 'accepted'],
    [':TandemAccept', (vim) => vim.ex('TandemAccept'), 'accepted'],
    ['the accept mapping', (vim) => vim.type('\\da'), 'accepted'],
    [':q in the left side', (vim) => vim.keys('C-w', 'h').then(() => vim.ex('q')), 'rejected'],
    [':tabclose', (vim) => vim.ex('tabclose'), 'rejected'],
    ['the reject mapping', (vim) => vim.type('\\dr'), 'rejected'],
    [':bwipeout!', (vim) => vim.ex('bwipeout!'), 'rejected'],
  ];
  for (const [name, act, status] of gestures) {
    test(`${name}: ${status}, one answer`, async () => {
      const { diff } = await scene.propose('gemini', 'gesture.txt', 'old\n', 'new\n');
      await act(scene.vim);
      const result = await diff.result;
      assert.deepEqual(result, status === 'accepted' ? { status, content: 'new\n' } : { status });
      await waitForNoDiffTab(scene.vim);
    });
  }

  test(':q on an edited proposal is refused by Vim; :q! rejects', async () => {
    const { diff } = await scene.propose('qwen', 'refuse.txt', 'old\n', 'new\n');
    await scene.vim.type('otyped');
    await scene.vim.keys('Escape');
    await scene.vim.ex('q');
    await waitFor('E37 on the screen', async () =>
      /E37/.test(await scene.vim.screen()) ? true : undefined,
    );
    assert.equal((await scene.vim.status()).diffs.length, 1);
    await scene.vim.ex('q!');
    assert.deepEqual(await diff.result, { status: 'rejected' });
    await waitForNoDiffTab(scene.vim);
  });

  test('the CLI closing the diff closes the tab and gets the edited text', async () => {
    const { file, diff } = await scene.propose('gemini', 'closed.txt', 'a\n', 'b\n');
    await scene.vim.type('ochanged in Vim');
    await scene.vim.keys('Escape');
    const content = await scene.clients.gemini.closeDiff(file);
    assert.equal(content, 'b\nchanged in Vim\n');
    await waitForNoDiffTab(scene.vim);
    assert.equal((await diff.result).status, 'rejected');
  });

  test('Qwen Code closing a diff the user edited: the edits, which it does not write, stay in a buffer', async () => {
    const { file, diff } = await scene.propose('qwen', 'kept.txt', 'one\n', 'two\n');
    await scene.vim.type('Amine');
    await scene.vim.keys('Escape');
    await scene.clients.qwen.resolveDiffFromCli(file, 'accepted');
    await diff.result;
    await waitForNoDiffTab(scene.vim);
    const kept = await waitFor('the buffer with the edits', async () => {
      const buf = await scene.vim.eval<number>(`bufnr('kept.txt (your edits)')`);
      return buf > 0 ? buf : undefined;
    });
    assert.deepEqual(await scene.vim.eval(`getbufline(${kept}, 1, '$')`), ['twomine']);
    assert.equal(await scene.vim.eval(`buflisted(${kept})`), 1);
    const messages = await scene.vim.eval<string>(`execute('messages')`);
    assert.match(
      messages,
      new RegExp(
        `Tandem: :buffer ${kept} holds your edits to kept\\.txt\\. Qwen Code closed this diff`,
      ),
    );
    assert.doesNotMatch(await scene.vim.screen(), /Press ENTER/);
    // As the whole Qwen Code does after an approval: it writes its own proposal. The engine
    // sees it, and Vim says what happened.
    writeFileSync(file, 'two\n');
    await outcomeShown(
      scene.vim,
      'Tandem: Qwen Code wrote its own proposal to kept.txt, not your edits',
    );
    assert.doesNotMatch(await scene.vim.screen(), /Press ENTER/);
    await scene.vim.command(`bwipeout! ${kept}`);
  });

  test('Gemini CLI closing a diff the user did not edit (cancelled): its message, no buffer, then the outcome', async () => {
    const { file, diff } = await scene.propose('gemini', 'plain.txt', 'one\n', 'two\n');
    await scene.clients.gemini.resolveDiffFromCli(file, 'rejected');
    await diff.result;
    await waitForNoDiffTab(scene.vim);
    const messages = await scene.vim.eval<string>(`execute('messages')`);
    assert.match(messages, /Tandem: Gemini CLI closed this diff: you answered in its terminal\./);
    assert.equal(await scene.vim.eval(`bufnr('plain.txt (your edits)')`), -1);
    // Nothing written: after a few seconds the engine knows it was a cancel, and Vim says so.
    await outcomeShown(scene.vim, 'Tandem: plain.txt was not changed: the proposal was cancelled');
  });

  test('two diffs at once, one from each client, each with its own answer', async () => {
    const first = scene.file('first.txt', 'g\n');
    const second = scene.file('second.txt', 'q\n');
    const fromGemini = scene.clients.gemini.openDiff(first, 'G\n');
    await fromGemini.opened;
    const fromQwen = scene.clients.qwen.openDiff(second, 'Q\n');
    await fromQwen.opened;
    await waitFor('two diffs', async () =>
      (await scene.vim.status()).diffs.length === 2 ? true : undefined,
    );
    assert.equal((await scene.vim.currentTab()).tabs, 3);
    // The current tab is the second diff's: reject it, then accept the first one.
    await scene.vim.ex('q');
    assert.deepEqual(await fromQwen.result, { status: 'rejected' });
    await waitFor('the first diff only', async () => {
      const status = await scene.vim.status();
      return status.diffs.length === 1 && status.diffs[0]?.path === first ? true : undefined;
    });
    await scene.vim.ex('2tabnext');
    await scene.vim.ex('w');
    assert.deepEqual(await fromGemini.result, { status: 'accepted', content: 'G\n' });
    await waitForNoDiffTab(scene.vim);
  });

  test('a 1 MiB proposal travels whole, both ways', async () => {
    const file = scene.file('large.txt', 'small\n');
    const line = `${'0123456789abcdef'.repeat(4)}\n`;
    const large = line.repeat((1024 * 1024) / line.length);
    const diff = scene.clients.gemini.openDiff(file, large);
    await diff.opened;
    await waitForDiffTab(scene.vim);
    assert.equal(await scene.vim.eval(`line('$')`), large.length / line.length);
    await scene.vim.ex('w');
    assert.deepEqual(await diff.result, { status: 'accepted', content: large });
    await waitForNoDiffTab(scene.vim);
  });

  test('a new file diffs against an empty side', async () => {
    const { diff, tab } = await scene.propose('qwen', 'brand-new.txt', undefined, 'fresh\n');
    assert.deepEqual(tab.windows[0]?.lines, ['']);
    assert.match(tab.windows[0]?.label ?? '', /New file: brand-new\.txt/);
    await scene.vim.ex('w');
    assert.deepEqual(await diff.result, { status: 'accepted', content: 'fresh\n' });
    await waitForNoDiffTab(scene.vim);
  });

  test('a proposal is untrusted text: its modelines set nothing', async () => {
    // An unknown file type: Vim runs filetype detection in the proposal's buffer. Modelines are
    // on as for every user but root.
    await scene.vim.ex('set modeline');
    const { diff, tab } = await scene.propose(
      'gemini',
      'notes.untyped',
      'vim: set shiftwidth=6 :\n',
      'vim: set shiftwidth=7 :\n',
    );
    assert.equal(tab.windows[1]?.current, true);
    assert.notEqual(await scene.vim.eval<number>('&l:shiftwidth'), 7);
    assert.equal(await scene.vim.eval<number>('&l:modeline'), 0);
    await scene.vim.ex('TandemReject');
    await scene.vim.ex('set modeline&');
    assert.deepEqual(await diff.result, { status: 'rejected' });
    await waitForNoDiffTab(scene.vim);
  });

  test("after an accept, the file's buffer shows what the CLI wrote", async () => {
    const file = scene.file('reloaded.txt', 'before\n');
    await scene.vim.command('edit reloaded.txt');
    const diff = scene.clients.gemini.openDiff(file, 'after\n');
    await diff.opened;
    await waitForDiffTab(scene.vim);
    await scene.vim.ex('w');
    const result = await diff.result;
    assert.equal(result.status, 'accepted');
    // The client writes the file itself, as the CLI does after an accept.
    writeFileSync(file, result.status === 'accepted' ? (result.content ?? '') : '');
    await waitFor('the buffer to reload', async () => {
      const lines = await scene.vim.eval<string[]>(`getbufline(bufnr('reloaded.txt'), 1, '$')`);
      return lines.join('\n') === 'after' ? true : undefined;
    });
  });

  test('a buffer with unsaved changes is never reloaded over; the view warns', async () => {
    const file = scene.file('unsaved.txt', 'disk\n');
    await scene.vim.command('edit unsaved.txt');
    await scene.vim.type('ccmine');
    await scene.vim.keys('Escape');
    await waitFor('the buffer to be changed', async () =>
      (await scene.vim.eval('&modified')) === 1 ? true : undefined,
    );
    const diff = scene.clients.gemini.openDiff(file, 'proposal\n');
    await diff.opened;
    const tab = await waitForDiffTab(scene.vim);
    assert.deepEqual(tab.windows[0]?.lines, ['disk']);
    assert.match(tab.windows[0]?.label ?? '', /unsaved changes in Vim/);
    await scene.vim.ex('w');
    const result = await diff.result;
    assert.equal(result.status, 'accepted');
    writeFileSync(file, 'proposal\n');
    await waitFor('the warning', async () =>
      /changed on disk, and its buffer has unsaved changes/.test(await scene.vim.screen())
        ? true
        : undefined,
    );
    assert.deepEqual(await scene.vim.eval(`getbufline(bufnr('unsaved.txt'), 1, '$')`), ['mine']);
    assert.equal(await scene.vim.eval(`getbufvar(bufnr('unsaved.txt'), '&modified')`), 1);
  });
});

describe('quitting Vim with a diff open', { skip }, () => {
  test(':qa! rejects the diff and removes the discovery files', async () => {
    const sandbox = new Sandbox();
    const vim = await VimSession.start(sandbox);
    let gemini: RealClient | undefined;
    try {
      const status = await vim.waitForState('running');
      // Gemini's file, Qwen's lock and legacy file, Claude Code's lock.
      assert.equal(status.discovery_files.length, 4);
      assert.ok(status.discovery_files.every((file) => existsSync(file)));
      gemini = await connectedClientIn(sandbox, 'gemini');
      const file = path.join(sandbox.workspace, 'pending.txt');
      writeFileSync(file, 'a\n');
      const diff = gemini.openDiff(file, 'b\n');
      await diff.opened;
      await waitForDiffTab(vim);
      await vim.type('oedited');
      await vim.keys('Escape');
      await vim.ex('qa!');
      assert.deepEqual(await diff.result, { status: 'rejected' });
      await waitFor('Vim to exit', async () => ((await vim.exited()) ? true : undefined));
      await waitFor('the discovery files to go', () =>
        status.discovery_files.some((file) => existsSync(file)) ? undefined : true,
      );
      assert.deepEqual(readdirSync(path.join(sandbox.qwenHome, 'ide')), []);
    } finally {
      await gemini?.kill();
      await vim.close();
      sandbox.remove();
    }
  });
});

/** Waits until Vim's message history holds `text` (the engine watches the file first). */
async function outcomeShown(vim: VimSession, text: string): Promise<void> {
  await waitFor(
    `"${text}" in :messages`,
    async () => ((await vim.eval<string>(`execute('messages')`)).includes(text) ? true : undefined),
    60_000,
  );
}
