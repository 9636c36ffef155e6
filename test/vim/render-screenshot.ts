/**
 * Renders the README's picture of a real diff in Vim into the PNG file it is given: Vim runs in
 * tmux with Tandem, the real Gemini CLI client proposes an edit, and the captured screen (with
 * its colours) becomes HTML that Chromium turns into a PNG. Needs vim, tmux, Chromium and the
 * built sidecar. Tests never run it: it writes a tracked file only when asked.
 *
 *   node --import tsx test/vim/render-screenshot.ts docs/images/vim-diff.png
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { realClientIn, Sandbox, VimSession, waitFor } from '@tandem/testkit';
import { ansiToHtml } from '../neovim/ansi-to-html.js';

const WIDTH = 140;
const HEIGHT = 30;
const COLORS = { fg: '#cdd6f4', bg: '#1e1e2e' };

/** A dark colour scheme for the picture, in true colours. */
const THEME = `
set termguicolors showtabline=2 number laststatus=2
set fillchars=vert:│,eob:\\ ,diff:\\ 
syntax on
let s:groups = {
      \\ 'Normal': 'guifg=#cdd6f4 guibg=#1e1e2e', 'LineNr': 'guifg=#585b70',
      \\ 'VertSplit': 'guifg=#45475a guibg=#1e1e2e gui=NONE',
      \\ 'StatusLine': 'guifg=#cdd6f4 guibg=#313244 gui=bold',
      \\ 'StatusLineNC': 'guifg=#a6adc8 guibg=#262637 gui=NONE',
      \\ 'TabLine': 'guifg=#a6adc8 guibg=#262637 gui=NONE',
      \\ 'TabLineSel': 'guifg=#1e1e2e guibg=#89b4fa gui=bold', 'TabLineFill': 'guibg=#181825 gui=NONE',
      \\ 'DiffAdd': 'guibg=#263a2c', 'DiffChange': 'guibg=#262f45', 'DiffText': 'guibg=#3b4f7a gui=NONE',
      \\ 'DiffDelete': 'guifg=#4c3040 guibg=#2a2030 gui=NONE', 'FoldColumn': 'guifg=#585b70 guibg=#1e1e2e',
      \\ 'Folded': 'guifg=#7f849c guibg=#24273a', 'WarningMsg': 'guifg=#f9e2af gui=bold',
      \\ 'Comment': 'guifg=#7f849c gui=italic', 'Constant': 'guifg=#fab387', 'String': 'guifg=#a6e3a1',
      \\ 'Identifier': 'guifg=#cdd6f4 gui=NONE', 'Statement': 'guifg=#cba6f7 gui=NONE',
      \\ 'Type': 'guifg=#f9e2af gui=NONE', 'PreProc': 'guifg=#f5c2e7', 'Special': 'guifg=#94e2d5',
      \\ 'EndOfBuffer': 'guifg=#1e1e2e',
      \\ }
for [s:name, s:spec] in items(s:groups)
  " With termguicolors the colours are gui's, the attributes cterm's.
  execute 'highlight' s:name s:spec substitute(matchstr(s:spec, 'gui=\\S\\+'), 'gui', 'cterm', '')
endfor
`;

const BEFORE = `def to_fahrenheit(celsius):
    return celsius * 9 / 5 + 32


def describe(celsius):
    if celsius < 0:
        return "freezing"
    if celsius < 20:
        return "mild"
    return "warm"
`;

const AFTER = `def to_fahrenheit(celsius: float) -> float:
    """Converts degrees Celsius to degrees Fahrenheit."""
    return celsius * 9 / 5 + 32


def describe(celsius: float) -> str:
    if celsius < 0:
        return "freezing"
    if celsius < 20:
        return "mild"
    if celsius < 30:
        return "warm"
    return "hot"
`;

async function render(out: string): Promise<void> {
  const sandbox = new Sandbox();
  const theme = path.join(sandbox.root, 'theme.vim');
  writeFileSync(theme, THEME);
  const file = path.join(sandbox.workspace, 'temperature.py');
  writeFileSync(file, BEFORE);
  const vim = await VimSession.start(sandbox, {
    width: WIDTH,
    height: HEIGHT,
    args: ['-c', `source ${theme}`, 'temperature.py'],
  });
  const gemini = await realClientIn(sandbox, 'gemini');
  try {
    await vim.waitForState('running');
    await gemini.connect();
    const diff = gemini.openDiff(file, AFTER);
    await diff.opened;
    await waitFor('the diff on the screen', async () =>
      (await vim.screen()).includes('accept: :w') ? true : undefined,
    );
    const socket = path.join(sandbox.root, 'tmux-vim', 'tmux.sock');
    const ansi = execFileSync('tmux', ['-S', socket, 'capture-pane', '-e', '-p', '-t', 'main'], {
      encoding: 'utf8',
    });
    await gemini.resolveDiffFromCli(file, 'rejected');
    await screenshot(ansiToHtml(ansi, WIDTH, COLORS), out);
  } finally {
    await gemini.kill();
    await vim.close();
    sandbox.remove();
  }
}

async function screenshot(screenHtml: string, out: string): Promise<void> {
  const page = `<!doctype html><meta charset="utf-8">
<style>
  body { margin: 0; background: ${COLORS.bg}; }
  #screen { display: inline-block; padding: 12px 14px; background: ${COLORS.bg};
    font: 15px/1.3 'DejaVu Sans Mono', monospace; white-space: pre; }
  #screen div { height: 1.3em; }
</style>
<div id="screen">${screenHtml}</div>`;
  const browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run'],
  });
  try {
    const tab = await browser.newPage({ deviceScaleFactor: 2 });
    await tab.setContent(page);
    mkdirSync(path.dirname(out), { recursive: true });
    await tab.locator('#screen').screenshot({ path: out });
  } finally {
    await browser.close();
  }
}

const [out] = process.argv.slice(2);
if (out === undefined) {
  console.error('usage: node --import tsx test/vim/render-screenshot.ts OUT.png');
  process.exit(2);
}
await render(path.resolve(out));
console.log(`wrote ${path.relative(process.cwd(), path.resolve(out))}`);
