/**
 * End to end: Emacs with Tandem in a tmux pane, the whole Gemini CLI or Qwen Code running in an
 * Emacs terminal buffer (`M-x tandem-run-gemini`, `M-x tandem-run-qwen`) or in a separate tmux
 * pane, against a fake model. The model proposes an edit; the diff opens in Emacs; the user
 * answers there; the CLI writes the file, or leaves it alone.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test, type TestContext } from 'node:test';
import {
  defaultEditor,
  editPrompt,
  EmacsSession,
  emacsSkipReason,
  finalText,
  inputPattern,
  lispString,
  prepareEmacs,
  Sandbox,
  startCliSession,
  waitFor,
  type CliName,
  type CliSession,
} from '@tandem/testkit';

const skip = emacsSkipReason({ sidecar: true, tmux: true });

const original = 'first line\nsecond line\n';
const proposed = 'first line\n\tindented "quoted" line\nünïcödé ✓ 文件\n';

interface Scenario {
  session: CliSession;
  emacs: EmacsSession;
  file: string;
}

/** Emacs visits the file, then runs the CLI with `M-x tandem-run-<cli>` (which starts Tandem). */
/** Where Debian's elpa-vterm puts vterm, for the system's Emacs. */
const VTERM = '/usr/share/emacs/site-lisp/elpa/vterm-0.0.2';

/**
 * Emacs visits the file, then runs the CLI with `M-x tandem-run-<cli>` (which starts Tandem)
 * in the best terminal it has: `term` with nothing installed, vterm when `vterm` is on its path.
 */
async function startInEmacs(
  t: TestContext,
  cli: CliName,
  terminal: 'term' | 'vterm' = 'term',
): Promise<Scenario> {
  const sandbox = new Sandbox();
  const file = path.join(sandbox.workspace, 'notes.txt');
  writeFileSync(file, original);
  const launch = prepareEmacs(sandbox);
  const start = `(progn
    (find-file ${lispString(file)})
    (setq tandem-${cli}-command (getenv "TANDEM_TEST_CLI"))
    (call-interactively #'tandem-run-${cli}))`;
  const session = await startCliSession({
    cli,
    cwd: sandbox.workspace,
    home: sandbox.home,
    tmpDir: sandbox.tmpDir,
    qwenHome: sandbox.qwenHome,
    edit: { filePath: file, content: proposed },
    command: (command) => [
      'env',
      `TANDEM_TEST_CLI=${command.shellLine}`,
      'TERM=xterm-256color',
      ...launch.command(...(terminal === 'vterm' ? ['-L', VTERM] : []), '--eval', start),
    ],
    width: 160,
    height: 45,
    promptAtStart: false,
  });
  const emacs = new EmacsSession(sandbox, screenOf(session), launch.socket);
  t.after(async () => {
    // Quit Emacs first: its sidecar, not in the pane's process group, then cleans up at once.
    await emacs.eval('(kill-emacs)').catch(() => undefined);
    await session.stop();
    sandbox.remove();
  });
  await emacs.ready();
  const mode = terminal === 'vterm' ? 'vterm-mode' : 'term-mode';
  await waitFor(`the CLI in ${mode}`, async () =>
    (await emacs.text(
      '(with-current-buffer (window-buffer (selected-window)) (symbol-name major-mode))',
    )) === mode
      ? true
      : undefined,
  );
  await askForTheEdit(session, emacs, file);
  return { session, emacs, file };
}

/** The screen of a CLI session whose pane runs Emacs. */
function screenOf(session: CliSession) {
  return {
    sendKeys: (...keys: string[]) => session.sendKeys(...keys),
    type: (text: string) => session.type(text),
    capture: () => session.screen(),
    ending: async () => undefined,
    stop: () => session.stop(),
  };
}

/** Asks for the edit once Emacs sees the CLI (asked earlier, the CLI confirms it itself). */
async function askForTheEdit(session: CliSession, emacs: EmacsSession, file: string) {
  await waitFor(
    'Emacs to see the CLI connected',
    async () => ((await emacs.status()).clients.length === 1 ? true : undefined),
    120_000,
  );
  await session.waitForScreen(inputPattern, 120_000);
  await session.submit(editPrompt({ filePath: file, content: proposed }));
}

async function diffShown({ session, emacs }: Scenario): Promise<void> {
  await emacs.waitForDiffs(1, 120_000);
  await session.waitForScreen(/C-c C-c accept · C-c C-k reject/);
}

function bufferText(emacs: EmacsSession, file: string): Promise<string> {
  return emacs.text(`(with-current-buffer (get-file-buffer ${lispString(file)}) (buffer-string))`);
}

for (const cli of ['gemini', 'qwen'] as const) {
  test(
    `${cli} in an Emacs terminal buffer: an edit in the diff, C-c C-c, and the CLI writes it`,
    { skip, timeout: 300_000 },
    async (t) => {
      const scenario = await startInEmacs(t, cli);
      await diffShown(scenario);
      const { clients } = await scenario.emacs.status();
      assert.match(clients.join(' '), cli === 'gemini' ? /Gemini/ : /Qwen/);
      await scenario.emacs.press('M->');
      await scenario.emacs.type('edited in Emacs');
      await scenario.emacs.press('C-c', 'C-c');
      await scenario.session.waitForScreen((screen) => screen.includes(finalText), 120_000);
      const edited = `${proposed}edited in Emacs`;
      assert.equal(readFileSync(scenario.file, 'utf8'), edited);
      await waitFor('the buffer to show the written file', async () =>
        (await bufferText(scenario.emacs, scenario.file)) === edited ? true : undefined,
      );
    },
  );

  test(
    `${cli} in an Emacs terminal buffer: C-c C-k, and the file stays as it was`,
    { skip, timeout: 300_000 },
    async (t) => {
      const scenario = await startInEmacs(t, cli);
      await diffShown(scenario);
      await scenario.emacs.press('C-c', 'C-k');
      await scenario.emacs.waitForDiffs(0);
      // The CLI takes the rejection: it says so (Gemini CLI, whose prompt line term.el draws
      // without its placeholder) or asks for the next message; the file is unchanged.
      await scenario.session.waitForScreen(
        (screen) => !/C-c C-c accept/.test(screen) && /Rejected|Type your message/.test(screen),
        120_000,
      );
      assert.equal(readFileSync(scenario.file, 'utf8'), original);
      assert.equal(await bufferText(scenario.emacs, scenario.file), original);
    },
  );

  test(
    `${cli} in a separate tmux pane finds Emacs by its discovery files`,
    { skip, timeout: 300_000 },
    async (t) => {
      const sandbox = new Sandbox();
      const file = path.join(sandbox.workspace, 'notes.txt');
      writeFileSync(file, original);
      const started: { emacs?: EmacsSession; session?: CliSession } = {};
      t.after(async () => {
        await started.session?.stop();
        await started.emacs?.close();
        sandbox.remove();
      });
      const emacs = await EmacsSession.start(sandbox, { tandem: true, args: [file] });
      started.emacs = emacs;
      const session = await startCliSession({
        cli,
        cwd: sandbox.workspace,
        home: sandbox.home,
        tmpDir: sandbox.tmpDir,
        qwenHome: sandbox.qwenHome,
        edit: { filePath: file, content: proposed },
        promptAtStart: false,
      });
      started.session = session;
      await askForTheEdit(session, emacs, file);
      await emacs.waitForDiffs(1, 120_000).catch(async (error: unknown) => {
        throw new Error(`${String(error)}; the CLI's screen:\n${await session.screen()}`);
      });
      await emacs.press('C-c', 'C-c');
      await session.waitForScreen((screen) => screen.includes(finalText), 120_000);
      assert.equal(readFileSync(file, 'utf8'), proposed);
      await waitFor('the open buffer to show the written file', async () =>
        (await bufferText(emacs, file)) === proposed ? true : undefined,
      );
    },
  );
}

for (const cli of ['gemini', 'qwen'] as const) {
  // Gemini CLI approved, Qwen Code cancelled: each outcome once, in the CLI's own pane.
  const answer = cli === 'gemini' ? 'approved' : 'cancelled';
  test(
    `${cli} in a separate tmux pane, ${answer} in its terminal: Emacs says what became of the file`,
    { skip, timeout: 300_000 },
    async (t) => {
      const sandbox = new Sandbox();
      const file = path.join(sandbox.workspace, 'notes.txt');
      writeFileSync(file, original);
      const started: { emacs?: EmacsSession; session?: CliSession } = {};
      t.after(async () => {
        await started.session?.stop();
        await started.emacs?.close();
        sandbox.remove();
      });
      const emacs = await EmacsSession.start(sandbox, { tandem: true, args: [file] });
      started.emacs = emacs;
      const session = await startCliSession({
        cli,
        cwd: sandbox.workspace,
        home: sandbox.home,
        tmpDir: sandbox.tmpDir,
        qwenHome: sandbox.qwenHome,
        edit: { filePath: file, content: proposed },
        promptAtStart: false,
      });
      started.session = session;
      await askForTheEdit(session, emacs, file);
      await emacs.waitForDiffs(1, 120_000);
      if (answer === 'approved') await session.approveInTerminal(120_000);
      else await session.rejectInTerminal(120_000);
      await emacs.waitForDiffs(0);
      const told =
        answer === 'approved'
          ? 'Tandem: Gemini CLI wrote its own proposal to notes.txt (approved in its terminal).'
          : "Tandem: notes.txt was not changed: the proposal was cancelled in Qwen Code's terminal.";
      await waitFor(
        'what became of the diff, in *Messages*',
        async () =>
          (await emacs.text('(with-current-buffer "*Messages*" (buffer-string))')).includes(told)
            ? true
            : undefined,
        60_000,
      );
      assert.equal(readFileSync(file, 'utf8'), answer === 'approved' ? proposed : original);
    },
  );
}

// vterm is Debian 12's package, for the system's Emacs; the newer Emacs roots have none.
if (defaultEditor('emacs').editor?.label === '28.2') {
  test(
    'gemini in vterm: tandem-run-gemini picks it; C-c C-c, and the CLI writes the file',
    { skip: skip || missingVterm(), timeout: 300_000 },
    async (t) => {
      const scenario = await startInEmacs(t, 'gemini', 'vterm');
      await diffShown(scenario);
      await scenario.emacs.press('C-c', 'C-c');
      await scenario.session.waitForScreen((screen) => screen.includes(finalText), 120_000);
      assert.equal(readFileSync(scenario.file, 'utf8'), proposed);
    },
  );
} else {
  console.log('# vterm: tested with the system Emacs only (Debian 12 packages it)');
}

function missingVterm(): string | false {
  if (existsSync(VTERM)) return false;
  if (process.env.CI) throw new Error(`${VTERM} is missing: CI installs elpa-vterm`);
  console.log('# skipping: elpa-vterm is not installed');
  return 'elpa-vterm is not installed';
}
