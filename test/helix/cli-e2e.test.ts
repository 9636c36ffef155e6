/**
 * End to end: the whole Gemini CLI, Qwen Code and Claude Code (against fake models) in a tmux
 * pane of their own, finding Helix by the discovery files of `tandem lsp` alone (Claude Code
 * through `/ide`, which lists Helix by name). The proposal opens in Helix; an edit and `:w` make
 * the CLI write the edited text; closing the proposal leaves the file as it was. (Helix has no
 * terminal for a CLI, and it does not reload a file written behind it.) Claude Code runs with
 * the newest Helix only (`TANDEM_HELIX=newest`), to keep CI short.
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test, type TestContext } from 'node:test';
import {
  CLI_DISPLAY_NAMES,
  claudeCodeMissing,
  cliInSandbox,
  confirmationPattern,
  defaultEditor,
  editPrompt,
  finalText,
  HelixUnderTest,
  helixSkipReason,
  helixVersion,
  inputPattern,
  missing,
  olderVersionCli,
  pickByIdeCommand,
  Sandbox,
  startCliSession,
  waitFor,
  type CliName,
  type CliSession,
} from '@tandem/testkit';

const skip = helixSkipReason({ sidecar: true });
const original = 'first line\nsecond line\n';
// Tabs, quotes and wide characters: the file must get exactly these bytes.
const proposed = 'first line\n\tindented "quoted" line\nünïcödé ✓ 文件\n';
/** The longest a CLI, a model turn or the editor's answer may take on a busy machine. */
const LONG = 120_000;

/** Helix with notes.txt, and `cli` in a pane of its own, not yet asked; ended after `t`. */
async function helixAndCli(t: TestContext, cli: CliName) {
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
  return { helix, session, file, edit };
}

/** Helix with notes.txt, and `cli` in a pane of its own asked for the edit; ended after `t`. */
async function scene(t: TestContext, cli: CliName) {
  const { helix, session, file } = await helixAndCli(t, cli);
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

const newestHelix = defaultEditor('helix').editor?.label === 'newest';
const claudeSkip =
  skip ||
  (!newestHelix &&
    'Claude Code runs with Helix newest only (TANDEM_HELIX=newest), to keep CI short') ||
  missing([], claudeCodeMissing('newest'));
const claudeConnected = /Claude Code \S+ connected/;

/**
 * Helix with notes.txt; Claude Code in a pane of its own, connected through `/ide` (which must
 * list Helix), showing the two lines selected and sent from Helix, then asked for the edit;
 * ended after `t`.
 */
async function claudeScene(t: TestContext) {
  const { helix, session, file, edit } = await helixAndCli(t, 'claude');
  // Helix offers code actions once its server is up: it has been told of the file.
  await helix.sent('the didOpen of notes.txt', (m) => m.method === 'textDocument/didOpen');
  await pickByIdeCommand(session, 'Helix');
  await session.waitForScreen(/Connected to Helix/i, LONG);
  await waitFor('tandem lsp to see Claude Code connected', () =>
    claudeConnected.test(helix.helix.serverStderr()) ? true : undefined,
  );
  let sent = 0;
  // Claude Code hears the selection a while after it has connected: the user selects two lines
  // and sends them until it shows them (another end of the selection each time, as the engine
  // sends only a change).
  await waitFor(
    'Claude Code to show the selection sent from Helix',
    async () => {
      if (/2 lines selected/.test(await session.screen())) return true;
      sent += 1;
      await helix.select({ line: 1, character: 1 }, { line: 2, character: 2 + (sent % 2) });
      await helix.sendSelection();
      return undefined;
    },
    LONG,
    2_000,
  );
  await session.submit(editPrompt(edit));
  await helix.proposalShown(0, LONG);
  return { helix, session, file };
}

test(
  `Helix ${helixVersion()}: claude, connected by /ide, proposes; an edit and :w in Helix, and claude writes exactly the edited text`,
  { skip: claudeSkip, timeout: 300_000 },
  async (t) => {
    const { helix, session, file } = await claudeScene(t);
    await helix.appendLine('edited in Helix');
    await helix.command('w');
    await session.waitForScreen((screen) => screen.includes(finalText), LONG);
    assert.equal(readFileSync(file, 'utf8'), `${proposed}edited in Helix\n`);
  },
);

test(
  `Helix ${helixVersion()}: claude, connected by /ide, proposes; :bc closes the proposal in Helix, and the file stays as it was`,
  { skip: claudeSkip, timeout: 300_000 },
  async (t) => {
    const { helix, session, file } = await claudeScene(t);
    await helix.command('bc');
    await session.waitForScreen(/Rejected update to notes\.txt|User rejected/, LONG);
    assert.equal(readFileSync(file, 'utf8'), original);
  },
);
