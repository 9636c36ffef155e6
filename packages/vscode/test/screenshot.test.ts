/**
 * The README's picture of a diff in VS Code renders (into a temporary file here;
 * `render-screenshot.ts` writes docs/images/vscode-diff.png).
 */
import { codeServerSkipReason, testDiffScreenshot } from '@tandem/testkit';
import { vscodeDiffScreenshot } from './diff-screenshot.js';

testDiffScreenshot(vscodeDiffScreenshot, { skip: codeServerSkipReason(), timeout: 300_000 });
