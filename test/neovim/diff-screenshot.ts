/**
 * The README's picture of a diff in Neovim (`@tandem/testkit`'s `DiffScreenshotDriver`): Neovim
 * in tmux with a dark theme, its screen captured with its colours. Needs nvim, tmux, Chromium
 * and the built sidecar. `screen.test.ts` renders it into a temporary file;
 * `render-screenshot.ts` (`npm run screenshots`) into docs/images.
 */
import path from 'node:path';
import {
  EDITOR_PICTURE_LOOK,
  themedTerminal,
  tmuxScreenshot,
  type DiffScreenshotDriver,
} from '@tandem/testkit';
import { ScreenNeovim } from './screen-neovim.js';

const FILE = 'src/temperature.ts';

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

const PICTURE_THEME = { name: 'theme.lua', text: THEME, load: 'luafile' };

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

/** Neovim in tmux with the theme above, the file open: its screen is the picture. */
export const neovimDiffScreenshot: DiffScreenshotDriver = {
  name: 'Neovim',
  file: FILE,
  before: BEFORE,
  after: AFTER,
  async start(sandbox) {
    const screen = await ScreenNeovim.start(
      sandbox,
      themedTerminal(sandbox, PICTURE_THEME, path.join(sandbox.workspace, FILE)),
    );
    return {
      async waitForDiff() {
        await screen.waitForText('accept: :w');
      },
      screenshot: (out) => tmuxScreenshot(screen.tmuxSocket, EDITOR_PICTURE_LOOK, out),
      close: () => screen.stop(),
    };
  },
};
