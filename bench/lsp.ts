/**
 * `tandem lsp`: the time from a cursor move in the editor — the request its LSP client sends by
 * itself (`textDocument/documentHighlight`, as Sublime Text, Zed and LSP4IJ do) — to the real
 * Gemini CLI client's context store, through a real `tandem lsp` process, HTTP and MCP. Prints
 * a Markdown report. `node --import tsx bench/lsp.ts [rounds]`
 */
import { writeFile } from 'node:fs/promises';
import { cpus, loadavg, totalmem } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { LspEditor, realClientIn, Sandbox, uriOf } from '@tandem/testkit';
import { row } from './report.js';

const ROUNDS = Number(process.argv[2] ?? 200);
const WARM_UP = 5;
/** A quiet moment longer than the engine's 50 ms window: each move is an isolated one. */
const QUIET_MS = 80;

const sandbox = new Sandbox();
const editor = new LspEditor({ env: sandbox.env(), cwd: sandbox.workspace });
const gemini = await (async () => {
  await editor.initialize({
    clientInfo: { name: 'bench' },
    workspaceFolders: [{ uri: uriOf(sandbox.workspace), name: 'workspace' }],
    capabilities: { general: { positionEncodings: ['utf-16'] } },
  });
  const client = await realClientIn(sandbox, 'gemini');
  if ((await client.connect()).status !== 'connected') throw new Error('Gemini did not connect');
  return client;
})();

try {
  const file = path.join(sandbox.workspace, 'a.txt');
  const lines = WARM_UP + ROUNDS + 1;
  await writeFile(file, 'x\n'.repeat(lines));
  const uri = await editor.open(file);
  const samples: number[] = [];
  for (let line = 1; line <= WARM_UP + ROUNDS; line++) {
    const started = performance.now();
    await editor.request('textDocument/documentHighlight', {
      textDocument: { uri },
      position: { line: line - 1, character: 0 },
    });
    await gemini.waitForContext(
      (context) =>
        context?.workspaceState?.openFiles?.find((f) => f.isActive)?.cursor?.line === line,
    );
    if (line > WARM_UP) samples.push(performance.now() - started);
    await new Promise((resolve) => setTimeout(resolve, QUIET_MS));
  }
  console.log(`${cpus().length} × ${cpus()[0]?.model ?? 'CPU'}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, load ${loadavg()[0]!.toFixed(2)}, Node ${process.version}, ${new Date().toISOString().slice(0, 10)}

| measure (ms) | p50 | p95 | max | runs |
|---|---|---|---|---|
${row("a cursor move (documentHighlight) → Gemini's context store, through tandem lsp", samples)}`);
} finally {
  await gemini.kill();
  await editor.quit().catch(() => editor.kill());
  sandbox.remove();
}
