/**
 * Claude Code's context: the time from a selection change in the editor until `selection_changed`
 * with that selection has reached a WebSocket client made as Claude Code makes it (its upgrade,
 * its handshake; the testkit's `ClaudeWire`), which keeps it for its next model request. Two ways:
 * the engine in this process (the event, the engine's pacing, the binding, the WebSocket), and
 * through a real `tandem lsp` process (the request an LSP client sends with the selection — a
 * code action's range, as Helix sends it — then the same hops). Claude Code's own hop, from its
 * store into the next request, waits on the user's prompt and is not timed. Prints a Markdown
 * report. `node --import tsx bench/claude-context-latency.ts [rounds]`
 */
import { readdir, writeFile } from 'node:fs/promises';
import { cpus, loadavg, totalmem } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { ClaudeWire, LspEditor, readClaudeLock, Sandbox, uriOf } from '@tandem/testkit';
import { startBenchEngine } from './bench-engine.js';
import { row } from './report.js';

const ROUNDS = Number(process.argv[2] ?? 200);
const WARM_UP = 5;
/** A quiet moment longer than the engine's 50 ms window: each change is an isolated one. */
const QUIET_MS = 80;

interface SelectionChanged {
  filePath: string;
  selection: { start: { line: number } };
}

/** Resolves when `wire` receives the `selection_changed` of `filePath` starting at `line` (0-based). */
function selectionReaches(wire: ClaudeWire, filePath: string, line: number): Promise<void> {
  return new Promise((resolve) => {
    const listener = (data: unknown) => {
      const message = JSON.parse(String(data)) as { method?: string; params?: SelectionChanged };
      if (message.method !== 'selection_changed') return;
      if (message.params?.filePath !== filePath) return;
      if (message.params.selection.start.line !== line) return;
      wire.socket.off('message', listener);
      resolve();
    };
    wire.socket.on('message', listener);
  });
}

/** Times `change(line)` (a two-line selection from 1-based `line`) to the client, each round. */
async function measure(
  wire: ClaudeWire,
  file: string,
  change: (line: number) => Promise<unknown> | void,
): Promise<number[]> {
  const samples: number[] = [];
  for (let line = 1; line <= WARM_UP + ROUNDS; line++) {
    const reached = selectionReaches(wire, file, line - 1);
    const started = performance.now();
    await change(line);
    await reached;
    if (line > WARM_UP) samples.push(performance.now() - started);
    await new Promise((resolve) => setTimeout(resolve, QUIET_MS));
  }
  return samples;
}

/** A file of `x` lines, long enough for every round's selection. */
async function linesFile(sandbox: Sandbox): Promise<string> {
  const file = path.join(sandbox.workspace, 'a.txt');
  await writeFile(file, 'x\n'.repeat(WARM_UP + ROUNDS + 2));
  return file;
}

/** The engine in this process, as an in-process frontend hosts it. */
async function inProcess(): Promise<number[]> {
  const sandbox = new Sandbox();
  const engine = await startBenchEngine(sandbox, {
    showDiff: async () => undefined,
    closeDiff: async () => '',
  });
  const lock = await readClaudeLock(sandbox.claudeConfigDir, engine.claudePort);
  const { wire } = await ClaudeWire.connect(lock.port, lock.authToken);
  try {
    const file = await linesFile(sandbox);
    engine.fileFocused(file);
    return await measure(wire, file, (line) => engine.cursorChanged(file, line + 1, 2, 'x\nx'));
  } finally {
    await wire.close();
    await engine.stop();
    sandbox.remove();
  }
}

/** A real `tandem lsp` process, the selection sent as Helix sends it (a code action's range). */
async function throughLsp(): Promise<number[]> {
  const sandbox = new Sandbox();
  const editor = new LspEditor({ env: sandbox.env(), cwd: sandbox.workspace });
  let wire: ClaudeWire | undefined;
  try {
    await editor.initialize({
      clientInfo: { name: 'bench' },
      workspaceFolders: [{ uri: uriOf(sandbox.workspace), name: 'workspace' }],
      capabilities: { general: { positionEncodings: ['utf-16'] } },
    });
    const [name] = await readdir(path.join(sandbox.claudeConfigDir, 'ide'));
    const lock = await readClaudeLock(sandbox.claudeConfigDir, Number.parseInt(name!, 10));
    wire = (await ClaudeWire.connect(lock.port, lock.authToken)).wire;
    const file = await linesFile(sandbox);
    const uri = await editor.open(file);
    return await measure(wire, file, (line) =>
      editor.request('textDocument/codeAction', {
        textDocument: { uri },
        range: { start: { line: line - 1, character: 0 }, end: { line, character: 1 } },
        context: { diagnostics: [] },
      }),
    );
  } finally {
    await wire?.close();
    await editor.quit().catch(() => editor.kill());
    sandbox.remove();
  }
}

const engineSamples = await inProcess();
const lspSamples = await throughLsp();
console.log(`${cpus().length} × ${cpus()[0]?.model ?? 'CPU'}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, load ${loadavg()[0]!.toFixed(2)}, Node ${process.version}, ${new Date().toISOString().slice(0, 10)}

| measure (ms) | p50 | p95 | max | runs |
|---|---|---|---|---|
${row("an isolated selection change → Claude Code's selection_changed, engine in process", engineSamples)}
${row("a selection (a code action's range) → Claude Code's selection_changed, through tandem lsp", lspSamples)}

Budget: p95 ≤ 15 ms through every hop, as for the other CLIs' context.`);
