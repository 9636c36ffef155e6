import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { test, type TestContext } from 'node:test';
import type { CliName } from './cli-launch.js';
import { inputPattern, startCliSession, type CliSession } from './cli-session.js';
import { finalText } from './proposed-edit.js';

const tmuxMissing = spawnSync('tmux', ['-V']).error !== undefined;

function tmuxAvailable(t: TestContext): boolean {
  if (!tmuxMissing) return true;
  if (process.env.CI) assert.fail('tmux is not installed (required when CI is set)');
  t.skip('tmux is not installed');
  return false;
}

const original = 'first line\nsecond line\n';
// Tabs, quotes, a literal backslash-n and non-ASCII: the file must get exactly these bytes.
const proposed = 'first line\n\tindented "quoted" \\n stays literal\nünïcödé ✓\n';

interface Scenario {
  session: CliSession;
  file: string;
  root: string;
}

async function startScenario(t: TestContext, cli: CliName): Promise<Scenario> {
  const root = await realpath(await mkdtemp(path.join(os.tmpdir(), `cli-session-${cli}-`)));
  const cwd = path.join(root, 'workspace');
  await mkdir(cwd);
  const file = path.join(cwd, 'notes.txt');
  await writeFile(file, original);
  const session = await startCliSession({
    cli,
    cwd,
    home: path.join(root, 'home'),
    tmpDir: path.join(root, 'tmp'),
    edit: { filePath: file, content: proposed },
  });
  t.after(async () => {
    await session.stop();
    await rm(root, { recursive: true, force: true });
  });
  return { session, file, root };
}

/** IDE mode is on, yet no companion wrote a discovery file the CLI could find. */
function assertNoDiscoveryFiles(root: string): void {
  assert.equal(existsSync(path.join(root, 'tmp', 'gemini', 'ide')), false);
  assert.equal(existsSync(path.join(root, 'home', '.qwen', 'ide')), false);
}

function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

for (const cli of ['gemini', 'qwen'] as const) {
  test(`${cli}: approving in the terminal writes exactly the proposed content`, { timeout: 180_000 }, async (t) => {
    if (!tmuxAvailable(t)) return;
    const { session, file, root } = await startScenario(t, cli);
    assertNoDiscoveryFiles(root);
    await session.approveInTerminal(120_000);
    await session.waitForScreen((screen) => screen.includes(finalText));
    assert.equal(await readFile(file, 'utf8'), proposed);

    const pid = session.panePid;
    await session.stop();
    await session.stop();
    assert.equal(groupAlive(pid), false, 'a process of the pane outlived stop()');
  });

  test(`${cli}: rejecting in the terminal leaves the file untouched`, { timeout: 180_000 }, async (t) => {
    if (!tmuxAvailable(t)) return;
    const { session, file } = await startScenario(t, cli);
    await session.rejectInTerminal(120_000);
    await session.waitForScreen((screen) => !/Apply this change\?/.test(screen) && inputPattern.test(screen));
    assert.equal(await readFile(file, 'utf8'), original);
    assert.doesNotMatch(await session.screen(), new RegExp(finalText));
  });
}
