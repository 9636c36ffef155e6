/**
 * The README's picture of a real diff in Emacs: `emacs -nw` runs in tmux with Tandem, the real
 * Gemini CLI client proposes an edit, and the captured screen (with its colours) becomes HTML
 * that Chromium turns into a PNG. Needs Emacs, tmux, Chromium and the built sidecar.
 * `render-screenshot.ts` writes it to docs/images/emacs-diff.png.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { EmacsSession, launchChromium, realClientIn, Sandbox } from '@tandem/testkit';
import { ansiToHtml } from '../neovim/ansi-to-html.js';

const run = promisify(execFile);

const WIDTH = 150;
const HEIGHT = 24;
/** The default colours of the theme below (modus-vivendi, part of Emacs since 28). */
const COLORS = { fg: '#ffffff', bg: '#000000' };
const LOOK = "(progn (menu-bar-mode -1) (load-theme 'modus-vivendi t))";

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
    """Degrees Celsius in degrees Fahrenheit."""
    return celsius * 9 / 5 + 32


def describe(celsius: float) -> str:
    if celsius != celsius:
        raise ValueError("not a temperature")
    if celsius < 0:
        return "freezing"
    if celsius < 20:
        return "mild"
    if celsius < 30:
        return "warm"
    return "hot"
`;

/** Renders the picture into `out` (a PNG file). */
export async function renderDiffScreenshot(out: string): Promise<void> {
  const sandbox = new Sandbox();
  const file = path.join(sandbox.workspace, 'temperature.py');
  writeFileSync(file, BEFORE);
  const emacs = await EmacsSession.start(sandbox, {
    tandem: true,
    args: ['--eval', LOOK, file],
    width: WIDTH,
    height: HEIGHT,
  });
  const gemini = await realClientIn(sandbox, 'gemini');
  try {
    await gemini.connect();
    const diff = gemini.openDiff(file, AFTER);
    await diff.opened;
    await emacs.waitForScreen(/C-c C-c accept/);
    const socket = path.join(sandbox.root, 'emacs-session', 'tmux.sock');
    const { stdout } = await run('tmux', [
      '-S',
      socket,
      'capture-pane',
      '-p',
      '-e',
      '-N',
      '-t',
      'main',
    ]);
    await emacs.press('C-c', 'C-k');
    await diff.result;
    await screenshot(ansiToHtml(stdout, WIDTH, COLORS), out, sandbox);
  } finally {
    await gemini.kill();
    await emacs.close();
    sandbox.remove();
  }
}

async function screenshot(screenHtml: string, out: string, sandbox: Sandbox): Promise<void> {
  const page = `<!doctype html><meta charset="utf-8">
<style>
  body { margin: 0; background: ${COLORS.bg}; }
  #screen { display: inline-block; padding: 12px 14px; background: ${COLORS.bg};
    font: 15px/1.3 'DejaVu Sans Mono', monospace; white-space: pre; }
  #screen div { height: 1.3em; }
</style>
<div id="screen">${screenHtml}</div>`;
  const browser = await launchChromium(path.join(sandbox.root, 'chromium'));
  try {
    const tab = await browser.newPage();
    await tab.setContent(page);
    mkdirSync(path.dirname(out), { recursive: true });
    await tab.locator('#screen').screenshot({ path: out });
  } finally {
    await browser.close();
  }
}
