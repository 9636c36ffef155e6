/**
 * One process holding an engine and the real Gemini CLI client: the time from an isolated editor
 * event to the client's context store, with nothing but the engine, HTTP and MCP in between; and
 * how many updates a burst of events becomes. Run by run.ts with TMPDIR and HOME set and the
 * workspace as cwd; writes its results as JSON to the file named by argv[2] (the client logs on
 * stdout).
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Engine } from '@tandem/core';
import { importClientModule } from '@tandem/testkit';

interface Context {
  workspaceState?: { openFiles?: { cursor?: { line: number } }[] };
}

const workspace = process.cwd();
const engine = await Engine.start({
  editor: { name: 'bench', displayName: 'Bench', pid: process.pid },
  workspaceFolders: [workspace],
  frontend: { showDiff: async () => undefined, closeDiff: async () => '' },
});

const core = '@google/gemini-cli-core/dist/src/ide';
const { IdeClient } = await importClientModule<
  typeof import('@google/gemini-cli-core/dist/src/ide/ide-client.js')
>(`${core}/ide-client.js`);
const { ideContextStore } = await importClientModule<
  typeof import('@google/gemini-cli-core/dist/src/ide/ideContext.js')
>(`${core}/ideContext.js`);
const client = await IdeClient.getInstance();
await client.connect();

const path = join(workspace, 'a.txt');
await writeFile(path, 'x\n');
const samples: number[] = [];
for (let line = 1; line <= 200; line++) {
  const reached = new Promise<void>((resolve) => {
    const unsubscribe = ideContextStore.subscribe((context: Context | undefined) => {
      if (context?.workspaceState?.openFiles?.[0]?.cursor?.line !== line) return;
      unsubscribe();
      resolve();
    });
  });
  const started = performance.now();
  engine.cursorChanged(path, line, 1);
  await reached;
  samples.push(performance.now() - started);
  // A quiet moment longer than the engine's window: each event is an isolated one.
  await new Promise((resolve) => setTimeout(resolve, 80));
}

// A burst: 100 cursor moves, one a millisecond.
const linesSeen: number[] = [];
const unsubscribe = ideContextStore.subscribe((context: Context | undefined) => {
  const line = context?.workspaceState?.openFiles?.[0]?.cursor?.line;
  if (line !== undefined) linesSeen.push(line);
});
for (let line = 1001; line <= 1100; line++) {
  engine.cursorChanged(path, line, 1);
  await new Promise((resolve) => setTimeout(resolve, 1));
}
await new Promise((resolve) => setTimeout(resolve, 500));
unsubscribe();
const burst = linesSeen.filter((line) => line > 1000);
const result = {
  isolated: samples,
  burst: { updates: burst.length, exact: burst.at(-1) === 1100 },
};
await writeFile(process.argv[2]!, JSON.stringify(result));
await engine.stop();
process.exit(0);
