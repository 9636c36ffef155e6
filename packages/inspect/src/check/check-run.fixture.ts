/**
 * Test-only: runs `tandem check` in this process, with a scripted person at the editor, and the
 * one test of `tandem check --interactive` against a real editor that every editor runs.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { PassThrough, Writable } from 'node:stream';
import { describe, it } from 'node:test';
import { Sandbox, waitFor, type AdapterDriver, type EditorUnderTest } from '@tandem/testkit';
import type { CheckReport } from './check-report.js';
import { checkCommand } from './check-command.js';

/** The folders a companion under test runs in: a sandbox's workspace and environment. */
export interface CompanionFolders {
  env: NodeJS.ProcessEnv;
  workspace: string;
}

/** `<cliArgs> --cwd <workspace> --json --time-limit 20`, and `--interactive` when asked. */
export function checkArgs(cliArgs: string[], workspace: string, interactive: boolean): string[] {
  return [
    ...cliArgs,
    '--cwd',
    workspace,
    '--json',
    '--time-limit',
    '20',
    ...(interactive ? ['--interactive'] : []),
  ];
}

/**
 * `tandem check <cliArgs> --json --time-limit 20` against a companion started in folders of its
 * own (so that cases wait out time limits side by side), the person played by `person`; the
 * companion is stopped and the folders removed afterwards.
 */
export async function checkOwnCompanion<Companion extends { stop(): Promise<unknown> }>(
  start: (folders: CompanionFolders) => Promise<Companion>,
  options: { cliArgs: string[]; interactive: boolean; person(companion: Companion): PersonScript },
): Promise<CheckRun> {
  const sandbox = new Sandbox();
  const { workspace } = sandbox;
  const env = sandbox.env();
  const companion = await start({ env, workspace });
  try {
    return await runCheck(checkArgs(options.cliArgs, workspace, options.interactive), {
      env,
      cwd: workspace,
      person: options.person(companion),
    });
  } finally {
    await companion.stop();
    sandbox.remove();
  }
}

/** What a person does when asked: `key` is the step (accept, reject, edit, empty, quit). */
export type PersonScript = (key: string, run: { pressEnter(): void }) => Promise<void> | void;

export interface CheckRun {
  status: number;
  stdout: string;
  stderr: string;
  /** The parsed `--json` report, when `--json` was given. */
  report?: CheckReport;
}

export async function runCheck(
  argv: string[],
  options: { env: NodeJS.ProcessEnv; cwd: string; person?: PersonScript },
): Promise<CheckRun> {
  const stdin = new PassThrough();
  let stdout = '';
  let stderr = '';
  const acting: Promise<void>[] = [];
  const pressEnter = () => stdin.write('\n');
  const io = {
    stdin,
    stdout: new Writable({
      write(chunk, _encoding, done) {
        stdout += String(chunk);
        done();
      },
    }),
    stderr: new Writable({
      write(chunk, _encoding, done) {
        const text = String(chunk);
        stderr += text;
        const key = /tandem check ▸ (\w+) /.exec(text)?.[1];
        if (key && options.person) {
          acting.push(Promise.resolve(options.person(key, { pressEnter })));
        }
        done();
      },
    }),
    env: options.env,
    cwd: options.cwd,
  };
  const status = await checkCommand(argv, io);
  await Promise.all(acting);
  return {
    status,
    stdout,
    stderr,
    ...(argv.includes('--json') && status !== 2 && { report: JSON.parse(stdout) as CheckReport }),
  };
}

/**
 * The checks that failed, as `id: detail`. The container rule is left out: it judges this
 * machine's terminals (it fails wherever `/.dockerenv` exists), not the companion.
 */
export function failures(report: CheckReport | undefined): string[] {
  return (report?.sections ?? [])
    .flatMap((section) => section.checks)
    .filter((check) => check.status === 'fail' && check.id !== 'discovery.container')
    .map((check) => `${check.id}: ${check.detail}`);
}

/**
 * That `run` failed the check `id`, saying what the CLI then does and how to fix it, with the
 * exit status its severity gives.
 */
export function assertFailed(run: CheckRun, id: string): void {
  const failed = failures(run.report);
  assert.ok(
    failed.some((line) => line.startsWith(`${id}:`)),
    `expected ${id} among the failures:\n${failed.join('\n')}\n${run.stderr}`,
  );
  const result = run
    .report!.sections.flatMap((section) => section.checks)
    .find((c) => c.id === id)!;
  assert.ok(result.effect && result.fix, 'a failure says what the CLI does and how to fix it');
  if (result.severity === 'breaks') assert.equal(run.status, 1);
}

/** That `run` passed: no check failed (the container rule aside), none was skipped, status 0. */
export function assertPassed(run: CheckRun): void {
  assert.deepEqual(failures(run.report), [], run.stderr);
  assert.equal(run.status, 0);
  assert.equal(run.report?.counts.skip, 0);
}

/**
 * `tandem check --interactive --json` in the sandbox's workspace and environment, the diffs
 * answered by `person`.
 */
export function runInteractiveCheck(
  sandbox: Sandbox,
  person: PersonScript,
  timeLimitSeconds = 60,
): Promise<CheckRun> {
  return runCheck(
    [
      '--cwd',
      sandbox.workspace,
      '--interactive',
      '--time-limit',
      String(timeLimitSeconds),
      '--json',
    ],
    { env: sandbox.env(), cwd: sandbox.workspace, person },
  );
}

/** That `run` passed (as `assertPassed` says) and went through every section, Diffs included. */
export function assertPassedEverySection(run: CheckRun): void {
  assertPassed(run);
  assert.deepEqual(
    run.report?.sections.map((section) => section.name),
    ['Discovery', 'Security', 'Transport', 'Sessions', 'Diffs'],
  );
}

/** The word in the name of the file each step's diff opens on. */
const FILE_WORD: Record<string, string> = {
  accept: 'accept',
  reject: 'reject',
  edit: 'close',
  empty: 'empty',
  quit: 'quit',
};

/**
 * What the person at the editor does for each step of `tandem check --interactive`, with the
 * editor's conformance steps and its first accept and reject gestures.
 */
async function answer(
  editor: EditorUnderTest,
  gestures: { accept: string; reject: string },
  key: string,
  pressEnter: () => void,
): Promise<void> {
  const word = FILE_WORD[key]!;
  const view = await waitFor(
    `the diff view of step ${key}`,
    async () =>
      (await editor.diffViews()).find((shown) => path.basename(shown.filePath).includes(word)),
    60_000,
  );
  const file = view.filePath;
  switch (key) {
    case 'accept':
      await editor.appendLine(file, 'a line the person added');
      return editor.accept(file, gestures.accept);
    case 'reject':
      return editor.reject(file, gestures.reject);
    case 'edit':
      await editor.appendLine(file, 'an edit left in the editor');
      return pressEnter();
    case 'empty': {
      await editor.editProposal(file, '');
      const before = await editor.messages();
      await editor.accept(file, gestures.accept);
      await waitFor('the refusal', async () =>
        /empty/i.test((await editor.messages()).slice(before.length)) ? true : undefined,
      );
      return editor.reject(file, gestures.reject);
    }
    case 'quit':
      return editor.quit();
  }
}

/**
 * Registers the test of `tandem check --interactive` against the editor `driver` starts: every
 * check passes, none is skipped, the diffs answered in the editor as a person would.
 */
export function describeCheckAgainst(
  driver: AdapterDriver,
  { timeLimitSeconds = 60, timeoutMs }: { timeLimitSeconds?: number; timeoutMs?: number } = {},
): void {
  const gestures = { accept: driver.gestures.accept[0]!, reject: driver.gestures.reject[0]! };
  describe(`tandem check against ${driver.name}`, { skip: driver.skip, timeout: timeoutMs }, () => {
    it('passes every check, the diffs answered in the editor', async (t) => {
      const sandbox = new Sandbox();
      const editor = await driver.start(sandbox);
      t.after(async () => {
        await editor.close();
        sandbox.remove();
      });
      const run = await runInteractiveCheck(
        sandbox,
        (key, { pressEnter }) => answer(editor, gestures, key, pressEnter),
        timeLimitSeconds,
      );
      assertPassed(run);
    });
  });
}
