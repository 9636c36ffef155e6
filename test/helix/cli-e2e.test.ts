/**
 * End to end: the whole Gemini CLI and Qwen Code (against fake models) in a tmux pane of their
 * own, finding Helix by the discovery files of `tandem lsp` alone. The proposal opens in Helix;
 * an edit and `:w` make the CLI write the edited text; closing the proposal leaves the file as
 * it was. (Helix has no terminal for a CLI, and it does not reload a file written behind it.)
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test, type TestContext } from 'node:test';
import {
  CLI_DISPLAY_NAMES,
  cliInSandbox,
  confirmationPattern,
  defaultEditor,
  finalText,
  HelixUnderTest,
  helixSkipReason,
  helixVersion,
  inputPattern,
  olderVersionCli,
  Sandbox,
  startCliSession,
  type CliName,
  type CliSession,
} from '@tandem/testkit';

const skip = helixSkipReason({ sidecar: true });
const original = 'first line\nsecond line\n';
// Tabs, quotes and wide characters: the file must get exactly these bytes.
const proposed = 'first line\n\tindented "quoted" line\nünïcödé ✓ 文件\n';
/** The longest a CLI, a model turn or the editor's answer may take on a busy machine. */
const LONG = 120_000;

/** Helix with notes.txt, and `cli` in a pane of its own asked for the edit; ended after `t`. */
async function scene(t: TestContext, cli: CliName) {
  const sandbox = new Sandbox();
  const file = path.join(sandbox.workspace, 'notes.txt');
  writeFileSync(file, original);
  const started: { helix?: HelixUnderTest; session?: CliSession } = {};
  t.after(async () => {
    await started.session?.stop();
    await started.helix?.close();
    sandbox.remove();
  });
  const helix = (started.helix = await HelixUnderTest.start(sandbox, ['notes.txt']));
  const edit = { filePath: file, content: proposed };
  const session = (started.session = await startCliSession(cliInSandbox(sandbox, cli, edit)));
  // Asked before the CLI is connected, the CLI would confirm the edit in its own terminal.
  await session.askForEdit(async () =>
    helix.helix.serverStderr().includes(`${CLI_DISPLAY_NAMES[cli]} `),
  );
  await helix.proposalShown(0, LONG);
  return { helix, session, file };
}

const newest = defaultEditor('helix').editor?.label === 'newest';
/** Whether this Helix runs `scenario` with `cli`: every pair on the newest, one CLI each before. */
const runs = (scenario: 'accept' | 'reject', cli: CliName) =>
  newest || olderVersionCli(scenario, false) === cli;

for (const cli of ['gemini', 'qwen'] as const) {
  if (runs('accept', cli))
    test(
      `Helix ${helixVersion()}: ${cli} proposes, an edit and :w in Helix, and ${cli} writes the edited file`,
      { skip, timeout: 300_000 },
      async (t) => {
        const { helix, session, file } = await scene(t, cli);
        await helix.appendLine('edited in Helix');
        await helix.command('w');
        await session.waitForScreen((screen) => screen.includes(finalText), LONG);
        assert.equal(readFileSync(file, 'utf8'), `${proposed}edited in Helix\n`);
      },
    );

  if (runs('reject', cli))
    test(
      `Helix ${helixVersion()}: ${cli} proposes, :bc closes the proposal in Helix, and the file stays as it was`,
      { skip, timeout: 300_000 },
      async (t) => {
        const { helix, session, file } = await scene(t, cli);
        await session.waitForScreen(confirmationPattern);
        await helix.command('bc');
        // The CLI takes the rejection: its question is gone, it asks for the next message.
        await session.waitForScreen(
          (screen) => !confirmationPattern.test(screen) && inputPattern.test(screen),
          LONG,
        );
        assert.equal(readFileSync(file, 'utf8'), original);
      },
    );
}
