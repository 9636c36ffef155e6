/**
 * End to end: Neovim with Tandem in a tmux pane, the whole Gemini CLI or Qwen Code running in
 * Neovim's terminal against a fake model. The model proposes an edit; the diff opens in Neovim;
 * the user answers there (or in the CLI); the CLI writes the file, or leaves it alone.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { test, type TestContext } from 'node:test';
import { attach, type NeovimClient } from 'neovim';
import {
  editorVersions,
  editPrompt,
  finalText,
  inputPattern,
  neovimArgs,
  NeovimSession,
  neovimSkipReason,
  Sandbox,
  startCliSession,
  waitFor,
  type CliCommand,
  type CliName,
  type CliSession,
  type EditorVersion,
  type NeovimStatus,
} from '@tandem/testkit';

const skip = neovimSkipReason({ sidecar: true, tmux: true, statedVersions: true });
// The oldest Neovim and the newest: every test below runs on each, with each CLI.
const runs = editorVersions('nvim', ['0.7', 'newest']).flatMap((nvim) =>
  (['gemini', 'qwen'] as const).map((cli) => ({ nvim, cli })),
);

const original = 'first line\nsecond line\n';
const proposed = 'first line\n\tindented "quoted" line\nünïcödé ✓\n';

const QUIET_LOGGER = { info() {}, warn() {}, error() {}, debug() {}, level: 'error' };
type AttachLogger = NonNullable<NonNullable<Parameters<typeof attach>[0]['options']>['logger']>;

// Neovim opens the file, starts Tandem and waits until it runs (the CLI looks for it once, at
// its start), then opens the CLI in a terminal in a second tab.
const START_LUA = `
vim.cmd('edit notes.txt')
require('tandem').setup({})
vim.wait(20000, function() return require('tandem').status().state ~= 'starting' end, 50)
vim.cmd('tabnew')
vim.cmd('terminal sh -c "$TANDEM_TEST_CLI"')
vim.cmd('startinsert')
`;

/** The text of the buffer of `file` in Neovim. */
function bufferText(nvim: NeovimClient, file: string): Promise<string> {
  const lua = `return table.concat(vim.api.nvim_buf_get_lines(vim.fn.bufnr(...), 0, -1, false), '\\n')`;
  return nvim.lua(lua, [file]) as unknown as Promise<string>;
}

interface Scenario {
  session: CliSession;
  nvim: NeovimClient;
  file: string;
}

async function startScenario(
  t: TestContext,
  cli: CliName,
  version: EditorVersion,
): Promise<Scenario> {
  const root = await realpath(await mkdtemp(path.join(os.tmpdir(), `tandem-nvim-e2e-${cli}-`)));
  const cwd = path.join(root, 'workspace');
  await mkdir(cwd);
  const home = path.join(root, 'home');
  await mkdir(home);
  const file = path.join(cwd, 'notes.txt');
  await writeFile(file, original);
  const startLua = path.join(root, 'start.lua');
  await writeFile(startLua, START_LUA);
  const socket = path.join(root, 'nvim.sock');
  const xdg = path.join(root, 'xdg');
  const neovim = (command: CliCommand) => [
    'env',
    `TANDEM_TEST_CLI=${command.shellLine}`,
    `XDG_CONFIG_HOME=${xdg}/config`,
    `XDG_DATA_HOME=${xdg}/data`,
    `XDG_STATE_HOME=${xdg}/state`,
    `XDG_CACHE_HOME=${xdg}/cache`,
    `NVIM_LOG_FILE=${root}/nvim.log`,
    'TERM=xterm-256color',
    ...version.command(),
    ...neovimArgs('--listen', socket, '-c', `luafile ${startLua}`),
  ];
  const session = await startCliSession({
    cli,
    cwd,
    home,
    tmpDir: path.join(root, 'tmp'),
    qwenHome: path.join(root, 'qwen'),
    edit: { filePath: file, content: proposed },
    command: neovim,
    width: 160,
    height: 45,
    promptAtStart: false,
  });
  t.after(async () => {
    await session.stop();
    await rm(root, { recursive: true, force: true });
  });
  await waitFor('the Neovim socket', () => (existsSync(socket) ? true : undefined));
  const nvim = attach({ socket, options: { logger: QUIET_LOGGER as unknown as AttachLogger } });
  t.after(() => nvim.close().catch(() => undefined));
  // Asked for before the CLI has connected, the edit would be confirmed in the terminal.
  await waitFor(
    'Neovim to see the CLI connected',
    async () => ((await status(nvim)).clients.length === 1 ? true : undefined),
    120_000,
  );
  await session.waitForScreen(inputPattern);
  await session.submit(editPrompt({ filePath: file, content: proposed }));
  return { session, nvim, file };
}

function status(nvim: NeovimClient): Promise<NeovimStatus> {
  return nvim.lua(`return require('tandem').status()`) as unknown as Promise<NeovimStatus>;
}

/** Waits until the CLI's diff is open in Neovim, shown on the screen. */
async function diffShown({ session, nvim }: Scenario): Promise<void> {
  await waitFor(
    'the diff in Neovim',
    async () => ((await status(nvim)).diffs.length === 1 ? true : undefined),
    120_000,
  );
  await session.waitForScreen(/accept: :w or <leader>da/);
}

for (const { nvim, cli } of runs) {
  test(
    `${cli} in ${nvim.name}'s terminal: an edit in the diff, :w, and the CLI writes the edited file`,
    { skip, timeout: 240_000 },
    async (t) => {
      const scenario = await startScenario(t, cli, nvim);
      await diffShown(scenario);
      const connected = (await status(scenario.nvim)).clients
        .map((client) => client.name)
        .join(' ');
      assert.match(connected, cli === 'gemini' ? /Gemini/ : /Qwen/);
      await scenario.session.type('Goedited in the diff');
      await scenario.session.sendKeys('Escape');
      await scenario.session.type(':w');
      await scenario.session.sendKeys('Enter');
      await scenario.session.waitForScreen((screen) => screen.includes(finalText), 120_000);
      const edited = `${proposed}edited in the diff\n`;
      assert.equal(await readFile(scenario.file, 'utf8'), edited);
      await waitFor('the open buffer to show the written file', async () =>
        `${await bufferText(scenario.nvim, scenario.file)}\n` === edited ? true : undefined,
      );
    },
  );

  test(
    `${cli} in ${nvim.name}'s terminal: :q in the diff, and the file stays as it was`,
    { skip, timeout: 240_000 },
    async (t) => {
      const scenario = await startScenario(t, cli, nvim);
      await diffShown(scenario);
      await scenario.session.type(':q');
      await scenario.session.sendKeys('Enter');
      await waitFor('the diff to close', async () =>
        (await status(scenario.nvim)).diffs.length === 0 ? true : undefined,
      );
      // The CLI takes the rejection: it asks for the next message, and the file is unchanged.
      await scenario.session.waitForScreen(
        (screen) => !/accept: :w/.test(screen) && /Type your message/.test(screen),
        120_000,
      );
      assert.equal(await readFile(scenario.file, 'utf8'), original);
    },
  );
}

for (const { nvim, cli } of runs) {
  test(
    `${cli}: approving in the CLI closes the diff in ${nvim.name}`,
    { skip, timeout: 240_000 },
    async (t) => {
      const scenario = await startScenario(t, cli, nvim);
      await diffShown(scenario);
      // An edit in the proposal, then back to the CLI's tab to approve there.
      await scenario.session.type('Goadded in Neovim');
      await scenario.session.sendKeys('Escape');
      await scenario.session.type('2gt');
      await scenario.session.type('i');
      await scenario.session.approveInTerminal(120_000);
      await waitFor('the diff to close', async () =>
        (await status(scenario.nvim)).diffs.length === 0 ? true : undefined,
      );
      await scenario.session.waitForScreen((screen) => screen.includes(finalText), 120_000);
      // Gemini CLI writes the text closeDiff returned (with the edit made in Neovim); Qwen Code
      // writes its own proposal (SPEC-NOTES §3).
      const written = cli === 'gemini' ? `${proposed}added in Neovim\n` : proposed;
      assert.equal(await readFile(scenario.file, 'utf8'), written);
      // Neovim says which it was, and where Qwen Code dropped the edit.
      await messageShown(
        scenario.nvim,
        cli === 'gemini'
          ? 'Tandem: Gemini CLI wrote notes.txt with your edits (approved in its terminal).'
          : 'Tandem: Qwen Code wrote its own proposal to notes.txt, not your edits',
      );
    },
  );

  test(
    `${cli}: cancelling in the CLI closes the diff in ${nvim.name} and says the file was not changed`,
    { skip, timeout: 240_000 },
    async (t) => {
      const scenario = await startScenario(t, cli, nvim);
      await diffShown(scenario);
      await scenario.session.type('2gt');
      await scenario.session.type('i');
      await scenario.session.rejectInTerminal(120_000);
      await waitFor('the diff to close', async () =>
        (await status(scenario.nvim)).diffs.length === 0 ? true : undefined,
      );
      const name = cli === 'gemini' ? 'Gemini CLI' : 'Qwen Code';
      await messageShown(
        scenario.nvim,
        `Tandem: notes.txt was not changed: the proposal was cancelled in ${name}'s terminal.`,
      );
      assert.equal(await readFile(scenario.file, 'utf8'), original);
    },
  );
}

/** Waits until Neovim's message history holds `text` (the engine watches the file first). */
async function messageShown(nvim: NeovimClient, text: string): Promise<void> {
  await waitFor(
    `"${text}" in :messages`,
    async () => {
      const messages = (await nvim.lua(`return vim.fn.execute('messages')`)) as unknown as string;
      return messages.includes(text) ? true : undefined;
    },
    60_000,
  );
}

for (const { nvim, cli } of runs) {
  test(
    `${cli} in a separate tmux pane finds ${nvim.name} by its discovery files`,
    { skip, timeout: 240_000 },
    async (t) => {
      const sandbox = new Sandbox();
      const started: { neovim?: NeovimSession; session?: CliSession } = {};
      // In this order: the CLI's tmux server lives in the sandbox.
      t.after(async () => {
        await started.session?.stop();
        await started.neovim?.close();
        sandbox.remove();
      });
      const file = path.join(sandbox.workspace, 'notes.txt');
      await writeFile(file, original);
      const neovim = await NeovimSession.start(sandbox, { tandem: '{}', nvim });
      started.neovim = neovim;
      await neovim.command(`edit ${file}`);
      const session = await startCliSession({
        cli,
        cwd: sandbox.workspace,
        home: sandbox.home,
        tmpDir: sandbox.tmpDir,
        qwenHome: sandbox.qwenHome,
        edit: { filePath: file, content: proposed },
        // The fake model would answer before the CLI has connected (a real one is slower): ask
        // for the edit once the CLI says it is connected to Neovim.
        promptAtStart: false,
      });
      started.session = session;
      // Typed too early, even `/ide status` goes to the model: wait until Neovim sees the CLI.
      await waitFor(
        'Neovim to see the CLI connected',
        async () => ((await neovim.status()).clients.length === 1 ? true : undefined),
        120_000,
      );
      await session.waitForScreen(inputPattern);
      await session.submit(editPrompt({ filePath: file, content: proposed }));
      await waitFor(
        'the diff in Neovim',
        async () => ((await neovim.status()).diffs.length === 1 ? true : undefined),
        120_000,
      ).catch(async (error: unknown) => {
        throw new Error(`${String(error)}; the CLI's screen:\n${await session.screen()}`);
      });
      await neovim.input(':w<CR>');
      await session.waitForScreen((screen) => screen.includes(finalText), 120_000);
      assert.equal(await readFile(file, 'utf8'), proposed);
      await waitFor('the open buffer to show the written file', async () =>
        (await neovim.lines()).join('\n') + '\n' === proposed ? true : undefined,
      );
    },
  );
}
