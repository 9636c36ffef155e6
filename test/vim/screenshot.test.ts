/**
 * The README's picture of a diff in Vim renders (into a temporary file here;
 * `render-screenshot.ts` writes docs/images/vim-diff.png).
 */
import { testDiffScreenshot, vimSkipReason } from '@tandem/testkit';
import { vimDiffScreenshot } from './diff-screenshot.js';

testDiffScreenshot(vimDiffScreenshot, { skip: vimSkipReason({ sidecar: true }) });
