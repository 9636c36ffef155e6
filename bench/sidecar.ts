/**
 * What every editor window pays for its sidecar: `tandem bridge`'s start-up and resident memory,
 * against the real Gemini CLI client. Prints a Markdown report; docs/benchmarks.md keeps the
 * numbers with the machine and the date. Run it alone on a quiet machine.
 *
 *   node --import tsx bench/sidecar.ts [--runs N] [--baseline OTHER/dist/tandem.js] [--node PATH]
 *
 * --baseline: another build of the `tandem` command, started alternately with this one in the
 * same run, so that both see the same machine. --node: this build run by another `node` too
 * (e.g. .cache/node-24/bin/node, which `npm run setup:clients` installs), in turns with this
 * process's: the start, the idle memory and the memory after large diffs of each, side by side.
 *
 * Each build's sidecars share a compile cache, warmed by a start that is not counted, as on a
 * user's machine; the first start of all, with the cache empty, is timed on its own.
 */
import { execFileSync, spawn } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { cpus, loadavg, totalmem } from 'node:os';
import { performance } from 'node:perf_hooks';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { BridgeEditor, realClientIn, Sandbox, TANDEM, type RealClient } from '@tandem/testkit';
import { percentile, row } from './report.js';
import {
  asAdaptersStartIt,
  residentSplitMb,
  rssMb,
  startSidecar,
  stopSidecar,
  warmCompileCache,
} from './sidecar-process.js';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '30' },
    baseline: { type: 'string' },
    node: { type: 'string' },
  },
});
const runs = Number(values.runs);
/** A build of the `tandem` command and the `node` that runs it. */
interface Build {
  tandem: string;
  node: string;
}
const nodeVersion = (node: string) =>
  execFileSync(node, ['--version'], { encoding: 'utf8' }).trim();
const onNode = values.node ? ` on Node ${process.version}` : '';
const builds: Record<string, Build> = {
  [`current${onNode}`]: { tandem: TANDEM, node: process.execPath },
};
if (values.baseline) builds.baseline = { tandem: values.baseline, node: process.execPath };
if (values.node) {
  const version = nodeVersion(values.node);
  // The same version started another way (a wrapper with other flags) is named by its path.
  const name = `current on Node ${version}${version === process.version ? ` (${values.node})` : ''}`;
  builds[name] = { tandem: TANDEM, node: values.node };
}
/** Each build's compile cache, warmed by a start not counted: the starts a user usually sees. */
const caches = Object.fromEntries(
  await Promise.all(
    Object.entries(builds).map(
      async ([name, { tandem, node }]) => [name, await warmCompileCache(tandem, node)] as const,
    ),
  ),
);
const [current] = Object.keys(builds) as [string];

const MiB = 2 ** 20;
/** How long a process sits idle before its memory is read. */
const SETTLE_MS = 1500;
/** How long an idle sidecar takes to give back the memory its start-up used, and a margin. */
const SETTLED_MS = 15_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const median = (samples: number[]) => percentile(samples, 50);

/** A bare `node` sitting idle, started as the adapters start a sidecar: the floor under one. */
async function bareNode(): Promise<number> {
  const samples: number[] = [];
  for (let i = 0; i < 5; i++) {
    const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1 << 30)'], {
      env: asAdaptersStartIt(process.env),
    });
    await sleep(SETTLE_MS);
    samples.push(await rssMb(child.pid!));
    child.kill();
  }
  return median(samples);
}

/**
 * A bare `node -e 0`, spawn → exit: in this process's environment, and in it as the adapters
 * change it for a sidecar (without the extra CA certificates that Node parses as it starts).
 */
async function bareStarts(): Promise<{ inherited: number[]; adapters: number[] }> {
  const exit = (env: NodeJS.ProcessEnv) =>
    new Promise<number>((resolve, reject) => {
      const started = performance.now();
      spawn(process.execPath, ['-e', '0'], { env })
        .on('error', reject)
        .on('exit', () => resolve(performance.now() - started));
    });
  const samples = { inherited: [] as number[], adapters: [] as number[] };
  for (let i = 0; i < runs; i++) {
    samples.inherited.push(await exit(process.env));
    samples.adapters.push(await exit(asAdaptersStartIt(process.env)));
  }
  return samples;
}

/**
 * Spawn → `initialize` reply, then the memory idle after it; and the first start, with an empty
 * compile cache; the builds take turns.
 */
async function startAndIdle(): Promise<
  Record<string, { start: number[]; idle: number[]; first: number[] }>
> {
  const results = Object.fromEntries(
    Object.keys(builds).map((name) => [
      name,
      { start: [] as number[], idle: [] as number[], first: [] as number[] },
    ]),
  );
  for (let i = 0; i < runs; i++) {
    for (const [name, { tandem, node }] of Object.entries(builds)) {
      const empty = new Sandbox();
      const first = await startSidecar(empty, tandem, {}, node);
      results[name]!.first.push(first.ms);
      await stopSidecar(first.editor);
      empty.remove();

      const sandbox = new Sandbox();
      const { editor, ms } = await startSidecar(sandbox, tandem, caches[name]!.env, node);
      await sleep(SETTLE_MS);
      results[name]!.start.push(ms);
      results[name]!.idle.push(await rssMb(editor.process.pid!));
      await stopSidecar(editor);
      await sandbox.remove();
    }
  }
  return results;
}

/**
 * The memory of sidecars left idle long enough for V8 to give back what start-up used (it
 * shrinks its heap about 8–10 s after the last activity): five of each build side by side.
 */
async function settledIdle(): Promise<Record<string, number>> {
  const started = await Promise.all(
    Object.entries(builds).flatMap(([name, { tandem, node }]) =>
      Array.from({ length: 5 }, async () => {
        const sandbox = new Sandbox();
        const sidecar = await startSidecar(sandbox, tandem, caches[name]!.env, node);
        return { name, sandbox, ...sidecar };
      }),
    ),
  );
  await sleep(SETTLED_MS);
  const samples: Record<string, number[]> = {};
  for (const { name, editor } of started) {
    (samples[name] ??= []).push(await rssMb(editor.process.pid!));
  }
  for (const { editor, sandbox } of started) {
    await stopSidecar(editor);
    await sandbox.remove();
  }
  return Object.fromEntries(Object.entries(samples).map(([name, rss]) => [name, median(rss)]));
}

/**
 * Ten editor windows, each with its sidecar: their resident memory added up, and what they hold
 * together, the pages they share counted once.
 */
async function tenWindows(): Promise<{ rss: number; together: number }> {
  const windows = await Promise.all(
    Array.from({ length: 10 }, async () => {
      const sandbox = new Sandbox();
      return { sandbox, ...(await startSidecar(sandbox, TANDEM, caches[current]!.env)) };
    }),
  );
  await sleep(SETTLE_MS);
  let rss = 0;
  let own = 0;
  let shared = 0;
  for (const { editor } of windows) {
    rss += await rssMb(editor.process.pid!);
    const split = await residentSplitMb(editor.process.pid!);
    own += split.private;
    shared = Math.max(shared, split.shared);
  }
  for (const { editor, sandbox } of windows) {
    await stopSidecar(editor);
    await sandbox.remove();
  }
  return { rss, together: own + shared };
}

/** The heap a sidecar started with the heap probe still uses once its garbage is collected. */
async function heapInUseMb(editor: BridgeEditor): Promise<number> {
  const seen = editor.stderr.length;
  editor.process.kill('SIGUSR2');
  for (;;) {
    const line = editor.stderr.slice(seen).find((text) => text.startsWith('heap-probe: '));
    if (line) return Number(line.slice('heap-probe: '.length)) / MiB;
    await sleep(20);
  }
}

/**
 * A sidecar of build `name` (default: the current one) whose editor accepts every diff as
 * proposed, with a real Gemini client connected.
 */
async function withAcceptingEditor<T>(
  work: (editor: BridgeEditor, client: RealClient, sandbox: Sandbox) => Promise<T>,
  env: NodeJS.ProcessEnv = {},
  name = current,
): Promise<T> {
  const sandbox = new Sandbox();
  const { tandem, node } = builds[name]!;
  const { editor } = await startSidecar(sandbox, tandem, { ...caches[name]!.env, ...env }, node);
  editor.handle('diff/open', (params) => {
    const { id, newContent } = params as { id: string; newContent: string };
    setImmediate(() => void editor.request('diff/accepted', { id, content: newContent }));
    return {};
  });
  const client = await realClientIn(sandbox, 'gemini');
  try {
    if ((await client.connect()).status !== 'connected') throw new Error('Gemini did not connect');
    return await work(editor, client, sandbox);
  } finally {
    await client.kill();
    await stopSidecar(editor);
    await sandbox.remove();
  }
}

/** Diffs one after the other, each accepted; the editor's copy of the messages is dropped. */
async function diffs(
  editor: BridgeEditor,
  client: RealClient,
  sandbox: Sandbox,
  count: number,
  size: number,
) {
  const file = join(sandbox.workspace, 'proposal.txt');
  await writeFile(file, 'before\n');
  for (let i = 0; i < count; i++) {
    const content = `${i}\n`.padEnd(size, 'x');
    const { result } = client.openDiff(file, content, 60_000);
    if ((await result).status !== 'accepted') throw new Error(`diff ${i} was not accepted`);
    editor.received.length = 0;
  }
}

/** After ten 1 MiB diffs to build `name`: the memory at once, and each second of ten idle ones. */
async function bigDiffs(name: string): Promise<{ before: number; after: number[] }> {
  return withAcceptingEditor(
    async (editor, client, sandbox) => {
      const pid = editor.process.pid!;
      await sleep(SETTLE_MS);
      const before = await rssMb(pid);
      await diffs(editor, client, sandbox, 10, MiB);
      const after = [await rssMb(pid)];
      for (let second = 1; second <= 10; second++) {
        await sleep(1000);
        after.push(await rssMb(pid));
      }
      return { before, after };
    },
    {},
    name,
  );
}

/**
 * The heap in use after a warm-up, after 1,000 more diffs, after 1,000 connect/disconnect cycles
 * of the real client and after 1,000 more, each read once the sessions that left are ended (5 s)
 * and the garbage is collected: growth here is memory kept, not garbage not yet collected. The
 * first cycles also compile the code that connects and disconnects; the second 1,000 do not.
 */
async function leaks(): Promise<{ warm: number; diffs: number; cycles: number[] }> {
  const probe = fileURLToPath(new URL('heap-probe.mjs', import.meta.url));
  const env = { NODE_OPTIONS: `--expose-gc --import ${probe}` };
  return withAcceptingEditor(async (editor, client, sandbox) => {
    const settled = async () => (await sleep(7000), heapInUseMb(editor));
    await diffs(editor, client, sandbox, 100, 10 * 1024);
    const warm = await settled();
    await diffs(editor, client, sandbox, 1000, 10 * 1024);
    const afterDiffs = await settled();
    const cycles: number[] = [];
    for (let i = 0; i < 2000; i++) {
      await client.disconnect();
      if ((await client.connect()).status !== 'connected') throw new Error(`cycle ${i} failed`);
      editor.received.length = 0;
      if (i % 1000 === 999) cycles.push(await settled());
    }
    return { warm, diffs: afterDiffs, cycles };
  }, env);
}

const load = loadavg()[0]!;
const bare = await bareNode();
const bareStart = await bareStarts();
const turns = await startAndIdle();
const settled = await settledIdle();
const ten = await tenWindows();
const big: Record<string, { before: number; after: number[] }> = {};
for (const name of Object.keys(builds)) big[name] = await bigDiffs(name);
const leak = await leaks();
for (const cache of Object.values(caches)) cache.remove();

const mb = (value: number) => value.toFixed(1);
console.log(`${cpus().length} × ${cpus()[0]?.model ?? 'CPU'}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}, ${new Date().toISOString().slice(0, 16)}, load average ${load.toFixed(2)} at the start

| measure (ms) | p50 | p95 | max | runs |
|---|---|---|---|---|
${row('bare `node -e 0`, spawn → exit, in this environment', bareStart.inherited)}
${row('bare `node -e 0`, spawn → exit, as the adapters start a sidecar', bareStart.adapters)}
${Object.entries(turns)
  .map(([name, { start, first }]) =>
    [
      row(`spawn → \`initialize\` reply, ${name}`, start),
      row(`spawn → \`initialize\` reply, ${name}, first start (no compile cache)`, first),
    ].join('\n'),
  )
  .join('\n')}

| resident memory (MB) | |
|---|---|
| bare \`node\`, idle (median of 5) | ${mb(bare)} |
${Object.entries(turns)
  .map(
    ([name, { idle }]) =>
      `| \`tandem bridge\` idle after \`initialize\`, ${name} (median) | ${mb(median(idle))} |`,
  )
  .join('\n')}
${Object.entries(settled)
  .map(
    ([name, rss]) =>
      `| \`tandem bridge\` idle for ${SETTLED_MS / 1000} s, ${name} (median of 5) | ${mb(rss)} |`,
  )
  .join('\n')}
| ten sidecars, their resident memory added up | ${mb(ten.rss)} |
| ten sidecars, together (shared pages once) | ${mb(ten.together)} |
${Object.entries(big)
  .map(([name, { before, after }]) =>
    [
      `| before ten 1 MiB diffs, ${name} | ${mb(before)} |`,
      `| right after them, ${name} | ${mb(after[0]!)} |`,
      `| after 1 … 10 idle seconds, ${name} | ${after.slice(1).map(mb).join(', ')} |`,
    ].join('\n'),
  )
  .join('\n')}


| heap in use once garbage is collected (MB) | |
|---|---|
| after 100 diffs of 10 KiB (warm) | ${mb(leak.warm)} |
| after 1,000 more | ${mb(leak.diffs)} |
| after 1,000 connect/disconnect cycles of the real client, and after 1,000 more | ${leak.cycles.map(mb).join(', ')} |`);
