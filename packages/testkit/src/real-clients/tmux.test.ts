import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { test, type TestContext } from 'node:test';
import { needsProgram } from '../needs.js';
import { processGroupAlive, TmuxPane } from './tmux.js';

async function startPane(
  t: TestContext,
  shellLine: string,
  env: Record<string, string> = {},
): Promise<TmuxPane> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'tmux-pane-'));
  const pane = await TmuxPane.start({
    dir,
    cwd: dir,
    shellLine,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...env },
  });
  t.after(async () => {
    await pane.stop();
    await rm(dir, { recursive: true, force: true });
  });
  return pane;
}

async function until<T>(probe: () => Promise<T | undefined>, what: string): Promise<T> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`never happened: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

test('a pane shows output, takes typed text and keys, and stays readable after its command exits', async (t) => {
  if (!needsProgram(t, 'tmux')) return;
  const pane = await startPane(
    t,
    `echo "ready [$GREETING] [$TERM_PROGRAM]"; read line; echo "got <$line>"; exit 3`,
    { GREETING: 'hi there' },
  );
  // tmux marks every pane with TERM_PROGRAM=tmux: whoever tests discovery must remove it.
  await until(
    async () => ((await pane.capture()).includes('ready [hi there] [tmux]') ? true : undefined),
    'the greeting',
  );
  assert.equal(await pane.ending(), undefined);
  await pane.type('a b;$x');
  await pane.sendKeys('Enter');
  assert.match(await until(() => pane.ending(), 'the command exits'), /^(exit status 3|exited)$/);
  // tmux may tell of the exit before it has drawn the last output (seen once in CI).
  await until(
    async () => ((await pane.capture()).includes('got <a b;$x>') ? true : undefined),
    'the line read, shown after the exit',
  );
});

test('stop ends every process of the pane, even one that ignores SIGHUP, and is safe twice', async (t) => {
  if (!needsProgram(t, 'tmux')) return;
  const pane = await startPane(t, `trap '' HUP; sleep 1000 & sleep 1000; echo never`);
  const groupSize = () =>
    execFileSync('ps', ['-e', '-o', 'pgid='], { encoding: 'utf8' })
      .split('\n')
      .filter((pgid) => Number(pgid) === pane.pid).length;
  await until(async () => (groupSize() >= 3 ? true : undefined), 'the shell and both sleeps run');
  await pane.stop();
  assert.equal(processGroupAlive(pane.pid), false);
  await pane.stop();
});
