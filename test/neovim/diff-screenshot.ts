/**
 * The README's picture of a real diff in Neovim: Neovim runs in tmux with Tandem, the real
 * Gemini CLI client proposes an edit, and the captured screen (with its colours) becomes HTML
 * that Chromium turns into a PNG. Needs nvim, tmux, Chromium and the built sidecar.
 * `npm run screenshots` renders it into docs/images (render-screenshot.ts).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { Sandbox, startRealClient } from '@tandem/testkit';
import { ansiToHtml } from './ansi-to-html.js';
import { ScreenNeovim } from './screen-neovim.js';

const WIDTH = 140;
const HEIGHT = 30;
const COLORS = { fg: '#cdd6f4', bg: '#1e1e2e' };

/** A dark colour scheme for the picture, in the highlight groups Neovim 0.7 knows. */
const THEME = `
vim.o.termguicolors = true
vim.o.showtabline = 2
vim.o.number = true
vim.o.fillchars = 'vert:│,eob: ,diff: '
local groups = {
  Normal = { fg = '#cdd6f4', bg = '#1e1e2e' },
  LineNr = { fg = '#585b70' },
  CursorLineNr = { fg = '#a6adc8' },
  VertSplit = { fg = '#45475a' },
  WinSeparator = { fg = '#45475a' },
  StatusLine = { fg = '#cdd6f4', bg = '#313244', bold = true },
  StatusLineNC = { fg = '#a6adc8', bg = '#262637' },
  WinBar = { fg = '#cdd6f4', bg = '#313244', bold = true },
  WinBarNC = { fg = '#a6adc8', bg = '#262637' },
  TabLine = { fg = '#a6adc8', bg = '#262637' },
  TabLineSel = { fg = '#1e1e2e', bg = '#89b4fa', bold = true },
  TabLineFill = { bg = '#181825' },
  DiffAdd = { bg = '#263a2c' },
  DiffChange = { bg = '#262f45' },
  DiffText = { bg = '#3b4f7a' },
  DiffDelete = { fg = '#4c3040', bg = '#2a2030' },
  FoldColumn = { fg = '#585b70', bg = '#1e1e2e' },
  Folded = { fg = '#7f849c', bg = '#24273a' },
  WarningMsg = { fg = '#f9e2af', bold = true },
  Comment = { fg = '#7f849c', italic = true },
  Constant = { fg = '#fab387' },
  String = { fg = '#a6e3a1' },
  Number = { fg = '#fab387' },
  Identifier = { fg = '#cdd6f4' },
  Function = { fg = '#89b4fa' },
  Statement = { fg = '#cba6f7' },
  Keyword = { fg = '#cba6f7' },
  Type = { fg = '#f9e2af' },
  PreProc = { fg = '#f5c2e7' },
  Special = { fg = '#94e2d5' },
  Operator = { fg = '#89dceb' },
}
for name, spec in pairs(groups) do
  vim.api.nvim_set_hl(0, name, spec)
end
`;

const BEFORE = `export function toFahrenheit(celsius: number): number {
  return celsius * 9 / 5 + 32;
}

export function describe(celsius: number): string {
  if (celsius < 0) return 'freezing';
  if (celsius < 20) return 'mild';
  return 'warm';
}
`;

const AFTER = `/** Converts degrees Celsius to degrees Fahrenheit. */
export function toFahrenheit(celsius: number): number {
  return (celsius * 9) / 5 + 32;
}

export function describe(celsius: number): string {
  if (Number.isNaN(celsius)) throw new RangeError('not a temperature');
  if (celsius < 0) return 'freezing';
  if (celsius < 20) return 'mild';
  if (celsius < 30) return 'warm';
  return 'hot';
}
`;

/** Renders the picture into the PNG file `out`. */
export async function renderDiffScreenshot(out: string): Promise<void> {
  const sandbox = new Sandbox();
  const theme = path.join(sandbox.root, 'theme.lua');
  writeFileSync(theme, THEME);
  const file = path.join(sandbox.workspace, 'src', 'temperature.ts');
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, BEFORE);
  const screen = await ScreenNeovim.start(sandbox, {
    width: WIDTH,
    height: HEIGHT,
    args: ['-c', `luafile ${theme}`, file],
  });
  const gemini = await startRealClient({
    kind: 'gemini',
    cwd: sandbox.workspace,
    tmpDir: sandbox.tmpDir,
    qwenHome: sandbox.qwenHome,
  });
  try {
    await gemini.connect();
    const diff = gemini.openDiff(file, AFTER);
    await diff.opened;
    await screen.waitForText('accept: :w');
    const html = ansiToHtml(await screen.captureAnsi(), WIDTH, COLORS);
    await gemini.resolveDiffFromCli(file, 'rejected');
    await screenshot(html, out);
  } finally {
    await gemini.kill();
    await screen.stop();
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
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
    ],
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
