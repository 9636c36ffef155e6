/**
 * Neovim with a real screen (inside tmux): a diff arriving while the user types in a terminal
 * window takes over the screen, shows how to answer, and answers to the keys the user types;
 * the README's picture of a diff renders.
 */
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import {
  neovimSkipReason as skipReason,
  pluginClone,
  realClientIn,
  Sandbox,
  userPath,
  testDiffScreenshot,
  type RealClient,
} from '@tandem/testkit';
import { neovimDiffScreenshot } from './diff-screenshot.js';
import { ScreenNeovim } from './screen-neovim.js';

const skip = skipReason({ sidecar: true, tmux: true });

describe('a diff on a real screen', { skip }, () => {
  let sandbox: Sandbox;
  let screen: ScreenNeovim;
  let gemini: RealClient;

  before(async () => {
    sandbox = new Sandbox();
    screen = await ScreenNeovim.start(sandbox, { width: 140, height: 36 });
    gemini = await realClientIn(sandbox, 'gemini');
    assert.equal((await gemini.connect()).status, 'connected');
  });

  after(async () => {
    await gemini?.kill();
    await screen?.stop();
    sandbox?.remove();
  });

  test('arriving while the user types in a terminal, it shows both sides and how to answer', async () => {
    // The user is in Terminal mode in a shell, as when talking to a CLI.
    await screen.pane.type(':terminal');
    await screen.pane.sendKeys('Enter');
    await screen.pane.type('i');
    await screen.waitForText('-- TERMINAL --');
    const file = path.join(sandbox.workspace, 'greet.py');
    writeFileSync(file, 'def greet():\n    print("hi")\n');
    const diff = gemini.openDiff(file, 'def greet(name):\n    print(f"hello {name}")\n');
    await diff.opened;
    const shown = await screen.waitForText('accept: :w or <leader>da');
    assert.match(shown, /reject: :q or <leader>dr/);
    assert.match(shown, /On disk: greet\.py/);
    assert.match(shown, /print\("hi"\)/);
    assert.match(shown, /print\(f"hello \{name\}"\)/);
    assert.doesNotMatch(shown, /-- TERMINAL --/);
    await screen.pane.type(':w');
    await screen.pane.sendKeys('Enter');
    assert.equal((await diff.result).status, 'accepted');
    await screen.waitFor(
      'the terminal again, in Terminal mode',
      (text) => !text.includes('accept: :w') && text.includes('-- TERMINAL --'),
    );
    await screen.pane.sendKeys('C-\\', 'C-n');
    await screen.waitFor('Normal mode', (text) => !text.includes('-- TERMINAL --'));
  });

  test('a diff the CLI closes while the user types in its terminal leaves no tab behind', async () => {
    const file = path.join(sandbox.workspace, 'src', 'stats.js');
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, 'export const mean = 1;\n');
    const diff = gemini.openDiff(file, 'export const mean = 2;\n');
    await diff.opened;
    const shown = await screen.waitForText('accept: :w');
    // The tab's label names the file and the CLI.
    assert.match(shown.split('\n')[0] ?? '', /s\/stats\.js \(Gemini CLI\)/);
    // Back to the CLI's terminal, typing there (as when approving in the CLI).
    await screen.pane.type('gT');
    await screen.pane.type('i');
    await screen.waitForText('-- TERMINAL --');
    await gemini.resolveDiffFromCli(file, 'rejected');
    assert.equal((await diff.result).status, 'rejected');
    await screen.waitFor(
      'the tab line gone with the diff tab',
      (text) => text.includes('-- TERMINAL --') && !text.includes('stats.js'),
    );
    await screen.pane.sendKeys('C-\\', 'C-n');
    await screen.waitFor('Normal mode', (text) => !text.includes('-- TERMINAL --'));
  });

  test(':q typed on the screen rejects', async () => {
    const file = path.join(sandbox.workspace, 'other.txt');
    writeFileSync(file, 'before\n');
    const diff = gemini.openDiff(file, 'after\n');
    await diff.opened;
    await screen.waitForText('accept: :w');
    await screen.pane.type(':q');
    await screen.pane.sendKeys('Enter');
    assert.equal((await diff.result).status, 'rejected');
  });
});

testDiffScreenshot(neovimDiffScreenshot, { skip });

describe(
  'Neovim without any tandem, on a real screen',
  { skip: skipReason({ tmux: true }) },
  () => {
    test('says so once, after start-up, where it stays in view: what to run', async () => {
      const sandbox = new Sandbox();
      // The plugin as a plugin manager clones it (nothing built), no tandem on the PATH; setup()
      // runs before VimEnter, as from init.lua.
      const pluginDir = pluginClone(path.join(sandbox.root, 'plugin'));
      const noTandem = path.join(sandbox.root, 'no-tandem');
      mkdirSync(noTandem);
      const screen = await ScreenNeovim.start(sandbox, {
        width: 200,
        height: 20,
        pluginDir,
        env: { PATH: userPath(noTandem) },
        state: 'failed',
      });
      try {
        const said = 'Tandem: no `tandem` command: run `npm run build:sidecar` in';
        // Neovim has drawn its first screen and run what it queued: the message is still there.
        await screen.nvim.lua('vim.wait(0)');
        await screen.waitForText(said);
        await screen.nvim.command('redrawstatus');
        assert.ok((await screen.capture()).includes(said), await screen.capture());
        const messages = (await screen.nvim.lua(`return vim.fn.execute('messages')`)) as string;
        assert.equal(messages.split('no `tandem` command').length - 1, 1, messages);
      } finally {
        await screen.stop();
        sandbox.remove();
      }
    });
  },
);
