import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { after, test } from 'node:test';
import { importClientModule } from '@tandem/testkit';
import { ideProcessFromTree } from './ide-process.js';

const children: ChildProcess[] = [];

after(() => {
  for (const child of children) child.kill('SIGKILL');
});

test('the walk finds the IDE process Gemini CLI finds from the same process', async () => {
  const processUtils = '@google/gemini-cli-core/dist/src/ide/process-utils.js';
  const { getIdeProcessInfo } =
    await importClientModule<
      typeof import('@google/gemini-cli-core/dist/src/ide/process-utils.js')
    >(processUtils);
  const saved = process.env.GEMINI_CLI_IDE_PID;
  delete process.env.GEMINI_CLI_IDE_PID;
  try {
    const theirs = (await getIdeProcessInfo()) as { pid: number; command: string };
    const ours = await ideProcessFromTree();
    assert.equal(ours.pid, theirs.pid);
    assert.equal(ours.command, theirs.command);
  } finally {
    if (saved !== undefined) process.env.GEMINI_CLI_IDE_PID = saved;
  }
});

/**
 * A process titled like npm's runner that starts `sh -c`, as `npx tandem doctor` does; returns
 * the PID of that shell.
 */
async function shellUnder(title: string): Promise<number> {
  const script = `
    process.title = ${JSON.stringify(title)};
    const child = require('node:child_process').spawn('sh', ['-c', 'sleep 60; true'], { stdio: 'ignore' });
    console.log(child.pid);
    process.stdin.on('end', () => { child.kill(); process.exit(); }).resume();`;
  const runner = spawn(process.execPath, ['-e', script], { stdio: ['pipe', 'pipe', 'inherit'] });
  children.push(runner);
  const [chunk] = (await once(runner.stdout, 'data')) as [Buffer];
  return Number(chunk.toString().trim());
}

test("npx's own shell is skipped: the walk continues from npx's caller", async () => {
  const shell = await shellUnder('npm exec tandem doctor');
  const fromNpx = await ideProcessFromTree(shell);
  const fromHere = await ideProcessFromTree(process.pid);
  assert.equal(fromNpx.pid, fromHere.pid);
});

test('any other shell is the terminal: its grandparent is the IDE', async () => {
  const shell = await shellUnder('npm test');
  const found = await ideProcessFromTree(shell);
  assert.equal(found.shell?.pid, shell);
  assert.equal(
    found.pid,
    process.pid,
    "the shell's parent is the runner, whose parent is this test",
  );
});
