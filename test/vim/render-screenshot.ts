/**
 * Renders the picture of a diff in Vim into the PNG file it is given; `npm run screenshots`
 * runs it for docs/images/vim-diff.png.
 *
 *   node --import tsx test/vim/render-screenshot.ts OUT.png
 */
import { writeDiffScreenshot } from '@tandem/testkit';
import { vimDiffScreenshot } from './diff-screenshot.js';

await writeDiffScreenshot(vimDiffScreenshot);
