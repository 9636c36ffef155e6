/**
 * Renders the picture of a diff in VS Code into the PNG file it is given; `npm run screenshots`
 * runs it for docs/images/vscode-diff.png.
 *
 *   node --import tsx packages/vscode/test/render-screenshot.ts OUT.png
 */
import { writeDiffScreenshot } from '@tandem/testkit';
import { vscodeDiffScreenshot } from './diff-screenshot.js';

await writeDiffScreenshot(vscodeDiffScreenshot);
