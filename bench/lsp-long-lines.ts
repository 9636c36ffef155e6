/**
 * `tandem lsp` on a minified file: what one keystroke costs on a line of 1 MB and of 5 MB, next
 * to a short line, in each position encoding (UTF-16; UTF-32 and UTF-8, which Neovim, Helix and
 * eglot choose). A key is what the editor sends for it: the character typed in the middle of the
 * line (`didChange`) and a request at the cursor after it (`documentHighlight`, which Tandem
 * turns into the cursor's place in the engine); the time runs from sending both to the answer,
 * through a real `tandem lsp` process. The cost per key must not grow with the line's length.
 * Prints a Markdown table. Run it alone on a quiet machine.
 *
 *   node --import tsx bench/lsp-long-lines.ts [keys]
 */
import { writeFile } from 'node:fs/promises';
import { cpus, loadavg, totalmem } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { LspEditor, Sandbox, unitLength, uriOf, type PositionEncoding } from '@tandem/testkit';
import { row } from './report.js';

const KEYS = Number(process.argv[2] ?? 200);
const WARM_UP = 10;
/** Minified code with a few characters of two, three and four UTF-8 bytes among the ASCII. */
const PATTERN = 'var a=b(c,"é"),d=e[f]||"文";g("😀");';
const SIZES: [label: string, bytes: number][] = [
  ['an 80-byte line', 80],
  ['a 1 MB line', 2 ** 20],
  ['a 5 MB line', 5 * 2 ** 20],
];
const ENCODINGS: PositionEncoding[] = ['utf-16', 'utf-32', 'utf-8'];

/** The cost of each of `KEYS` keys typed in the middle of one line of `bytes` bytes. */
async function keysOn(
  sandbox: Sandbox,
  encoding: PositionEncoding,
  bytes: number,
): Promise<number[]> {
  const editor = new LspEditor({ env: sandbox.env(), cwd: sandbox.workspace });
  try {
    await editor.initialize({
      clientInfo: { name: 'bench' },
      workspaceFolders: [{ uri: uriOf(sandbox.workspace), name: 'workspace' }],
      capabilities: { general: { positionEncodings: [encoding] } },
    });
    if (editor.encoding !== encoding) throw new Error(`the server chose ${editor.encoding}`);
    const repeats = Math.max(1, Math.round(bytes / Buffer.byteLength(PATTERN)));
    const file = path.join(sandbox.workspace, `minified-${bytes}.js`);
    const text = `${PATTERN.repeat(repeats)}\n`;
    await writeFile(file, text);
    const uri = await editor.open(file, text, 'javascript');
    let character = Math.floor(repeats / 2) * unitLength(PATTERN, encoding);
    const samples: number[] = [];
    for (let key = 0; key < WARM_UP + KEYS; key++) {
      const started = performance.now();
      const typed = { line: 0, character };
      void editor.connection.sendNotification('textDocument/didChange', {
        textDocument: { uri, version: key + 2 },
        contentChanges: [{ range: { start: typed, end: typed }, text: 'x' }],
      });
      character += 1;
      await editor.request('textDocument/documentHighlight', {
        textDocument: { uri },
        position: { line: 0, character },
      });
      if (key >= WARM_UP) samples.push(performance.now() - started);
    }
    return samples;
  } finally {
    await editor.quit().catch(() => editor.kill());
  }
}

const sandbox = new Sandbox();
try {
  const rows: string[] = [];
  for (const encoding of ENCODINGS)
    for (const [label, bytes] of SIZES)
      rows.push(row(`a key on ${label}, ${encoding}`, await keysOn(sandbox, encoding, bytes)));
  console.log(`${cpus().length} × ${cpus()[0]?.model ?? 'CPU'}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, load ${loadavg()[0]!.toFixed(2)}, Node ${process.version}, ${new Date().toISOString().slice(0, 10)}

| measure (ms) | p50 | p95 | max | runs |
|---|---|---|---|---|
${rows.join('\n')}`);
} finally {
  sandbox.remove();
}
