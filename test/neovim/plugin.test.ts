/**
 * The plugin's pieces in real Neovim, no sidecar needed: the help file, :checkhealth before
 * setup, option checking, the commands, and reading selections.
 */
import assert from 'node:assert/strict';
import { cpSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { NeovimSession, neovimSkipReason, REPO_ROOT, Sandbox } from '@tandem/testkit';

const skip = neovimSkipReason();

describe('the Neovim plugin without a sidecar', { skip }, () => {
  let sandbox: Sandbox;
  let session: NeovimSession;

  before(async () => {
    sandbox = new Sandbox();
    session = await NeovimSession.start(sandbox);
  });

  after(async () => {
    await session?.close();
    sandbox?.remove();
  });

  test(':helptags accepts doc/tandem.txt, and every link in it leads somewhere', async () => {
    // A copy: :helptags writes a tags file beside the help file.
    const doc = path.join(sandbox.root, 'runtime', 'doc');
    cpSync(path.join(REPO_ROOT, 'doc'), doc, { recursive: true });
    await session.command(`helptags ${doc}`);
    await session.command(`set rtp^=${path.dirname(doc)}`);
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
    await session.command('help tandem');
    assert.match(await session.lua<string>('return vim.fn.expand("%:t")'), /^tandem\.txt$/);
    await session.command('close');
    const text = readFileSync(path.join(REPO_ROOT, 'doc', 'tandem.txt'), 'utf8');
    const links = [...text.matchAll(/\|([^|\s]+)\|/g)].map((match) => match[1] as string);
    assert.ok(links.length > 10);
    for (const link of new Set(links)) {
      await session.command(`help ${link}`).catch((error: unknown) => {
        throw new Error(`|${link}| leads nowhere: ${String(error)}`);
      });
      await session.command('close');
    }
  });

  test(':checkhealth tandem before setup() says what to do', async () => {
    await session.command('checkhealth tandem');
    const report = (await session.lines()).join('\n');
    assert.match(report, /Tandem/);
    assert.match(report, /Node\.js v\d+/);
    assert.match(report, /WARNING:? Tandem is not set up/);
    assert.match(report, /require\('tandem'\)\.setup\(\)/);
    await session.command('bwipeout');
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
      assert.equal(await session.lua('return vim.fn.exists(":" .. ...)', [name]), 2, name);
    }
    assert.deepEqual(await session.lua(`return vim.fn.getcompletion('Tandem ', 'cmdline')`), [
      'gemini',
      'qwen',
    ]);
  });

  test('a bad option gets a clear error', async () => {
    await assert.rejects(
      session.lua(`require('tandem').setup({ diff = { layout = 'diagonal' } })`),
      /diff\.layout: expected 'vertical' or 'horizontal'/,
    );
    await assert.rejects(
      session.lua(`require('tandem').setup({ auto_start = 'yes' })`),
      /auto_start: expected boolean, got "yes"/,
    );
  });

  test('the status line is empty while Tandem is stopped', async () => {
    assert.equal(await session.lua(`return require('tandem').statusline()`), '');
  });

  test(':TandemAccept outside a diff says so', async () => {
    await assert.rejects(session.command('TandemAccept'), /no Tandem diff here/);
  });

  test(':TandemEnv with the sidecar stopped says how to start it', async () => {
    await assert.rejects(session.command('TandemEnv'), /the sidecar is not running: start it/);
  });

  describe('selections', () => {
    before(async () => {
      await session.command('enew');
      await session.lua(`vim.api.nvim_buf_set_lines(0, 0, -1, false, ...)`, [
        ['ab\tcd', 'é€xyz', 'short', 'a much longer line'],
      ]);
      await session.command('setlocal tabstop=4');
    });

    async function selected(keys: string): Promise<string | null> {
      await session.input(`<Esc>gg0${keys}`);
      const text = await session.lua<string | null>(
        `return require('tandem.selection').text(vim.api.nvim_get_mode().mode)`,
      );
      await session.input('<Esc>');
      return text;
    }

    test('none outside Visual mode', async () => {
      await session.input('<Esc>');
      assert.equal(await session.lua(`return require('tandem.selection').text('n')`), null);
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

    test('all of it, however long: the engine trims it, not the plugin', async () => {
      const long = Array.from({ length: 2000 }, (_, i) => `line ${i} ${'é'.repeat(20)}`);
      await session.command('enew');
      await session.lua(`vim.api.nvim_buf_set_lines(0, 0, -1, false, ...)`, [long]);
      assert.equal(await selected('VG'), long.join('\n'));
      await session.command('bwipeout!');
    });
  });
});
