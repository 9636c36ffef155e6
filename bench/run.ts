/**
 * Tandem's benchmarks, against the real Gemini CLI client. Prints a Markdown report;
 * docs/benchmarks.md keeps the numbers with the machine and the date. `npm run bench`.
 */
import { spawn } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Engine } from '@tandem/core';
import { realClientIn, Sandbox, type RealClient } from '@tandem/testkit';
import { startBenchEngine } from './bench-engine.js';
import { row } from './report.js';
import { rssMb, startSidecar } from './sidecar-process.js';

const TSX = import.meta.resolve('tsx');

/** Runs a bench worker beside the real client and returns what it wrote. */
async function worker<T>(script: string, sandbox: Sandbox): Promise<T> {
  const out = join(sandbox.root, `${script}.json`);
  const child = spawn(
    process.execPath,
    ['--import', TSX, fileURLToPath(new URL(script, import.meta.url)), out],
    {
      cwd: sandbox.workspace,
      env: {
        ...process.env,
        TMPDIR: sandbox.tmpDir,
        HOME: sandbox.home,
        REMOTE_CONTAINERS: 'true',
        TERM_PROGRAM: '',
      },
      stdio: ['ignore', 'ignore', 'inherit'],
    },
  );
  const code = await new Promise((resolve) => child.once('exit', resolve));
  if (code !== 0) throw new Error(`${script} exited with ${String(code)}`);
  return JSON.parse(await readFile(out, 'utf8')) as T;
}

/** The engine in this process, as an in-process frontend hosts it; the client in its own. */
async function openDiffRoundTrips(): Promise<Record<string, number[]>> {
  const sandbox = new Sandbox();
  const engine: Engine = await startBenchEngine(sandbox, {
    showDiff: async (diff) =>
      void setImmediate(() => engine.diffAccepted(diff.id, diff.newContent)),
    closeDiff: async () => '',
  });
  try {
    return await worker('gemini-open-diff.ts', sandbox);
  } finally {
    await engine.stop();
    await sandbox.remove();
  }
}

/** The sidecar's memory with ten CLIs connected (bench/sidecar.ts measures the rest of it). */
async function memory(): Promise<number> {
  const sandbox = new Sandbox();
  const { editor } = await startSidecar(sandbox);
  const clients: RealClient[] = [];
  try {
    await writeFile(join(sandbox.workspace, 'a.txt'), 'a\n');
    for (let i = 0; i < 10; i++) {
      const client = await realClientIn(sandbox, 'gemini');
      clients.push(client);
      if ((await client.connect()).status !== 'connected')
        throw new Error('a client did not connect');
    }
    editor.notify('file/focused', { path: join(sandbox.workspace, 'a.txt') });
    await Promise.all(
      clients.map((c) => c.waitForContext((ctx) => !!ctx?.workspaceState?.openFiles?.length)),
    );
    await new Promise((resolve) => setTimeout(resolve, 1000));
    return await rssMb(editor.process.pid!);
  } finally {
    await Promise.all(clients.map((c) => c.kill()));
    await editor.kill();
    await sandbox.remove();
  }
}

const contextSandbox = new Sandbox();
const context = await worker<{ isolated: number[]; burst: { updates: number; exact: boolean } }>(
  'gemini-context-latency.ts',
  contextSandbox,
);
await contextSandbox.remove();
const diffs = await openDiffRoundTrips();
const rss = await memory();

console.log(`${cpus().length} × ${cpus()[0]?.model ?? 'CPU'}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}, ${new Date().toISOString().slice(0, 10)}

| measure (ms) | p50 | p95 | max | runs |
|---|---|---|---|---|
${row("an isolated editor event → Gemini's context store", context.isolated)}
${Object.entries(diffs)
  .map(([size, samples]) => row(`openDiff → accepted, ${size} of source`, samples))
  .join('\n')}

| resident memory of \`tandem bridge\` (\`bench/sidecar.ts\`: idle, start-up, leaks) | MB |
|---|---|
| 10 Gemini sessions connected | ${rss.toFixed(1)} |

A burst of 100 cursor moves in 100 ms reached Gemini's context store as ${context.burst.updates} updates; the last one ${context.burst.exact ? 'exact' : '**not** the last move'}.`);
