/**
 * Renders the picture of a diff in Emacs into the PNG file it is given:
 *
 *   node --import tsx test/emacs/render-screenshot.ts docs/images/emacs-diff.png
 */
import path from 'node:path';
import { renderDiffScreenshot } from './diff-screenshot.js';

const [out] = process.argv.slice(2);
if (out === undefined) {
  console.error('usage: node --import tsx test/emacs/render-screenshot.ts OUT.png');
  process.exit(2);
}
await renderDiffScreenshot(path.resolve(out));
console.log(`wrote ${path.relative(process.cwd(), path.resolve(out))}`);
