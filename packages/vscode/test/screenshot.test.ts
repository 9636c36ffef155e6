/**
 * The README's picture of a diff in VS Code renders (into a temporary file here;
 * `scripts/screenshot.ts` writes docs/images/vscode-diff.png).
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { codeServerSkipReason as skipReason, pngSize, Sandbox } from '@tandem/testkit';
import { renderDiffScreenshot } from './diff-screenshot.js';

test(
  'the picture of a diff in VS Code renders into a PNG file',
  { skip: skipReason(), timeout: 300_000 },
  async () => {
    const sandbox = new Sandbox('tandem-vscode-picture-');
    try {
      const out = path.join(sandbox.root, 'vscode-diff.png');
      await renderDiffScreenshot(out);
      // The whole window, not an empty page.
      const { width } = pngSize(out);
      assert.ok(width > 1000, `width ${width}`);
    } finally {
      sandbox.remove();
    }
  },
);
