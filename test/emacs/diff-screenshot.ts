/**
 * The README's picture of a diff in Emacs (`@tandem/testkit`'s `DiffScreenshotDriver`):
 * `emacs -nw` in tmux with the modus-vivendi theme, its screen captured with its colours. Needs
 * Emacs, tmux, Chromium and the built sidecar. `screenshot.test.ts` renders it into a temporary
 * file; `render-screenshot.ts` (`npm run screenshots`) into docs/images.
 */
import path from 'node:path';
import {
  EmacsSession,
  prepareEmacs,
  PYTHON_TEMPERATURE_EDIT,
  tmuxScreenshot,
  type DiffScreenshotDriver,
} from '@tandem/testkit';

/** The default colours of the theme (modus-vivendi, part of Emacs since 28). */
const LOOK = { width: 150, height: 24, colors: { fg: '#ffffff', bg: '#000000' } };
const THEME = "(progn (menu-bar-mode -1) (load-theme 'modus-vivendi t))";

/** Emacs in tmux with the theme, the file visited: its screen is the picture. */
export const emacsDiffScreenshot: DiffScreenshotDriver = {
  name: 'Emacs',
  ...PYTHON_TEMPERATURE_EDIT,
  async start(sandbox) {
    const emacs = await EmacsSession.start(sandbox, {
      tandem: true,
      args: ['--eval', THEME, PYTHON_TEMPERATURE_EDIT.file],
      width: LOOK.width,
      height: LOOK.height,
    });
    return {
      async waitForDiff() {
        await emacs.waitForScreen(/C-c C-c accept/);
      },
      screenshot: (out) =>
        tmuxScreenshot(path.join(prepareEmacs(sandbox).dir, 'tmux.sock'), LOOK, out),
      close: () => emacs.close(),
    };
  },
};
