/**
 * `tandem check --cli claude` against Tandem's engine (it passes every check) and against a
 * Claude Code companion with one planted defect at a time (it fails the check that names it).
 */
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, it } from 'node:test';
import { RecordingEditor, Sandbox, startEngine } from '@tandem/testkit';
import {
  BrokenClaudeCompanion,
  CLAUDE_DEFECTS,
  type ClaudeDefect,
} from './broken-claude-companion.fixture.js';
import {
  assertFailed,
  assertPassed,
  checkArgs,
  checkOwnCompanion,
  runCheck,
  type PersonScript,
} from './check-run.fixture.js';

/** The check each defect must fail. */
const FAILS: Record<ClaudeDefect, string> = {
  'foreign-folders': 'discovery.found',
  'no-ide-name': 'discovery.lock-fields',
  'dead-pid': 'discovery.lock-pid',
  'sse-transport': 'discovery.lock-transport',
  'world-readable': 'discovery.private',
  'no-subprotocol': 'transport.upgrade',
  'no-token': 'security.no-token',
  'any-token': 'security.wrong-token',
  'any-origin': 'security.origin',
  'any-host': 'security.host',
  'dies-on-refusal': 'security.still-serving',
  'refuses-initialize': 'transport.initialize',
  'no-close-tab': 'transport.tools',
  'plain-diagnostics': 'transport.diagnostics',
  'one-based-selection': 'selection.changed',
  'answers-at-once': 'diffs.waits',
  'saves-proposal': 'diffs.saved',
  'tab-closed-on-reject': 'diffs.rejected',
  'ignores-close-tab': 'diffs.close-tab',
  'quit-closes-tabs': 'diffs.quit-rejects',
  'quit-leaves-lock': 'diffs.quit-files',
};

/** The sections whose checks need the person: their defects run with --interactive. */
const INTERACTIVE = /^(selection|diffs)\./;

const EDIT = 'a line the person added\n';

/** The person at the broken companion's "editor", doing what each prompt asks. */
function personAt(companion: BrokenClaudeCompanion): PersonScript {
  return async (key) => {
    if (key === 'select') return companion.select();
    if (key === 'quit') return companion.stop();
    // A companion that answered at once has no diff left to answer.
    const diff = companion.newestDiff();
    if (key === 'accept' && diff) companion.accept(diff, `${diff.proposal}${EDIT}`);
    if (key === 'reject' && diff) companion.reject(diff);
  };
}

// A defect that keeps a diff waiting waits out a time limit: each case has folders of its own,
// so they wait side by side.
describe('tandem check --cli claude finds each planted defect', { concurrency: 6 }, () => {
  function check(defects: ClaudeDefect[]) {
    return checkOwnCompanion((folders) => BrokenClaudeCompanion.start(defects, folders), {
      cliArgs: ['--cli', 'claude'],
      interactive: defects.length === 0 || defects.some((d) => INTERACTIVE.test(FAILS[d])),
      person: personAt,
    });
  }

  it('a companion without defects passes every check, the selection and diffs included', async () => {
    const run = await check([]);
    assertPassed(run);
    assert.deepEqual(
      run.report?.sections.map((section) => section.name),
      ['Discovery', 'Security', 'Transport', 'Selection', 'Diffs'],
    );
  });

  for (const defect of CLAUDE_DEFECTS) {
    it(`${defect}: ${FAILS[defect]} fails`, async () => {
      const run = await check([defect]);
      assertFailed(run, FAILS[defect]);
      // A security hole alone does not fail the run: Claude Code works all the same.
      const { severity } = run
        .report!.sections.flatMap((section) => section.checks)
        .find((c) => c.id === FAILS[defect])!;
      if (severity !== 'breaks') assert.equal(run.status, 0);
    });
  }
});

describe('tandem check --cli claude against Tandem', () => {
  it("passes every check, the person answering through the engine's editor events", async () => {
    const sandbox = new Sandbox();
    const editor = new RecordingEditor();
    const engine = await startEngine(sandbox, editor);
    const selected = path.join(sandbox.workspace, 'selected.txt');
    await writeFile(selected, 'one\ntwo\nthree\nfour\n');
    const newest = () => [...editor.shown.values()].at(-1)!;
    try {
      const plain = await runCheck(['--cli', 'claude', '--cwd', sandbox.workspace], {
        env: sandbox.env(),
        cwd: sandbox.workspace,
      });
      assert.equal(plain.status, 0, plain.stdout);
      assert.match(plain.stdout, /^Companion: Test Editor · port \d+ \(used by Claude Code\)$/m);
      assert.match(plain.stdout, /✓ \d+ passed, 0 failed .*; diffs need --interactive$/m);
      const run = await runCheck(checkArgs(['--cli', 'claude'], sandbox.workspace, true), {
        env: sandbox.env(),
        cwd: sandbox.workspace,
        person: async (key) => {
          switch (key) {
            case 'select':
              engine.fileOpened(selected);
              engine.fileFocused(selected);
              // Lines 2 and 3 selected from the start of the second, the cursor after "three".
              return engine.cursorChanged(selected, 3, 5, 'two\nthree');
            case 'accept':
              assert.deepEqual(engine.diffAccepted(newest().id, `${newest().newContent}${EDIT}`), {
                ok: true,
              });
              return;
            case 'reject':
              assert.deepEqual(engine.diffRejected(newest().id), { ok: true });
              return;
            case 'quit':
              return engine.stop();
          }
        },
      });
      assertPassed(run);
      assert.deepEqual(
        run.report?.sections.map((section) => section.name),
        ['Discovery', 'Security', 'Transport', 'Selection', 'Diffs'],
      );
    } finally {
      await engine.stop();
      sandbox.remove();
    }
  });
});
