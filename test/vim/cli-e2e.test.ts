/**
 * End to end: the whole Gemini CLI and Qwen Code (against fake models), in Vim's :terminal and
 * in a separate tmux pane. The model proposes an edit; the diff opens in Vim; the user answers
 * there with real keys; the CLI writes the file, or leaves it alone.
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test, type TestContext } from 'node:test';
import {
  editPrompt,
  finalText,
  inputPattern,
  Sandbox,
  startCliSession,
  vimArgv,
  VimSession,
  vimSkipReason,
  waitFor,
  type CliName,
  type CliSession,
} from '@tandem/testkit';

const skip = vimSkipReason({ sidecar: true });

const original = 'first line\nsecond line\n';
const proposed = 'first line\n\tindented "quoted" line\nünïcödé ✓\n';
const hint = /accept: :w or <leader>da/;

interface Scenario {
  session: CliSession;
  vim: VimSession;
  file: string;
}

/** Vim in tmux editing notes.txt; `:Tandem cli` (the product's command) runs the CLI. */
async function inVimTerminal(t: TestContext, cli: CliName): Promise<Scenario> {
  const sandbox = new Sandbox();
  const file = path.join(sandbox.workspace, 'notes.txt');
  writeFileSync(file, original);
  VimSession.prepare(sandbox);
  const session = await startCliSession({
    cli,
    cwd: sandbox.workspace,
    home: sandbox.home,
    tmpDir: sandbox.tmpDir,
    qwenHome: sandbox.qwenHome,
    edit: { filePath: file, content: proposed },
    command: (command) =>
      vimArgv(sandbox, {
        env: { TERM: 'xterm-256color' },
        before: [
          `let g:tandem_clis = {'cli': ['sh', '-c', ${JSON.stringify(command.shellLine)}]}`,
          // The whole width: typed into a narrow terminal, Qwen Code's prompt wraps and its
          // Enter is taken as part of a paste.
          `let g:tandem_terminal_split = 'tab split'`,
        ],
        args: ['notes.txt', '-c', 'Tandem cli'],
      }),
    width: 160,
    height: 45,
    promptAtStart: false,
  });
  t.after(async () => {
    await session.stop();
    sandbox.remove();
  });
  const vim = await VimSession.attach(sandbox, {
    sendKeys: (...keys) => session.sendKeys(...keys),
    type: (text) => session.type(text),
    capture: () => session.screen(),
    ending: async () => undefined,
    stop: () => session.stop(),
  });
  return { session, vim, file };
}

/** Asks for the edit once Vim sees the CLI (typed earlier, even /ide status reaches the model). */
async function askForTheEdit({ session, vim, file }: Scenario): Promise<void> {
  await waitFor(
    'Vim to see the CLI connected',
    async () => ((await vim.status()).clients.length === 1 ? true : undefined),
    120_000,
  );
  await session.waitForScreen(inputPattern);
  await session.submit(editPrompt({ filePath: file, content: proposed }));
}

async function diffShown({ session, vim }: Scenario): Promise<void> {
  await waitFor(
    'the diff in Vim',
    async () => ((await vim.status()).diffs.length === 1 ? true : undefined),
    120_000,
  ).catch(async (error: unknown) => {
    throw new Error(`${String(error)}; the screen:\n${await session.screen()}`);
  });
  await session.waitForScreen(hint);
}

for (const cli of ['gemini', 'qwen'] as const) {
  test(
    `${cli} in Vim's terminal: an edit in the diff, :w, and the CLI writes the edited file`,
    { skip, timeout: 300_000 },
    async (t) => {
      const scenario = await inVimTerminal(t, cli);
      await askForTheEdit(scenario);
      await diffShown(scenario);
      const names = (await scenario.vim.status()).clients.map((client) => client.name).join(' ');
      assert.match(names, cli === 'gemini' ? /Gemini/ : /Qwen/);
      await scenario.session.type('Goedited in the diff');
      await scenario.session.sendKeys('Escape');
      await scenario.session.type(':w');
      await scenario.session.sendKeys('Enter');
      await scenario.session.waitForScreen((screen) => screen.includes(finalText), 120_000);
      const edited = `${proposed}edited in the diff\n`;
      assert.equal(readFileSync(scenario.file, 'utf8'), edited);
      await waitFor('the open buffer to show the written file', async () => {
        const lines = await scenario.vim.eval<string[]>(`getbufline(bufnr('notes.txt'), 1, '$')`);
        return `${lines.join('\n')}\n` === edited ? true : undefined;
      });
    },
  );

  test(
    `${cli} in Vim's terminal: :q in the diff, and the file stays as it was`,
    { skip, timeout: 300_000 },
    async (t) => {
      const scenario = await inVimTerminal(t, cli);
      await askForTheEdit(scenario);
      await diffShown(scenario);
      await scenario.session.type(':q');
      await scenario.session.sendKeys('Enter');
      await waitFor('the diff to close', async () =>
        (await scenario.vim.status()).diffs.length === 0 ? true : undefined,
      );
      // The CLI takes the rejection: it asks for the next message, and the file is unchanged.
      await scenario.session.waitForScreen(
        (screen) => !hint.test(screen) && inputPattern.test(screen),
        120_000,
      );
      assert.equal(readFileSync(scenario.file, 'utf8'), original);
    },
  );

  test(
    `${cli} in Vim's terminal: approved in the CLI after an edit in Vim, and Vim says what was written`,
    { skip, timeout: 300_000 },
    async (t) => {
      const scenario = await inVimTerminal(t, cli);
      await askForTheEdit(scenario);
      await diffShown(scenario);
      await scenario.session.type('Goadded in Vim');
      await scenario.session.sendKeys('Escape');
      // Back to the CLI's tab (its terminal takes the keys again) to approve there.
      await scenario.session.type('2gt');
      await scenario.session.approveInTerminal(120_000);
      await waitFor('the diff to close', async () =>
        (await scenario.vim.status()).diffs.length === 0 ? true : undefined,
      );
      await scenario.session.waitForScreen((screen) => screen.includes(finalText), 120_000);
      // Gemini CLI writes the view's text; Qwen Code its own proposal (SPEC-NOTES §3).
      const written = cli === 'gemini' ? `${proposed}added in Vim\n` : proposed;
      assert.equal(readFileSync(scenario.file, 'utf8'), written);
      const told =
        cli === 'gemini'
          ? 'Tandem: Gemini CLI wrote notes.txt with your edits (approved in its terminal).'
          : 'Tandem: Qwen Code wrote its own proposal to notes.txt, not your edits';
      await waitFor(
        'what became of the diff, in :messages',
        async () =>
          (await scenario.vim.eval<string>(`execute('messages')`)).includes(told)
            ? true
            : undefined,
        60_000,
      );
    },
  );

  test(
    `${cli} in a separate tmux pane finds Vim by its discovery files; :w there writes the file`,
    { skip, timeout: 300_000 },
    async (t) => {
      const sandbox = new Sandbox();
      const started: { vim?: VimSession; session?: CliSession } = {};
      t.after(async () => {
        await started.session?.stop();
        await started.vim?.close();
        sandbox.remove();
      });
      const file = path.join(sandbox.workspace, 'notes.txt');
      writeFileSync(file, original);
      const vim = await VimSession.start(sandbox, { args: ['notes.txt'] });
      started.vim = vim;
      await vim.waitForState('running');
      // The CLI's own tmux server: nothing of Vim's environment reaches it.
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
      await askForTheEdit({ session, vim, file });
      await waitFor(
        'the diff in Vim',
        async () => ((await vim.status()).diffs.length === 1 ? true : undefined),
        120_000,
      ).catch(async (error: unknown) => {
        throw new Error(`${String(error)}; the CLI's screen:\n${await session.screen()}`);
      });
      await vim.type('Goadded in Vim');
      await vim.keys('Escape');
      await vim.ex('w');
      await session.waitForScreen((screen) => screen.includes(finalText), 120_000);
      const edited = `${proposed}added in Vim\n`;
      assert.equal(readFileSync(file, 'utf8'), edited);
      await waitFor('the open buffer to show the written file', async () => {
        const lines = await vim.eval<string[]>(`getbufline(bufnr('notes.txt'), 1, '$')`);
        return `${lines.join('\n')}\n` === edited ? true : undefined;
      });
    },
  );
}
