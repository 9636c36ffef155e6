/**
 * The README's picture of a diff in Vim (`@tandem/testkit`'s `DiffScreenshotDriver`): Vim in
 * tmux with a dark theme, its screen captured with its colours. Needs vim, tmux, Chromium and
 * the built sidecar. `render-screenshot.ts` (`npm run screenshots`) renders it into
 * docs/images.
 */
import path from 'node:path';
import {
  EDITOR_PICTURE_LOOK,
  PYTHON_TEMPERATURE_EDIT,
  themedTerminal,
  tmuxScreenshot,
  VimSession,
  waitFor,
  type DiffScreenshotDriver,
} from '@tandem/testkit';

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

const PICTURE_THEME = { name: 'theme.vim', text: THEME, load: 'source' };

/** Vim in tmux with the theme above, the file open: its screen is the picture. */
export const vimDiffScreenshot: DiffScreenshotDriver = {
  name: 'Vim',
  ...PYTHON_TEMPERATURE_EDIT,
  async start(sandbox) {
    const vim = await VimSession.start(
      sandbox,
      themedTerminal(sandbox, PICTURE_THEME, PYTHON_TEMPERATURE_EDIT.file),
    );
    try {
      await vim.waitForState('running');
    } catch (error) {
      await vim.close();
      throw error;
    }
    return {
      async waitForDiff() {
        await waitFor('the diff on the screen', async () =>
          (await vim.screen()).includes('accept: :w') ? true : undefined,
        );
      },
      screenshot: (out) =>
        tmuxScreenshot(path.join(sandbox.root, 'tmux-vim', 'tmux.sock'), EDITOR_PICTURE_LOOK, out),
      close: () => vim.close(),
    };
  },
};
