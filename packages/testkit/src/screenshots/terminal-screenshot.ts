/**
 * A terminal editor's screen as a picture: tmux's capture with its colours, turned into HTML
 * (one line a row) that Chromium turns into a PNG.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { launchChromium } from '../chromium.js';
import type { Sandbox } from '../sandbox.js';
import { ansiToHtml, type TerminalColors } from './ansi-to-html.js';

const run = promisify(execFile);

/** How the terminal looks: its size in columns and rows, its default colours. */
export interface TerminalLook {
  width: number;
  height: number;
  colors: TerminalColors;
}

/** The README's pictures of Vim and Neovim: 140 columns by 30 rows, their themes' colours. */
export const EDITOR_PICTURE_LOOK: TerminalLook = {
  width: 140,
  height: 30,
  colors: { fg: '#cdd6f4', bg: '#1e1e2e' },
};

/** A colour scheme for a picture: its file's name, its text, the command that loads it. */
export interface PictureTheme {
  name: string;
  text: string;
  load: string;
}

/**
 * How Vim or Neovim starts for its picture: `EDITOR_PICTURE_LOOK`'s size, and arguments that
 * load `theme` (written into the sandbox's root) and open `file`.
 */
export function themedTerminal(
  sandbox: Sandbox,
  theme: PictureTheme,
  file: string,
): { width: number; height: number; args: string[] } {
  const themeFile = path.join(sandbox.root, theme.name);
  writeFileSync(themeFile, theme.text);
  const { width, height } = EDITOR_PICTURE_LOOK;
  return { width, height, args: ['-c', `${theme.load} ${themeFile}`, file] };
}

/**
 * The screen of the one pane of the tmux server at `socket`, in the PNG file `out`: its colours
 * and attributes as tmux shows them, trailing spaces kept (they may have a background).
 */
export async function tmuxScreenshot(
  socket: string,
  look: TerminalLook,
  out: string,
): Promise<void> {
  const capture = ['-S', socket, 'capture-pane', '-p', '-e', '-N', '-t', 'main'];
  const { stdout: screen } = await run('tmux', capture);
  const { bg } = look.colors;
  const page = `<!doctype html><meta charset="utf-8">
<style>
  body { margin: 0; background: ${bg}; }
  #screen { display: inline-block; padding: 12px 14px; background: ${bg};
    font: 15px/1.3 'DejaVu Sans Mono', monospace; white-space: pre; }
  #screen div { height: 1.3em; }
</style>
<div id="screen">${ansiToHtml(screen, look.width, look.colors)}</div>`;
  const profile = mkdtempSync(path.join(os.tmpdir(), 'tandem-screenshot-'));
  const browser = await launchChromium(profile, { deviceScaleFactor: 2 });
  try {
    const tab = await browser.newPage();
    await tab.setContent(page);
    mkdirSync(path.dirname(out), { recursive: true });
    await tab.locator('#screen').screenshot({ path: out });
  } finally {
    await browser.close();
    rmSync(profile, { recursive: true, force: true });
  }
}
