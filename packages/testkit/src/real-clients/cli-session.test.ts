import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test, type TestContext } from 'node:test';
import type { CliCommand, CliName } from './cli-launch.js';
import {
  cliInSandbox,
  inputPattern,
  startCliSession,
  type CliSession,
  type CliSessionOptions,
} from './cli-session.js';
import { needsProgram } from '../needs.js';
import { Sandbox } from '../sandbox.js';
import { finalText } from './proposed-edit.js';
import { processGroupAlive } from './tmux.js';

const original = 'first line\nsecond line\n';
// Tabs, quotes, a literal backslash-n and non-ASCII: the file must get exactly these bytes.
const proposed = 'first line\n\tindented "quoted" \\n stays literal\nünïcödé ✓\n';

/** The CLI in a sandbox, the edit asked for at its start (no companion: it asks in its terminal). */
async function startScenario(
  t: TestContext,
  cli: CliName,
  command?: CliSessionOptions['command'],
): Promise<{ session: CliSession; file: string; sandbox: Sandbox }> {
  const sandbox = new Sandbox(`cli-session-${cli}-`);
  const file = path.join(sandbox.workspace, 'notes.txt');
  await writeFile(file, original);
  const session = await startCliSession({
    ...cliInSandbox(sandbox, cli, { filePath: file, content: proposed }),
    promptAtStart: true,
    ...(command && { command }),
  });
  t.after(async () => {
    await session.stop();
    sandbox.remove();
  });
  return { session, file, sandbox };
}

/** IDE mode is on, yet no companion wrote a discovery file the CLI could find. */
function assertNoDiscoveryFiles(sandbox: Sandbox): void {
  assert.equal(existsSync(path.join(sandbox.tmpDir, 'gemini', 'ide')), false);
  assert.equal(existsSync(path.join(sandbox.qwenHome, 'ide')), false);
}

/**
 * The suite runs this file on Node 20 and on Node 24 (scripts/test-runner/jobs.js) for Gemini
 * CLI, which runs on the Node of the run; Qwen Code runs on Node 24 in both (client-node.ts), so
 * its cases and the pane's are the Node 20 run's alone.
 */
const onNode24Run = process.env.TANDEM_NODE === '24';
const notOnNode24Run = onNode24Run && 'the same on Node 20 and 24: the Node 20 run has it';

for (const cli of onNode24Run ? (['gemini'] as const) : (['gemini', 'qwen'] as const)) {
  test(
    `${cli}: approving in the terminal writes exactly the proposed content`,
    { timeout: 180_000 },
    async (t) => {
      if (!needsProgram(t, 'tmux')) return;
      const { session, file, sandbox } = await startScenario(t, cli);
      assertNoDiscoveryFiles(sandbox);
      await session.approveInTerminal(120_000);
      await session.waitForScreen((screen) => screen.includes(finalText));
      assert.equal(await readFile(file, 'utf8'), proposed);

      const pid = session.panePid;
      await session.stop();
      await session.stop();
      assert.equal(processGroupAlive(pid), false, 'a process of the pane outlived stop()');
    },
  );

  test(
    `${cli}: rejecting in the terminal leaves the file untouched`,
    { timeout: 180_000 },
    async (t) => {
      if (!needsProgram(t, 'tmux')) return;
      const { session, file } = await startScenario(t, cli);
      await session.rejectInTerminal(120_000);
      await session.waitForScreen(
        (screen) => !/Apply this change\?/.test(screen) && inputPattern.test(screen),
      );
      assert.equal(await readFile(file, 'utf8'), original);
      assert.doesNotMatch(await session.screen(), new RegExp(finalText));
    },
  );
}

test(
  'the pane can run another program that starts the CLI from its shell line',
  { timeout: 180_000, skip: notOnNode24Run },
  async (t) => {
    if (!needsProgram(t, 'tmux')) return;
    // As an editor's terminal would: a shell of its own, in the pane's environment (cli.env).
    const wrapper = (cli: CliCommand) => [
      'sh',
      '-c',
      `touch "$TMPDIR/wrapper-ran"; ${cli.shellLine}`,
    ];
    const { session, file, sandbox } = await startScenario(t, 'gemini', wrapper);
    await session.approveInTerminal(120_000);
    await session.waitForScreen((screen) => screen.includes(finalText));
    assert.equal(await readFile(file, 'utf8'), proposed);
    assert.equal(existsSync(path.join(sandbox.tmpDir, 'wrapper-ran')), true);
  },
);
