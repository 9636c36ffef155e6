/**
 * The whole-CLI scenarios every editor runs: the real Gemini CLI, Qwen Code and Claude Code in
 * tmux, against a fake model that proposes one edit of notes.txt. The CLI runs in a terminal of
 * the editor or in a tmux pane of its own (finding the editor by its discovery files alone;
 * Claude Code by `tandem env`'s `CLAUDE_CODE_SSE_PORT` or by `/ide`); the diff opens in the
 * editor; the user answers there or in the CLI's terminal, or quits the editor; the CLI writes
 * the file, or leaves it alone, and the editor shows what became of it.
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test, type TestContext } from 'node:test';
import { shellQuote } from '@tandem/command';
import {
  CLI_DISPLAY_NAMES,
  type CliCommand,
  type CliLaunchOptions,
  type CliName,
} from '../real-clients/cli-launch.js';
import {
  cliInSandbox,
  idlePattern,
  startCliSession,
  type CliSession,
} from '../real-clients/cli-session.js';
import {
  CLAUDE_CODE_VERSIONS,
  claudeCodeMissing,
  type ClaudeCodeVersion,
} from '../real-clients/claude-code.js';
import { finalText } from '../real-clients/proposed-edit.js';
import { missing } from '../needs.js';
import { REPO_ROOT } from '../repo-root.js';
import { Sandbox } from '../sandbox.js';
import { waitFor } from '../wait.js';
import type { CliEditor, CliScenarioDriver } from './cli-driver.js';

export type { CliEditor, CliScenarioDriver, EditorWithCli } from './cli-driver.js';

export type CliScenario =
  'accept' | 'reject' | 'approve-in-cli' | 'cancel-in-cli' | 'own-pane' | ClaudeOnlyScenario;

const original = 'first line\nsecond line\n';
// Tabs, quotes and non-ASCII, wide characters too: the file must get exactly these bytes.
const proposed = 'first line\n\tindented "quoted" line\nünïcödé ✓ 文件\n';
/** The longest a CLI, a model turn or the editor's answer may take on a busy machine. */
const LONG = 120_000;

interface Scene {
  sandbox: Sandbox;
  session: CliSession;
  editor: CliEditor;
  file: string;
  /** Whether the CLI runs in the editor's terminal (else in a pane of its own). */
  inEditor: boolean;
}

/**
 * A sandbox with notes.txt, and `cli`'s options there (`launch` changes them); what the scenario
 * starts is ended after it, the last started first.
 */
function prepare(t: TestContext, cli: CliName, launch: ScenarioLaunch = {}) {
  const sandbox = new Sandbox();
  const file = path.join(sandbox.workspace, 'notes.txt');
  writeFileSync(file, original);
  const cleanups: (() => Promise<void>)[] = [];
  t.after(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
    sandbox.remove();
  });
  const after = (cleanup: () => Promise<void>) => cleanups.push(cleanup);
  const options = {
    ...cliInSandbox(sandbox, cli, { filePath: file, content: proposed }),
    ...launch,
  };
  return { sandbox, file, after, options };
}

/** The CLI in a terminal of the editor, asked for the edit once the editor sees it. */
async function inEditor(t: TestContext, driver: CliScenarioDriver, cli: CliName): Promise<Scene> {
  const { sandbox, file, after, options } = prepare(t, cli);
  const { session, editor } = await driver.startWithCli(
    sandbox,
    { ...options, width: 160, height: 45 },
    file,
    after,
  );
  await session.askForEdit(async () => (await editor.clientNames()).length === 1);
  return { sandbox, session, editor, file, inEditor: true };
}

/**
 * The editor alone, and the CLI in a tmux pane of its own: nothing of the editor reaches it.
 * Gemini CLI and Qwen Code find the editor by its discovery files; Claude Code as `finds` says.
 */
async function inOwnPane(
  t: TestContext,
  driver: CliScenarioDriver,
  cli: CliName,
  { finds = 'port', launch }: { finds?: ClaudeFinds; launch?: ScenarioLaunch } = {},
): Promise<Scene> {
  const { sandbox, file, after, options } = prepare(t, cli, launch);
  const editor = await driver.start(sandbox, file);
  after(() => editor.close());
  const byPort = cli === 'claude' && finds === 'port';
  const session = await startCliSession({ ...options, ...(byPort && { command: afterTandemEnv }) });
  after(() => session.stop());
  if (cli === 'claude' && finds === 'ide')
    await pickByIdeCommand(session, driver.name.split(' ')[0] ?? driver.name);
  await session.askForEdit(async () => (await editor.clientNames()).length === 1);
  return { sandbox, session, editor, file, inEditor: false };
}

/** Waits until the editor shows the diff of the file (and, around the CLI, its hint). */
async function diffShown(driver: CliScenarioDriver, { session, editor, file, inEditor }: Scene) {
  await withScreen(
    session,
    waitFor(
      `the diff in ${driver.name}`,
      async () => (await editor.diffViews()).some((view) => view.filePath === file) || undefined,
      LONG,
    ),
  );
  if (inEditor) await session.waitForScreen(driver.diffHint);
}

async function turnOver(session: CliSession): Promise<void> {
  await session.waitForScreen((screen) => screen.includes(finalText), LONG);
}

async function diffClosed(
  driver: CliScenarioDriver,
  { editor, file, session }: Scene,
): Promise<void> {
  await withScreen(
    session,
    waitFor(
      `the diff in ${driver.name} to close`,
      async () =>
        (await editor.diffViews()).some((view) => view.filePath === file) ? undefined : true,
      LONG,
    ),
  );
}

/** `waiting`, whose failure shows the CLI's screen too. */
function withScreen<T>(session: CliSession, waiting: Promise<T>): Promise<T> {
  return waiting.catch(async (error: unknown) => {
    throw new Error(`${String(error)}; the CLI's screen:\n${await session.screen()}`);
  });
}

async function bufferShows(editor: CliEditor, file: string, text: string): Promise<void> {
  await waitFor('the open buffer to show the file as written', async () =>
    (await editor.bufferText(file)) === text ? true : undefined,
  );
}

/** Waits until the editor has told the user `text` (the engine watches the file first). */
async function told(driver: CliScenarioDriver, editor: CliEditor, text: string): Promise<void> {
  await waitFor(
    `"${text}" among ${driver.name}'s messages`,
    async () => ((await editor.messages()).includes(text) ? true : undefined),
    60_000,
  );
}

/** The user edits the diff and accepts it in the editor: the CLI writes exactly their text. */
async function editedAndAccepted(driver: CliScenarioDriver, scene: Scene): Promise<void> {
  await diffShown(driver, scene);
  await scene.editor.appendLine(scene.file, `added in ${driver.name}`);
  await scene.editor.accept(scene.file, driver.gestures.accept);
  await turnOver(scene.session);
  const edited = `${proposed}added in ${driver.name}\n`;
  assert.equal(readFileSync(scene.file, 'utf8'), edited);
  await bufferShows(scene.editor, scene.file, edited);
}

/** How the user answers in the CLI's terminal: inside the editor when the driver can go back. */
function answerInCli(t: TestContext, driver: CliScenarioDriver, cli: CliName) {
  return driver.backToCli ? inEditor(t, driver, cli) : inOwnPane(t, driver, cli);
}

const SCENARIOS: Record<
  Exclude<CliScenario, ClaudeOnlyScenario>,
  {
    title(driver: CliScenarioDriver): string;
    run(t: TestContext, driver: CliScenarioDriver, cli: CliName): Promise<void>;
  }
> = {
  accept: {
    title: (d) =>
      `in ${d.terminal}: an edit in the diff, ${d.gestures.accept}, and the CLI writes the edited file`,
    async run(t, driver, cli) {
      const scene = await inEditor(t, driver, cli);
      await diffShown(driver, scene);
      assert.ok((await scene.editor.clientNames()).includes(CLI_DISPLAY_NAMES[cli]));
      await scene.editor.appendLine(scene.file, 'edited in the diff');
      await scene.editor.accept(scene.file, driver.gestures.accept);
      await turnOver(scene.session);
      const edited = `${proposed}edited in the diff\n`;
      assert.equal(readFileSync(scene.file, 'utf8'), edited);
      await bufferShows(scene.editor, scene.file, edited);
    },
  },
  reject: {
    title: (d) =>
      `in ${d.terminal}: ${d.gestures.reject} in the diff, and the file stays as it was`,
    async run(t, driver, cli) {
      const scene = await inEditor(t, driver, cli);
      await diffShown(driver, scene);
      await scene.editor.reject(scene.file, driver.gestures.reject);
      await diffClosed(driver, scene);
      // The CLI takes the rejection: the diff's hint is gone and the CLI says so, or asks for the
      // next message; the file is unchanged.
      const rejected = driver.rejectedHint ?? idlePattern(cli);
      await scene.session.waitForScreen(
        (screen) => !driver.diffHint.test(screen) && rejected.test(screen),
        LONG,
      );
      assert.equal(readFileSync(scene.file, 'utf8'), original);
      await bufferShows(scene.editor, scene.file, original);
    },
  },
  'approve-in-cli': {
    title: (d) =>
      `${d.backToCli ? `in ${d.terminal}` : 'in a separate tmux pane'}: approved in the CLI after an edit in ${d.name}, and ${d.name} says what was written`,
    async run(t, driver, cli) {
      const scene = await answerInCli(t, driver, cli);
      await diffShown(driver, scene);
      await scene.editor.appendLine(scene.file, `added in ${driver.name}`);
      await driver.backToCli?.(scene.session);
      await scene.session.approveInTerminal(LONG);
      await diffClosed(driver, scene);
      await turnOver(scene.session);
      // Gemini CLI writes the text closeDiff returned (with the edit made in the editor); Qwen
      // Code and Claude Code write their own proposal (docs/clients.md, "Both").
      const edited = `${proposed}added in ${driver.name}\n`;
      assert.equal(readFileSync(scene.file, 'utf8'), cli === 'gemini' ? edited : proposed);
      await told(
        driver,
        scene.editor,
        cli === 'gemini'
          ? 'Tandem: Gemini CLI wrote notes.txt with your edits (approved in its terminal).'
          : `Tandem: ${CLI_DISPLAY_NAMES[cli]} wrote its own proposal to notes.txt, not your edits`,
      );
    },
  },
  'cancel-in-cli': {
    title: (d) =>
      `${d.backToCli ? `in ${d.terminal}` : 'in a separate tmux pane'}: cancelled in the CLI, and ${d.name} says the file was not changed`,
    async run(t, driver, cli) {
      const scene = await answerInCli(t, driver, cli);
      await diffShown(driver, scene);
      await driver.backToCli?.(scene.session);
      await scene.session.rejectInTerminal(LONG);
      await diffClosed(driver, scene);
      await told(
        driver,
        scene.editor,
        `Tandem: notes.txt was not changed: the proposal was cancelled in ${CLI_DISPLAY_NAMES[cli]}'s terminal.`,
      );
      assert.equal(readFileSync(scene.file, 'utf8'), original);
    },
  },
  'own-pane': {
    title: (d) =>
      `in a separate tmux pane finds ${d.name} by its discovery files; an edit and ${d.gestures.accept} there write the file`,
    async run(t, driver, cli) {
      await editedAndAccepted(driver, await inOwnPane(t, driver, cli));
    },
  },
};

// ── Claude Code only: finding the editor from a pane of its own, and the editor quitting ──

/** Claude Code's scenarios that the other CLIs do not run. */
export type ClaudeOnlyScenario = 'own-pane-by-ide' | 'quit-with-diff';

/** What a Claude Code scenario changes in how the CLI starts: its version, its mode. */
type ScenarioLaunch = Pick<CliLaunchOptions, 'claudeVersion' | 'approvalMode'>;

/** How Claude Code in a pane of its own finds the editor: `CLAUDE_CODE_SSE_PORT`, or `/ide`. */
type ClaudeFinds = 'port' | 'ide';

/** Tandem's own command line, as a user's shell runs it. */
const TANDEM = [process.execPath, path.join(REPO_ROOT, 'packages/cli/bin/tandem.js')];

/**
 * The pane's shell runs `tandem env`'s line first, as the user in another terminal would, so
 * that the CLI gets the editor's `CLAUDE_CODE_SSE_PORT`; a failing `tandem env` ends the pane.
 */
function afterTandemEnv(cli: CliCommand): string[] {
  const tandemEnv = [...TANDEM, 'env', '--shell', 'bash', '--cwd', cli.cwd].map((word) =>
    shellQuote(word),
  );
  return ['sh', '-c', `exports=$(${tandemEnv.join(' ')}) && eval "$exports" && ${cli.shellLine}`];
}

/**
 * `/ide` in Claude Code lists the editor by its name above "None" (which it marks as chosen);
 * the user moves up to the editor and picks it, then keeps connecting by hand (the first time,
 * Claude Code asks whether to connect at every start).
 */
export async function pickByIdeCommand(session: CliSession, editorName: string): Promise<void> {
  await session.waitForScreen(idlePattern('claude'), LONG);
  await session.submit('/ide');
  const listed = new RegExp(`Connect to an IDE[\\s\\S]*${editorName}[\\s\\S]*❯ .*None`);
  await session.waitForScreen(listed, LONG);
  await session.sendKeys('Up');
  await session.waitForScreen(new RegExp(`❯\\s+${editorName}\\b`));
  await session.sendKeys('Enter');
  const askAtStartup = /Connect to your IDE automatically\?[\s\S]*❯ No, connect with \/ide/;
  await session.waitForScreen(askAtStartup, LONG);
  await session.pressUntilGone('Enter', askAtStartup, LONG);
}

const CLAUDE_SCENARIOS: Record<
  ClaudeOnlyScenario,
  {
    title(driver: CliScenarioDriver): string;
    run(
      t: TestContext,
      driver: CliScenarioDriver,
      cli: CliName,
      launch: ScenarioLaunch,
    ): Promise<void>;
  }
> = {
  'own-pane-by-ide': {
    title: (d) =>
      `in a separate tmux pane finds ${d.name} by /ide; an edit and ${d.gestures.accept} there write the file`,
    async run(t, driver, cli, launch) {
      await editedAndAccepted(driver, await inOwnPane(t, driver, cli, { finds: 'ide', launch }));
    },
  },
  'quit-with-diff': {
    title: (d) =>
      `in a separate tmux pane: ${d.name} quits with the diff open; the CLI is not left waiting, no lock file is left`,
    async run(t, driver, cli, launch) {
      const scene = await inOwnPane(t, driver, cli, { launch });
      await diffShown(driver, scene);
      assert.ok(scene.sandbox.discoveryFiles().length > 0, 'the editor wrote its lock file');
      await scene.editor.quit();
      // The pending openDiff was answered (DIFF_REJECTED): Claude Code says the update was
      // rejected, ends the turn and asks for the next message; the file is unchanged.
      await scene.session.waitForScreen(
        (screen) =>
          /(User r|R)ejected update to notes\.txt/.test(screen) && idlePattern(cli).test(screen),
        LONG,
      );
      assert.equal(readFileSync(scene.file, 'utf8'), original);
      await waitFor('no lock file left', () =>
        scene.sandbox.discoveryFiles().length === 0 ? true : undefined,
      );
    },
  },
};

/**
 * Registers (with `node:test`) the whole-CLI scenarios for the editor of `driver`, each with both
 * CLIs, or only the `scenarios` and `clis` given. Call it at the top level of a test file.
 */
export function runCliScenarios(
  driver: CliScenarioDriver,
  only: {
    scenarios?: CliScenario[];
    clis?: CliName[];
    launch?: ScenarioLaunch;
    label?: string;
  } = {},
): void {
  const names = only.scenarios ?? (Object.keys(SCENARIOS) as CliScenario[]);
  for (const name of names) {
    for (const cli of only.clis ?? (['gemini', 'qwen'] as const)) {
      const scenario = { ...SCENARIOS, ...CLAUDE_SCENARIOS }[name];
      const shownAs = only.label ?? cli;
      test(`${shownAs} ${scenario.title(driver)}`, { skip: driver.skip, timeout: 300_000 }, (t) =>
        scenario.run(t, driver, cli, only.launch ?? {}),
      );
    }
  }
}

/**
 * Registers Claude Code's `scenarios` (by default accept and reject in the editor) for `driver`;
 * skipped with the reason `elsewhere` when it is not false, e.g. on an editor version that does
 * not run them. The newest Claude Code runs them with `--permission-mode default`; the oldest
 * (2.1.110) is started as a user starts it, without the flag: its own default asks.
 */
export function runClaudeScenarios(
  driver: CliScenarioDriver,
  elsewhere: string | false,
  scenarios: CliScenario[] = ['accept', 'reject'],
  version: ClaudeCodeVersion = 'newest',
): void {
  const skip = elsewhere || driver.skip || missing([], claudeCodeMissing(version));
  const oldest = version === 'oldest';
  runCliScenarios(
    { ...driver, skip },
    {
      scenarios,
      clis: ['claude'],
      ...(oldest && {
        launch: { claudeVersion: version, approvalMode: null },
        label: `claude ${CLAUDE_CODE_VERSIONS.oldest.version} (its default mode)`,
      }),
    },
  );
}
