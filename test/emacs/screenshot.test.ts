/**
 * The README's picture of a diff in Emacs renders (into a temporary file here;
 * `render-screenshot.ts` writes docs/images/emacs-diff.png).
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { chromiumMissing, emacsSkipReason as skipReason, pngSize, Sandbox } from '@tandem/testkit';
import { renderDiffScreenshot } from './diff-screenshot.js';

const skip = skipReason({ sidecar: true, tmux: true }) || chromiumMissing() || false;

test('the picture of a diff in Emacs renders into a PNG file', { skip }, async () => {
  const sandbox = new Sandbox();
  try {
    const out = path.join(sandbox.root, 'emacs-diff.png');
    await renderDiffScreenshot(out);
    // A whole screen, not an empty page.
    const { width } = pngSize(out);
    assert.ok(width > 1000, `width ${width}`);
  } finally {
    sandbox.remove();
  }
});
