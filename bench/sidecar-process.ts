/** A `tandem bridge` as the benchmarks start it, and how much memory a process holds. */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { sidecarEnvironment } from '@tandem/command';
import { BridgeEditor, realClientIn, Sandbox, TANDEM, waitFor } from '@tandem/testkit';

/** The resident memory of process `pid`, in MB. */
export async function rssMb(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)![1]) / 1024;
}

/**
 * Process `pid`'s resident memory split in two, in MB: `private` is its own; `shared` it shares
 * with other processes (mostly the `node` binary's pages, which every Node process maps once).
 */
export async function residentSplitMb(pid: number): Promise<{ private: number; shared: number }> {
  const rollup = await readFile(`/proc/${pid}/smaps_rollup`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(rollup)![1]);
  return {
    private: (kb('Private_Clean') + kb('Private_Dirty')) / 1024,
    shared: (kb('Shared_Clean') + kb('Shared_Dirty')) / 1024,
  };
}

/** `env` as the editor adapters change it for a sidecar. */
export function asAdaptersStartIt(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return { ...env, ...sidecarEnvironment(env) };
}

/**
 * A sidecar started as an editor starts it (`tandem`: another build's bundle, `env`: added to
 * its environment), and its spawn → `initialize` reply time. It asks for bridge protocol 1.2,
 * which builds from before 1.3 speak too, so that any two builds can be compared. Its compile
 * cache is the sandbox's own, empty (a first start), unless `env` names one (warmCompileCache).
 * `node` runs it.
 */
export async function startSidecar(
  sandbox: Sandbox,
  tandem = TANDEM,
  env: NodeJS.ProcessEnv = {},
  node = process.execPath,
) {
  const started = performance.now();
  const editor = new BridgeEditor(
    asAdaptersStartIt({
      ...process.env,
      TMPDIR: sandbox.tmpDir,
      QWEN_HOME: sandbox.qwenHome,
      HOME: sandbox.home,
      XDG_CACHE_HOME: join(sandbox.root, 'cache'),
      ...env,
    }),
    tandem,
    node,
  );
  const reply = await editor.request('initialize', {
    protocol: { min: '1.2', max: '1.2' },
    editor: { name: 'bench', displayName: 'Bench', pid: process.pid },
    workspaceFolders: [sandbox.workspace],
  });
  if (reply.error) throw new Error(reply.error.message);
  return { editor, ms: performance.now() - started };
}

export async function stopSidecar(editor: BridgeEditor): Promise<void> {
  await editor.request('shutdown');
  await editor.exited;
}

/**
 * A compile cache as a user's holds it once a sidecar of build `tandem` has run and a CLI has
 * connected to it (its entries are written 2 s after each bundle ran): `env` points a sidecar at
 * it. A build without the compile cache leaves it empty. Node's own cache (Node 22.1 and newer)
 * keeps its entries in a folder of its version's: they are counted there.
 */
export async function warmCompileCache(
  tandem = TANDEM,
  node = process.execPath,
): Promise<{ env: NodeJS.ProcessEnv; remove(): void }> {
  const sandbox = new Sandbox();
  const env = { XDG_CACHE_HOME: join(sandbox.root, 'warm-cache') };
  const { editor } = await startSidecar(sandbox, tandem, env, node);
  const client = await realClientIn(sandbox, 'gemini');
  try {
    if ((await client.connect()).status !== 'connected') throw new Error('Gemini did not connect');
    const folder = join(env.XDG_CACHE_HOME, 'tandem', 'compile-cache');
    const entries = async () =>
      (await readdir(folder, { recursive: true, withFileTypes: true })).filter((entry) =>
        entry.isFile(),
      );
    const written = async () => ((await entries()).length >= 2 ? true : undefined);
    await waitFor('the bridge and MCP sessions entries', written, 10_000).catch(() => undefined);
  } finally {
    await client.kill();
    await stopSidecar(editor);
  }
  return { env, remove: () => sandbox.remove() };
}
