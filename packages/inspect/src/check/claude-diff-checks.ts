import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { basename, isAbsolute, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { CLAUDE_DIFF_ANSWERS } from '@tandem/core';
import { ClaudeCheckClient, type ToolAnswer } from './claude-check-client.js';
import { outcome, type CheckResult, type CheckRule } from './check-report.js';
import type { CompanionAddress } from './check-client.js';
import { withinMs } from './diff-checks.js';
import type { Person } from './person.js';
import { REQUEST_MS } from './transport-checks.js';

export const CLAUDE_DIFF_RULES = {
  selection: {
    id: 'selection.changed',
    title: 'selection_changed names the selected lines, 0-based, with their text',
    severity: 'breaks',
    effect:
      'Claude Code shows "⧉ N lines selected" from start and end, and tells the model "The user selected the lines <start.line+1> to <end.line+1> from <filePath>:" (2.1.110: <start.line> to <end.line>) above the text: lines counted from 1 reach it one line off, and without start and end nothing does.',
    fix: 'Send `selection_changed {text, filePath, fileUrl, selection: {start, end, isEmpty}}` with lines and characters 0-based, `fileUrl` the file: URL of `filePath`, on every change.',
  },
  waits: {
    id: 'diffs.waits',
    title: 'openDiff waits for the user before it answers',
    severity: 'breaks',
    effect:
      'Claude Code takes the first answer as the user\'s: "TAB_CLOSED" writes the proposal unchanged, before the user has looked at it.',
    fix: 'Answer openDiff only once the user has accepted (FILE_SAVED) or rejected or closed the view (DIFF_REJECTED).',
  },
  saved: {
    id: 'diffs.saved',
    title: 'an accept answers FILE_SAVED with the text as the user left it',
    severity: 'breaks',
    effect:
      "Claude Code writes the second text of a FILE_SAVED answer as the whole file: without the user's edits they are lost, without a second text the edit fails.",
    fix: 'Answer `{content: [{type: "text", text: "FILE_SAVED"}, {type: "text", text: <the whole proposed side, with the user\'s edits>}]}`.',
  },
  rejected: {
    id: 'diffs.rejected',
    title: 'a reject (or a closed view) answers DIFF_REJECTED, never TAB_CLOSED',
    severity: 'breaks',
    effect:
      'Claude Code reads TAB_CLOSED as "accepted unchanged": it writes the proposal the user has just rejected.',
    fix: 'Answer `DIFF_REJECTED` when the user rejects the diff or closes its view.',
  },
  closeTab: {
    id: 'diffs.close-tab',
    title: 'close_tab closes the diff Claude Code answered in its terminal',
    severity: 'breaks',
    effect:
      'Claude Code sends close_tab {tab_name} once the user answered in its terminal and never answers the diff otherwise: the view stays open in the editor, and an answer given there later does nothing.',
    fix: "Close the view of the diff whose openDiff had that `tab_name` and answer that openDiff's call (DIFF_REJECTED).",
  },
  quit: {
    id: 'diffs.quit-rejects',
    title: 'quitting the editor answers every open diff DIFF_REJECTED (or closes the connection)',
    severity: 'breaks',
    effect:
      'Answered TAB_CLOSED or FILE_SAVED, Claude Code writes an edit nobody accepted; left unanswered on a live connection, it waits for ever.',
    fix: 'On shutdown answer each waiting openDiff DIFF_REJECTED, then close the connections.',
  },
  quitFiles: {
    id: 'diffs.quit-files',
    title: 'quitting the editor removes its lock file',
    severity: 'breaks',
    effect:
      "A Claude Code started later lists the dead companion in /ide, or (when the lock's pid lives on) connects to nothing.",
    fix: 'Remove the lock file before closing the listener.',
  },
} satisfies Record<string, CheckRule>;

const PROPOSAL = 'first line of the proposal\nsecond line\nlast line of the proposal\n';
const STEPS = 4;
/** An answer this soon, before the person was asked, is not the person's. */
const EARLY_MS = 1000;

/**
 * The selection and the diff round trips with a person at the editor, as Claude Code makes
 * them: each diff opens on a file that does not exist, named with a space and a non-ASCII letter.
 */
export async function checkClaudeDiffs(
  address: CompanionAddress,
  dir: string,
  lockFile: string | undefined,
  person: Person,
): Promise<{ selection: CheckResult[]; diffs: CheckResult[] }> {
  const client = await ClaudeCheckClient.open(address.port, address.token);
  const selection: CheckResult[] = [];
  const diffs: CheckResult[] = [];
  const path = (word: string) => join(dir, `tandem-check ${word} ü.txt`);
  try {
    await client.initialize(REQUEST_MS);

    // 1. A selection of two lines.
    const before = client.notifications.length;
    person.ask('select', 1, STEPS, 'select two or more whole lines of a saved file of this folder');
    const selected = await client.waitFor(
      (message) =>
        client.notifications.indexOf(message) >= before &&
        message.method === 'selection_changed' &&
        typeof message.params?.text === 'string' &&
        message.params.text.includes('\n'),
      person.limitMs,
    );
    selection.push(await selectionCheck(selected?.params));

    // 2. Accept, after an edit.
    const accept = path('accept');
    const accepting = openDiff(client, accept, 'accept', person.limitMs);
    const early = await withinMs(accepting, EARLY_MS);
    diffs.push(
      outcome(
        CLAUDE_DIFF_RULES.waits,
        early === undefined,
        early === undefined
          ? `no answer before the person acted`
          : `answered before the person was asked: ${describe(early)}`,
      ),
    );
    person.ask(
      'accept',
      2,
      STEPS,
      `add a line to the proposal for "${basename(accept)}", then accept it`,
    );
    diffs.push(savedCheck(await accepting));

    // 3. Reject.
    const reject = path('reject');
    const rejecting = openDiff(client, reject, 'reject', person.limitMs);
    const rejectedEarly = await withinMs(rejecting, EARLY_MS);
    if (rejectedEarly === undefined) {
      person.ask('reject', 3, STEPS, `reject the diff of "${basename(reject)}"`);
    }
    const rejected = await rejecting;
    diffs.push(
      outcome(
        CLAUDE_DIFF_RULES.rejected,
        rejected.texts[0] === CLAUDE_DIFF_ANSWERS.rejected,
        describe(rejected),
      ),
    );

    // The user answers in Claude Code's terminal: it closes the editor's tab.
    diffs.push(await closeTabCheck(client, path('terminal')));

    // 4. Quit the editor with a diff open.
    const quit = path('quit');
    const quitting = openDiff(client, quit, 'quit', person.limitMs);
    await withinMs(quitting, EARLY_MS);
    person.ask('quit', 4, STEPS, `quit the editor, leaving the diff of "${basename(quit)}" open`);
    const last = await quitting;
    diffs.push(
      outcome(
        CLAUDE_DIFF_RULES.quit,
        last.texts[0] === CLAUDE_DIFF_ANSWERS.rejected || last.error === CLOSED,
        last.error === CLOSED ? 'the connection closed' : describe(last),
      ),
    );
    if (lockFile) diffs.push(await lockGone(lockFile, person.limitMs));
    return { selection, diffs };
  } finally {
    await client.close();
  }
}

const CLOSED = 'the connection closed';

/** openDiff as Claude Code calls it; its answer, or why none came within the person's time. */
async function openDiff(
  client: ClaudeCheckClient,
  filePath: string,
  tabName: string,
  limitMs: number,
): Promise<ToolAnswer> {
  try {
    return await client.callTool(
      'openDiff',
      {
        old_file_path: filePath,
        new_file_path: filePath,
        new_file_contents: PROPOSAL,
        tab_name: `✻ [Claude Code] ${basename(filePath)} (${tabName}) ⧉`,
      },
      limitMs + REQUEST_MS,
    );
  } catch (error) {
    const message = (error as Error).message;
    return { texts: [], isError: true, error: message.startsWith(CLOSED) ? CLOSED : message };
  }
}

function describe(answer: ToolAnswer): string {
  if (answer.error) return `no answer: ${answer.error}`;
  const texts = answer.texts.map((text) => JSON.stringify(text.slice(0, 60)));
  return `${answer.isError ? 'an error: ' : ''}[${texts.join(', ')}]`;
}

function savedCheck(answer: ToolAnswer): CheckResult {
  const [first, text] = answer.texts;
  const lines = PROPOSAL.split('\n').filter(Boolean);
  const edited =
    typeof text === 'string' &&
    text !== PROPOSAL &&
    text.includes(lines[0]!) &&
    text.includes(lines[lines.length - 1]!);
  return outcome(
    CLAUDE_DIFF_RULES.saved,
    first === CLAUDE_DIFF_ANSWERS.accepted && edited,
    first !== CLAUDE_DIFF_ANSWERS.accepted
      ? describe(answer)
      : text === undefined
        ? 'FILE_SAVED without the text'
        : text === PROPOSAL
          ? 'FILE_SAVED with the proposal, without the edit'
          : edited
            ? `FILE_SAVED with ${text.length} characters, the edit included`
            : `FILE_SAVED with a fragment: ${JSON.stringify(text.slice(0, 60))}`,
  );
}

/**
 * Opens a diff, then closes its tab as Claude Code does after an answer in its terminal: the
 * companion answers close_tab, and the view it closes answers the waiting openDiff.
 */
async function closeTabCheck(client: ClaudeCheckClient, filePath: string): Promise<CheckResult> {
  const tabName = 'terminal';
  const opening = openDiff(client, filePath, tabName, REQUEST_MS);
  const early = await withinMs(opening, EARLY_MS);
  if (early) {
    return outcome(
      CLAUDE_DIFF_RULES.closeTab,
      false,
      `openDiff answered at once: ${describe(early)}`,
    );
  }
  const closed = await client
    .callTool(
      'close_tab',
      { tab_name: `✻ [Claude Code] ${basename(filePath)} (${tabName}) ⧉` },
      REQUEST_MS,
    )
    .catch((error: Error) => ({ texts: [], isError: true, error: error.message }) as ToolAnswer);
  if (closed.error)
    return outcome(CLAUDE_DIFF_RULES.closeTab, false, `close_tab: ${describe(closed)}`);
  const ended = await withinMs(opening, REQUEST_MS);
  return outcome(
    CLAUDE_DIFF_RULES.closeTab,
    ended !== undefined && ended.texts[0] !== CLAUDE_DIFF_ANSWERS.accepted && !ended.error,
    ended === undefined
      ? `close_tab answered ${describe(closed)}, but the diff is still open (its openDiff unanswered after ${REQUEST_MS / 1000} s)`
      : `close_tab answered ${describe(closed)}; the diff's openDiff then ${describe(ended)}`,
  );
}

/** The selection as Claude Code reads it, judged against the file it names. */
async function selectionCheck(params: Record<string, unknown> | undefined): Promise<CheckResult> {
  if (!params)
    return outcome(
      CLAUDE_DIFF_RULES.selection,
      false,
      'no selection_changed of several lines in time',
    );
  const { text, filePath, fileUrl, selection } = params as {
    text: string;
    filePath?: unknown;
    fileUrl?: unknown;
    selection?: {
      start?: { line?: unknown; character?: unknown };
      end?: { line?: unknown; character?: unknown };
      isEmpty?: unknown;
    };
  };
  const problems: string[] = [];
  if (typeof filePath !== 'string' || !isAbsolute(filePath)) {
    problems.push(`filePath ${JSON.stringify(filePath)}`);
  } else if (fileUrl !== pathToFileURL(filePath).href) {
    problems.push(`fileUrl ${JSON.stringify(fileUrl)} is not the file: URL of filePath`);
  }
  const start = selection?.start;
  const end = selection?.end;
  const position = (p: typeof start) =>
    Number.isInteger(p?.line) &&
    Number.isInteger(p?.character) &&
    (p!.line as number) >= 0 &&
    (p!.character as number) >= 0;
  if (!position(start) || !position(end)) {
    problems.push(`selection ${JSON.stringify(selection)}`);
  } else if (selection?.isEmpty !== false) {
    problems.push(`isEmpty ${JSON.stringify(selection?.isEmpty)} for a selection`);
  }
  if (problems.length === 0 && typeof filePath === 'string') {
    const startLine = start!.line as number;
    // Claude Code counts the end's line out when the selection ends at its character 0.
    const endLine = (end!.line as number) - ((end!.character as number) === 0 ? 1 : 0);
    const fileLines = await readFile(filePath, 'utf8').then(
      (content) => content.split('\n'),
      () => undefined,
    );
    const selected = text.replace(/\n$/, '').split('\n');
    if (fileLines === undefined) {
      problems.push(`${filePath} cannot be read`);
    } else if (
      endLine - startLine + 1 !== selected.length ||
      !(fileLines[startLine] ?? '').includes(selected[0]!.trim()) ||
      !(fileLines[endLine] ?? '').includes(selected.at(-1)!.trim())
    ) {
      problems.push(
        `lines ${startLine} to ${endLine} (0-based) of ${basename(filePath)} are not the ${selected.length} lines of its text`,
      );
    }
  }
  return outcome(
    CLAUDE_DIFF_RULES.selection,
    problems.length === 0,
    problems.length === 0
      ? `${text.split('\n').length} lines of ${basename(String(filePath))}, from line ${String(start?.line)} (0-based)`
      : problems.join('; '),
  );
}

/** The lock file disappears, polled within the time limit. */
async function lockGone(file: string, limitMs: number): Promise<CheckResult> {
  const end = Date.now() + limitMs;
  while (existsSync(file) && Date.now() < end) {
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return outcome(
    CLAUDE_DIFF_RULES.quitFiles,
    !existsSync(file),
    existsSync(file) ? `${basename(file)} is still there` : `${basename(file)} removed`,
  );
}
