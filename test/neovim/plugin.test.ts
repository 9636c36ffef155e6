/**
 * The plugin's pieces in real Neovim, no sidecar needed: the help file, :checkhealth before
 * setup, option checking, the commands, and reading selections.
 */
import assert from 'node:assert/strict';
import { cpSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { before, describe, test } from 'node:test';
import { neovimForBlock, neovimSkipReason, REPO_ROOT } from '@tandem/testkit';

const skip = neovimSkipReason();

describe('the Neovim plugin without a sidecar', { skip }, () => {
  const neovim = neovimForBlock();

  test(':helptags accepts doc/tandem.txt, and every link in it leads somewhere', async () => {
    // A copy: :helptags writes a tags file beside the help file.
    const doc = path.join(neovim.sandbox.root, 'runtime', 'doc');
    cpSync(path.join(REPO_ROOT, 'doc'), doc, { recursive: true });
    await neovim.session.command(`helptags ${doc}`);
    await neovim.session.command(`set rtp^=${path.dirname(doc)}`);
    const tags = readFileSync(path.join(doc, 'tags'), 'utf8');
    for (const tag of [
      'tandem.txt',
      'tandem-install',
      'tandem-setup',
      ':Tandem',
      ':TandemStatus',
      'tandem-statusline',
    ]) {
      assert.match(tags, new RegExp(`^${tag.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\t`, 'm'), tag);
    }
    await neovim.session.command('help tandem');
    assert.match(await neovim.session.lua<string>('return vim.fn.expand("%:t")'), /^tandem\.txt$/);
    await neovim.session.command('close');
    const text = readFileSync(path.join(REPO_ROOT, 'doc', 'tandem.txt'), 'utf8');
    const links = [...text.matchAll(/\|([^|\s]+)\|/g)].map((match) => match[1] as string);
    assert.ok(links.length > 10);
    for (const link of new Set(links)) {
      await neovim.session.command(`help ${link}`).catch((error: unknown) => {
        throw new Error(`|${link}| leads nowhere: ${String(error)}`);
      });
      await neovim.session.command('close');
    }
  });

  test(':checkhealth tandem before setup() says what to do', async () => {
    await neovim.session.command('checkhealth tandem');
    const report = (await neovim.session.lines()).join('\n');
    assert.match(report, /Tandem/);
    assert.match(report, /Node\.js v\d+/);
    assert.match(report, /WARNING:? Tandem is not set up/);
    assert.match(report, /require\('tandem'\)\.setup\(\)/);
    await neovim.session.command('bwipeout');
  });

  test('the commands exist', async () => {
    for (const name of [
      'Tandem',
      'TandemStart',
      'TandemStop',
      'TandemStatus',
      'TandemAccept',
      'TandemReject',
      'TandemDoctor',
      'TandemEnv',
    ]) {
      assert.equal(await neovim.session.lua('return vim.fn.exists(":" .. ...)', [name]), 2, name);
    }
    assert.deepEqual(
      await neovim.session.lua(`return vim.fn.getcompletion('Tandem ', 'cmdline')`),
      ['claude', 'gemini', 'qwen', 'send'],
    );
  });

  test('a bad option gets a clear error', async () => {
    await assert.rejects(
      neovim.session.lua(`require('tandem').setup({ diff = { layout = 'diagonal' } })`),
      /diff\.layout: expected 'vertical' or 'horizontal'/,
    );
    await assert.rejects(
      neovim.session.lua(`require('tandem').setup({ auto_start = 'yes' })`),
      /auto_start: expected boolean, got "yes"/,
    );
  });

  test('the status line is empty while Tandem is stopped', async () => {
    assert.equal(await neovim.session.lua(`return require('tandem').statusline()`), '');
  });

  test(':TandemAccept outside a diff says so', async () => {
    await assert.rejects(neovim.session.command('TandemAccept'), /no Tandem diff here/);
  });

  test(':TandemEnv with the sidecar stopped says how to start it', async () => {
    await assert.rejects(
      neovim.session.command('TandemEnv'),
      /the sidecar is not running: start it/,
    );
  });

  describe('selections', () => {
    before(async () => {
      await neovim.session.command('enew');
      await neovim.session.lua(`vim.api.nvim_buf_set_lines(0, 0, -1, false, ...)`, [
        ['ab\tcd', 'é€xyz', 'short', 'a much longer line'],
      ]);
      await neovim.session.command('setlocal tabstop=4');
    });

    async function selected(keys: string, limit?: number): Promise<string | null> {
      await neovim.session.input(`<Esc>gg0${keys}`);
      const text = await neovim.session.lua<string | null>(
        `return require('tandem.selection').text(vim.api.nvim_get_mode().mode, ${limit ?? 'nil'})`,
      );
      await neovim.session.input('<Esc>');
      return text;
    }

    test('none outside Visual mode', async () => {
      await neovim.session.input('<Esc>');
      assert.equal(await neovim.session.lua(`return require('tandem.selection').text('n')`), null);
    });

    test('charwise, across lines and multibyte characters', async () => {
      assert.equal(await selected('lvjl'), 'b\tcd\né€x');
    });

    test('linewise', async () => {
      assert.equal(await selected('jVj'), 'é€xyz\nshort');
    });

    test('blockwise, by screen columns', async () => {
      assert.equal(await selected('<C-v>jjl'), 'ab\né€\nsh');
    });

    test('blockwise to the end of each line', async () => {
      assert.equal(await selected('jl<C-v>j$'), '€xyz\nhort');
    });

    test('a huge one is read only up to the limit, in characters', async () => {
      // Each line: 10 characters of ASCII, then 20 é of two bytes each.
      const long = Array.from(
        { length: 20_000 },
        (_, i) => `line ${String(i).padStart(4, '0')} ${'é'.repeat(20)}`,
      );
      await neovim.session.command('enew');
      await neovim.session.lua(`vim.api.nvim_buf_set_lines(0, 0, -1, false, ...)`, [long]);
      const all = long.join('\n');
      assert.equal(await selected('VG'), all, 'no limit: all of it');
      const characters = [...all];
      for (const limit of [100, 101, 16_385]) {
        assert.equal(await selected('VG', limit), characters.slice(0, limit).join(''));
      }
      // Shrunk at its end, still past the limit: the same; from another start: another text.
      assert.equal(await selected('VGk', 100), characters.slice(0, 100).join(''));
      assert.equal(await selected('lVGk', 100), characters.slice(0, 100).join(''));
      assert.equal(await selected('lvG', 100), characters.slice(1, 101).join(''));
      // The text changed: read again.
      await neovim.session.input('<Esc>gg0x');
      assert.equal(await selected('VG', 100), characters.slice(1, 101).join(''));
      await neovim.session.command('bwipeout!');
    });
  });
});
