/**
 * Renders the picture of a diff in Neovim into the PNG file it is given; `npm run screenshots`
 * runs it for docs/images/neovim-diff.png.
 *
 *   node --import tsx test/neovim/render-screenshot.ts OUT.png
 */
import { writeDiffScreenshot } from '@tandem/testkit';
import { neovimDiffScreenshot } from './diff-screenshot.js';

await writeDiffScreenshot(neovimDiffScreenshot);
