/**
 * Writes docs/images/vscode-diff.png (or the file given): a diff that the real Gemini CLI client
 * proposes, in VS Code's diff editor. Run on purpose (`npm run screenshots`), never by the tests:
 * `node --import tsx packages/vscode/scripts/screenshot.ts [out.png]`
 */
import { fileURLToPath } from 'node:url';
import { renderDiffScreenshot } from '../test/diff-screenshot.js';

const out =
  process.argv[2] ??
  fileURLToPath(new URL('../../../docs/images/vscode-diff.png', import.meta.url));
await renderDiffScreenshot(out);
console.log(`wrote ${out}`);
