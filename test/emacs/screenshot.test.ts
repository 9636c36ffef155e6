/**
 * The README's picture of a diff in Emacs renders (into a temporary file here;
 * `render-screenshot.ts` writes docs/images/emacs-diff.png).
 */
import { emacsSkipReason, testDiffScreenshot } from '@tandem/testkit';
import { emacsDiffScreenshot } from './diff-screenshot.js';

testDiffScreenshot(emacsDiffScreenshot, { skip: emacsSkipReason({ sidecar: true, tmux: true }) });
