/**
 * Renders the picture of a diff in Emacs into the PNG file it is given; `npm run screenshots`
 * runs it for docs/images/emacs-diff.png.
 *
 *   node --import tsx test/emacs/render-screenshot.ts OUT.png
 */
import { writeDiffScreenshot } from '@tandem/testkit';
import { emacsDiffScreenshot } from './diff-screenshot.js';

await writeDiffScreenshot(emacsDiffScreenshot);
