/**
 * The README's picture of a diff, taken the same way in every editor: the file as it was in the
 * workspace, the editor with Tandem, the real Gemini CLI client proposing an edit, the picture
 * once the diff is on the screen. Each editor's driver says only how to start it, when the diff
 * shows and how to take its picture. A test renders it into a temporary file
 * (`testDiffScreenshot`); `npm run screenshots` into docs/images (`writeDiffScreenshot`).
 */
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { chromiumMissing } from '../chromium.js';
import { pngSize } from '../png.js';
import { startRealClient } from '../real-clients/real-client.js';
import { Sandbox } from '../sandbox.js';

/** The file a picture shows, relative to the workspace: its text on disk and the edit proposed. */
export interface PictureEdit {
  file: string;
  before: string;
  after: string;
}

export interface DiffScreenshotDriver extends PictureEdit {
  /** The editor's name, for the test's name. */
  name: string;
  /** The editor in `sandbox.workspace` showing `file`, once its discovery files are written. */
  start(sandbox: Sandbox): Promise<ScreenshotSession>;
}

/** The editor started for a picture. */
export interface ScreenshotSession {
  /** Resolves once the proposed diff is on the screen, ready for the picture. */
  waitForDiff(): Promise<void>;
  /** The screen, into the PNG file `out`. */
  screenshot(out: string): Promise<void>;
  close(): Promise<void>;
}

/** Renders the driver's picture of a diff into the PNG file `out`. */
export async function renderDiffScreenshot(
  driver: DiffScreenshotDriver,
  out: string,
): Promise<void> {
  const sandbox = new Sandbox('tandem-screenshot-');
  try {
    const file = path.join(sandbox.workspace, driver.file);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, driver.before);
    const editor = await driver.start(sandbox);
    try {
      // After the editor: the client looks for discovery files once, when it starts.
      const { workspace: cwd, tmpDir, qwenHome, home } = sandbox;
      const gemini = await startRealClient({ kind: 'gemini', cwd, tmpDir, qwenHome, home });
      try {
        await gemini.connect();
        const diff = gemini.openDiff(file, driver.after);
        await diff.opened;
        await editor.waitForDiff();
        await editor.screenshot(out);
        await gemini.resolveDiffFromCli(file, 'rejected');
      } finally {
        await gemini.kill();
      }
    } finally {
      await editor.close();
    }
  } finally {
    sandbox.remove();
  }
}

/**
 * Registers the test that renders the picture into a temporary file: a PNG of a whole screen,
 * not of an empty page.
 */
export function testDiffScreenshot(
  driver: DiffScreenshotDriver,
  options: { skip: string | false; timeout?: number },
): void {
  const skip = options.skip || chromiumMissing() || false;
  const name = `the picture of a diff in ${driver.name} renders into a PNG file`;
  test(name, { skip, timeout: options.timeout }, async () => {
    const sandbox = new Sandbox('tandem-screenshot-file-');
    try {
      const out = path.join(sandbox.root, 'diff.png');
      await renderDiffScreenshot(driver, out);
      const { width } = pngSize(out);
      assert.ok(width > 1000, `width ${width}`);
    } finally {
      sandbox.remove();
    }
  });
}

/**
 * The command line of an editor's picture script, `node --import tsx SCRIPT OUT.png`: renders
 * the picture into OUT.png (`npm run screenshots` names a file in docs/images).
 */
export async function writeDiffScreenshot(driver: DiffScreenshotDriver): Promise<void> {
  const [script = '', out] = process.argv.slice(1);
  if (out === undefined) {
    console.error(`usage: node --import tsx ${path.relative(process.cwd(), script)} OUT.png`);
    process.exitCode = 2;
    return;
  }
  await renderDiffScreenshot(driver, path.resolve(out));
  console.log(`wrote ${path.relative(process.cwd(), path.resolve(out))}`);
}
