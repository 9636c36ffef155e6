/**
 * The README's picture of a diff in Emacs renders (into a temporary file here;
 * `render-screenshot.ts` writes docs/images/emacs-diff.png).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { chromiumMissing } from '@tandem/testkit';
import { renderDiffScreenshot } from './diff-screenshot.js';
import { Sandbox, skipReason } from './emacs-session.js';

const skip = skipReason({ sidecar: true, tmux: true }) || chromiumMissing() || false;

test('the picture of a diff in Emacs renders into a PNG file', { skip }, async () => {
  const sandbox = new Sandbox();
  try {
    const out = path.join(sandbox.root, 'emacs-diff.png');
    await renderDiffScreenshot(out);
    const png = readFileSync(out);
    assert.equal(png.subarray(1, 4).toString('latin1'), 'PNG');
    // The width in the PNG header: a whole screen, not an empty page.
    assert.ok(png.readUInt32BE(16) > 1000, `width ${png.readUInt32BE(16)}`);
  } finally {
    sandbox.remove();
  }
});
