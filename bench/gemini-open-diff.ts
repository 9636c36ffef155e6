/**
 * The real Gemini CLI client alone in its process, as in a terminal: it connects through
 * discovery and times its own `openDiff()` calls (the editor side accepts at once). Run by
 * run.ts with TMPDIR and HOME set and the workspace as cwd; writes its samples as JSON to the
 * file named by argv[2] (the client logs on stdout).
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { importClientModule } from '@tandem/testkit';

const core = '@google/gemini-cli-core/dist/src/ide';
const { IdeClient } = await importClientModule<
  typeof import('@google/gemini-cli-core/dist/src/ide/ide-client.js')
>(`${core}/ide-client.js`);
const client = await IdeClient.getInstance();
await client.connect();
if (!client.isDiffingEnabled()) throw new Error('the client did not connect with diffing');

/** Real source code (TypeScript's own compiler), cut to size. */
const source = await readFile(
  new URL('../node_modules/typescript/lib/typescript.js', import.meta.url),
  'utf8',
);

async function openDiff(bytes: number, runs: number): Promise<number[]> {
  const content = source.repeat(Math.ceil(bytes / source.length)).slice(0, bytes);
  const samples: number[] = [];
  for (let i = 0; i < runs + 3; i++) {
    const started = performance.now();
    const result = await client.openDiff(join(process.cwd(), `big-${i}.txt`), content);
    if (i >= 3) samples.push(performance.now() - started);
    if (result.content?.length !== content.length) throw new Error('the accepted content differs');
  }
  return samples;
}

const samples = {
  '1 KiB': await openDiff(1024, 100),
  '1 MiB': await openDiff(1024 * 1024, 100),
  '10 MiB': await openDiff(10 * 1024 * 1024, 20),
};
await writeFile(process.argv[2]!, JSON.stringify(samples));
process.exit(0);
