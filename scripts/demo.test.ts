/**
 * `npm run demo` serves a fresh copy of the example: an edit accepted in the demo changes the
 * copy, never the repository.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import { childOutput, waitFor } from '@tandem/testkit';

const repository = fileURLToPath(new URL('..', import.meta.url));

test('the demo serves a fresh copy of examples/workspace, and SIGTERM ends it cleanly', async () => {
  const scratch = mkdtempSync(join(tmpdir(), 'tandem-demo-test-'));
  const env = { ...process.env, TMPDIR: scratch, QWEN_HOME: join(scratch, 'qwen') };
  const demo = spawn(process.execPath, [join(repository, 'scripts', 'demo.js')], { env });
  const { text: output, exited } = childOutput(demo);
  try {
    const copy = await waitFor(
      'the copy to be named',
      () => /A fresh copy of examples\/workspace: (\S+)/.exec(output())?.[1],
    );
    assert.ok(copy.startsWith(scratch), copy);
    assert.deepEqual(
      readdirSync(copy).sort(),
      readdirSync(join(repository, 'examples', 'workspace')).sort(),
    );
    await waitFor('the review page', () => /Review page: http/.test(output()) || undefined);
    // The discovery data names the copy: a CLI writes there, not into the repository.
    const [file] = readdirSync(join(scratch, 'gemini', 'ide'));
    const data = JSON.parse(readFileSync(join(scratch, 'gemini', 'ide', file!), 'utf8'));
    assert.equal(data.workspacePath, copy);
    demo.kill('SIGTERM');
    assert.equal(await exited, 0, output());
    assert.match(output(), /The demo's copy stays in/);
    assert.ok(existsSync(copy));
  } finally {
    demo.kill('SIGKILL');
    rmSync(scratch, { recursive: true, force: true });
  }
});

test('npm run demo builds what tandem serve runs (the review page and the command), nothing more', () => {
  const manifest = JSON.parse(readFileSync(join(repository, 'package.json'), 'utf8'));
  const demo: string = manifest.scripts.demo;
  const [build] = demo.split(' && ');
  const built = [...build!.matchAll(/--workspace (\S+)/g)].map((match) => match[1]);
  // `npm run build` alone would build every workspace: the VS Code extension's package too.
  assert.match(build!, /^npm run build --workspace /, demo);
  assert.deepEqual(built.sort(), ['@tandem/cli', '@tandem/web']);
});
