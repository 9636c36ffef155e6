/**
 * The README's picture of a diff in VS Code renders (into a temporary file here;
 * `scripts/screenshot.ts` writes docs/images/vscode-diff.png).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { Sandbox } from '@tandem/testkit';
import { skipReason } from './code-server.js';
import { renderDiffScreenshot } from './diff-screenshot.js';

test(
  'the picture of a diff in VS Code renders into a PNG file',
  { skip: skipReason(), timeout: 300_000 },
  async () => {
    const sandbox = new Sandbox('tandem-vscode-picture-');
    try {
      const out = path.join(sandbox.root, 'vscode-diff.png');
      await renderDiffScreenshot(out);
      const png = readFileSync(out);
      assert.equal(png.subarray(1, 4).toString('latin1'), 'PNG');
      // The width in the PNG header: the whole window, not an empty page.
      assert.ok(png.readUInt32BE(16) > 1000, `width ${png.readUInt32BE(16)}`);
    } finally {
      sandbox.remove();
    }
  },
);
