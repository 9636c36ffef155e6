/**
 * The judge of `tandem check --cli claude`'s diff messages: the real Claude Code binary (the
 * newest, or `TANDEM_CLAUDE=oldest`; offline, in tmux, against the fake Messages API) against
 * the planted-defect companion.
 * Without a defect a reject leaves the file as it was; with each defect whose effect a user
 * sees, the file gets what the check's message says. A companion that does not agree the `mcp`
 * subprotocol is never connected to (by the newest), and a selection counted from 1 reaches the
 * model one line off. (The lock file's pid is judged against the binary by doctor's test,
 * claude-prediction-whole-cli.test.ts.)
 */
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, it } from 'node:test';
import {
  approveInTerminal,
  claudeCodeMissing,
  missing,
  Sandbox,
  startClaudeCode,
  waitFor,
  waitUntil,
  type ClaudeCodeRun,
} from '@tandem/testkit';
import { BrokenClaudeCompanion, type ClaudeDefect } from './broken-claude-companion.fixture.js';

const PROMPT = 'Please change beta in the notes';
const ORIGINAL = 'alpha\nbeta\ngamma\n';
const PROPOSAL = 'alpha\nBETA\ngamma\n';
const USER_TEXT = 'alpha\nthe user’s own line\ngamma\n';

interface Case {
  defect?: ClaudeDefect;
  /**
   * What the person does with the diff: in the editor, in Claude Code's terminal, or nothing
   * (it was answered at once).
   */
  act: 'accept' | 'reject' | 'terminal' | 'none';
  /** What the file holds afterwards. */
  written: string;
  /** After an answer in the terminal: the diff is still open in the editor. */
  leftOpen?: boolean;
}

const CASES: Case[] = [
  { act: 'reject', written: ORIGINAL },
  { defect: 'tab-closed-on-reject', act: 'reject', written: PROPOSAL },
  { defect: 'answers-at-once', act: 'none', written: PROPOSAL },
  { defect: 'saves-proposal', act: 'accept', written: PROPOSAL },
  { act: 'terminal', written: PROPOSAL, leftOpen: false },
  { defect: 'ignores-close-tab', act: 'terminal', written: PROPOSAL, leftOpen: true },
];

/** A question the fake model has no script for: it answers in words, and the turn ends. */
const QUESTION = 'Which lines did I select?';

// The newest only in CI; TANDEM_CLAUDE=oldest runs 2.1.110 (the same but where said below).
const version = process.env.TANDEM_CLAUDE === 'oldest' ? 'oldest' : 'newest';
const skip = missing(['tmux'], claudeCodeMissing(version));

/**
 * The companion selects `selected.txt`'s second and third lines, 0-based 1 to 2: the newest tells
 * the model the lines counted from 1, 2.1.110 the 0-based lines as they came.
 */
const FIRST_LINE_TOLD = version === 'newest' ? 2 : 1;
const SELECTIONS: { defect?: ClaudeDefect; shift: number }[] = [
  { shift: 0 },
  { defect: 'one-based-selection', shift: 1 },
];

/** The newest's runtime refuses a 101 that does not name the `mcp` subprotocol; 2.1.110's takes it. */
const REFUSES_NO_SUBPROTOCOL = version === 'newest';

interface Run {
  file: string;
  companion: BrokenClaudeCompanion;
  run: ClaudeCodeRun;
  screen(): Promise<string>;
  /** Types `text` at Claude Code's prompt and sends it. */
  prompt(text: string): Promise<void>;
  stop(): Promise<void>;
}

/** Claude Code started in a sandbox of its own, `CLAUDE_CODE_SSE_PORT` naming the companion. */
async function againstCompanion(defects: ClaudeDefect[]): Promise<Run> {
  const sandbox = new Sandbox();
  const file = path.join(sandbox.workspace, 'notes.txt');
  await writeFile(file, ORIGINAL);
  const companion = await BrokenClaudeCompanion.start(defects, {
    env: sandbox.env(),
    workspace: sandbox.workspace,
  });
  const run = await startClaudeCode({
    version,
    cwd: sandbox.workspace,
    dir: path.join(sandbox.root, 'claude-run'),
    claudeConfigDir: sandbox.claudeConfigDir,
    ssePort: companion.port,
    script: { prompt: PROMPT, filePath: file, oldString: 'beta', newString: 'BETA' },
  });
  const screen = () => run.pane.capture();
  return {
    file,
    companion,
    run,
    screen,
    prompt: (text) => run.pane.submit(text),
    stop: async () => {
      await run.stop();
      await companion.stop();
      sandbox.remove();
    },
  };
}

describe(
  `Claude Code ${version}, real, against the planted defects`,
  { skip, concurrency: 2 },
  () => {
    for (const { defect, act, written, leftOpen } of CASES) {
      const holds = written === PROPOSAL ? 'the proposal' : 'what it held';
      const name =
        act === 'terminal'
          ? `${defect ?? 'no defect'}: approved in the terminal, close_tab ${leftOpen ? 'leaves the diff open in the editor' : 'closes the diff in the editor'}`
          : `${defect ?? 'no defect'}: after "${act}" in the editor the file holds ${holds}`;
      it(name, async () => {
        const s = await againstCompanion(defect ? [defect] : []);
        const { companion } = s;
        try {
          await waitUntil('Claude Code connected', () => companion.listening.size > 0, 60_000);
          await s.prompt(PROMPT);
          if (act !== 'none') {
            const diff = await waitFor(
              'the diff in the editor',
              () => companion.newestDiff(),
              60_000,
            );
            assert.equal(diff.proposal, PROPOSAL);
            if (act === 'accept') companion.accept(diff, USER_TEXT);
            if (act === 'reject') companion.reject(diff);
            if (act === 'terminal') {
              await approveInTerminal(s.run.pane, 'claude');
              await waitUntil('close_tab for the diff', () =>
                companion.closedTabs.includes(diff.tabName),
              );
              assert.equal(companion.diffs.includes(diff), leftOpen);
            }
          }
          if (written === ORIGINAL) {
            await waitUntil('the turn over', async () =>
              /Rejected update to notes\.txt|User rejected/.test(await s.screen()),
            );
          } else {
            await waitUntil(
              'the file written',
              async () => (await readFile(s.file, 'utf8')) === written,
              60_000,
            );
          }
          assert.equal(await readFile(s.file, 'utf8'), written);
        } finally {
          await s.stop();
        }
      });
    }

    it(
      REFUSES_NO_SUBPROTOCOL
        ? 'no-subprotocol: answered 101 without it, Claude Code never connects and asks for the edit in its terminal alone'
        : 'no-subprotocol: answered 101 without it, Claude Code connects all the same',
      async () => {
        const s = await againstCompanion(['no-subprotocol']);
        const { companion } = s;
        try {
          if (!REFUSES_NO_SUBPROTOCOL) {
            await waitUntil('Claude Code connected', () => companion.listening.size > 0, 60_000);
            return;
          }
          await waitUntil('Claude Code to try the companion', () => companion.upgrades > 0, 60_000);
          await s.prompt(PROMPT);
          await approveInTerminal(s.run.pane, 'claude');
          await waitUntil(
            'the file written',
            async () => (await readFile(s.file, 'utf8')) === PROPOSAL,
            60_000,
          );
          await waitUntil('the editor shown disconnected', async () =>
            (await s.screen()).includes('Broken Editor disconnected'),
          );
          // Nothing reached the editor: no ide_connected, no diff opened, none closed.
          assert.equal(companion.listening.size, 0);
          assert.deepEqual(companion.diffs, []);
          assert.deepEqual(companion.closedTabs, []);
        } finally {
          await s.stop();
        }
      },
    );

    for (const { defect, shift } of SELECTIONS) {
      const told = `${FIRST_LINE_TOLD + shift} to ${FIRST_LINE_TOLD + shift + 1}`;
      it(`${defect ?? 'no defect'}: the model is told the user selected the lines ${told}`, async () => {
        const s = await againstCompanion(defect ? [defect] : []);
        const { companion } = s;
        try {
          await waitUntil('Claude Code connected', () => companion.listening.size > 0, 60_000);
          // It hears the selection once it has set the connection up: selected again until
          // it shows it.
          await waitFor(
            'Claude Code to show the selection',
            async () => {
              if (/2 lines selected/.test(await s.screen())) return true;
              companion.select();
              return undefined;
            },
            60_000,
            500,
          );
          await s.prompt(QUESTION);
          const selected = await waitFor(
            'the selection told the model with the question',
            () =>
              s.run.model.requests
                .filter((texts) => texts.some((text) => text.includes(QUESTION)))
                .flat()
                .find((text) => text.includes('The user selected the lines')),
            60_000,
          );
          const lines = /The user selected the lines (\d+ to \d+) from .*selected\.txt:/.exec(
            selected,
          );
          assert.equal(lines?.[1], told, selected);
          // The text is passed on as sent: only the line numbers move.
          assert.ok(selected.includes('two\nthree'), selected);
        } finally {
          await s.stop();
        }
      });
    }
  },
);
