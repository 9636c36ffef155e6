/**
 * What differs between Neovim versions, on each tested one: Tandem starts, shows a diff from the
 * real Gemini client with its winbar hint, opens a terminal, and answers :checkhealth, without
 * printing a message or calling a function the version has deprecated.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import {
  forEachVersion,
  NeovimSession,
  neovimSkipReason,
  realClientIn,
  Sandbox,
  waitFor,
  type RealClient,
} from '@tandem/testkit';

const skip = neovimSkipReason({ sidecar: true, statedVersions: true });

const PROBE = `{ terminal = { clis = { probe = { 'sh', '-c', 'printenv GEMINI_CLI_IDE_SERVER_PORT > port.out' } } } }`;

forEachVersion('nvim', ['0.7', '0.10', 'newest'], (nvim) => {
  const minor = Number(nvim.version.split('.')[1]);

  describe(`Tandem on ${nvim.name}`, { skip }, () => {
    let sandbox: Sandbox;
    let session: NeovimSession;
    let gemini: RealClient | undefined;

    before(async () => {
      sandbox = new Sandbox();
      session = await NeovimSession.start(sandbox, { tandem: PROBE, nvim });
    });

    after(async () => {
      await gemini?.kill();
      await session?.close();
      sandbox?.remove();
    });

    test('a diff opens with its hint in the winbar (0.8+) or status line, and :w accepts', async () => {
      const file = path.join(sandbox.workspace, 'notes.txt');
      writeFileSync(file, 'one\n');
      await session.command(`edit ${file}`);
      gemini = await realClientIn(sandbox, 'gemini');
      assert.equal((await gemini.connect()).status, 'connected');
      const diff = gemini.openDiff(file, 'one\ntwo\n');
      await diff.opened;
      const tab = await waitFor('the diff view', async () => {
        const view = await session.currentTab();
        return view.windows.length === 2 ? view : undefined;
      });
      const proposal = tab.windows.find((window) => window.current);
      assert.deepEqual(proposal?.lines, ['one', 'two']);
      assert.match(proposal?.label ?? '', /accept: :w/);
      const winbar = await session.lua<string>(
        `return vim.fn.has('nvim-0.8') == 1 and vim.wo.winbar or ''`,
      );
      assert.equal(winbar !== '', minor >= 8, `winbar: "${winbar}"`);
      await session.input(':w<CR>');
      assert.deepEqual(await diff.result, { status: 'accepted', content: 'one\ntwo\n' });
    });

    test('a terminal from :Tandem (termopen, or jobstart with term on 0.11+) gets the port', async () => {
      await session.command('Tandem probe');
      assert.equal(await session.lua<string>(`return vim.bo.buftype`), 'terminal');
      const out = path.join(sandbox.workspace, 'port.out');
      const port = await waitFor('the terminal to write the port', () => {
        const text = existsSync(out) ? readFileSync(out, 'utf8') : '';
        return text.endsWith('\n') ? text.trim() : undefined;
      });
      assert.equal(port, String((await session.status()).port));
    });

    test('no message was printed, and no deprecated function was called', async () => {
      const messages = await session.lua<string>(`return vim.api.nvim_exec('messages', true)`);
      assert.equal(messages.trim(), '');
      // Neovim 0.10 and later count the calls of deprecated functions.
      const counts = await session.lua<boolean>(`return (pcall(require, 'vim.deprecated.health'))`);
      if (counts) {
        await session.command('checkhealth vim.deprecated');
        assert.match((await session.lines()).join('\n'), /No deprecated functions detected/);
      }
    });

    test(':checkhealth tandem reports, through vim.health or health#', async () => {
      await session.command('checkhealth tandem');
      const report = (await session.lines()).join('\n');
      assert.match(report, /OK.*Neovim \d/);
      assert.match(report, /sidecar running/);
      assert.doesNotMatch(report, /ERROR/);
      // Warnings are the engine's about the sandbox (IDE mode off, Qwen's approval mode...), each
      // one also in :TandemStatus; the plugin itself warns of nothing here.
      const { warnings } = await session.status();
      const warned = report.split('\n').filter((line) => /WARNING/.test(line));
      assert.equal(warned.length, warnings?.length ?? 0, report);
    });
  });
});
