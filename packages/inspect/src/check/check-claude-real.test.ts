/**
 * The judge of `tandem check --cli claude`'s diff messages: the real Claude Code binary (the
 * newest, or `TANDEM_CLAUDE=oldest`; offline, in tmux, against the fake Messages API) against
 * the planted-defect companion.
 * Without a defect a reject leaves the file as it was; with each defect whose effect a user
 * sees, the file gets what the check's message says. (The lock file's pid is judged against the
 * binary by doctor's test, claude-prediction-whole-cli.test.ts.)
 */
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, it } from 'node:test';
import {
  claudeCodeMissing,
  missing,
  Sandbox,
  startClaudeCode,
  waitFor,
  waitUntil,
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

// The newest only in CI; TANDEM_CLAUDE=oldest runs 2.1.110 (it behaves the same here).
const version = process.env.TANDEM_CLAUDE === 'oldest' ? 'oldest' : 'newest';
const skip = missing(['tmux'], claudeCodeMissing(version));

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
        const sandbox = new Sandbox();
        const file = path.join(sandbox.workspace, 'notes.txt');
        await writeFile(file, ORIGINAL);
        const companion = await BrokenClaudeCompanion.start(defect ? [defect] : [], {
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
        try {
          await waitUntil('Claude Code connected', () => companion.listening.size > 0, 60_000);
          await run.pane.type(PROMPT);
          await waitUntil('the prompt typed', async () => (await screen()).includes(PROMPT));
          await run.pane.sendKeys('Enter');
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
              await waitUntil('the confirmation in the terminal', async () =>
                /Do you want to make this edit/.test(await screen()),
              );
              // A dialog drawn is not always listening yet: '1' again until it has gone.
              await waitUntil(
                'the edit approved in the terminal',
                async () => {
                  if (!/Do you want to make this edit/.test(await screen())) return true;
                  await run.pane.sendKeys('1');
                  return false;
                },
                60_000,
              );
              await waitUntil('close_tab for the diff', () =>
                companion.closedTabs.includes(diff.tabName),
              );
              assert.equal(companion.diffs.includes(diff), leftOpen);
            }
          }
          if (written === ORIGINAL) {
            await waitUntil('the turn over', async () =>
              /Rejected update to notes\.txt|User rejected/.test(await screen()),
            );
          } else {
            await waitUntil(
              'the file written',
              async () => (await readFile(file, 'utf8')) === written,
              60_000,
            );
          }
          assert.equal(await readFile(file, 'utf8'), written);
        } finally {
          await run.stop();
          await companion.stop();
          sandbox.remove();
        }
      });
    }
  },
);
