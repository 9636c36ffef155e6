import { existsSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { ClientKind } from '../doctor/prediction.js';
import { CheckClient, type CompanionAddress, type Received } from './check-client.js';
import { outcome, skipped, type CheckResult, type CheckRule } from './check-report.js';
import type { Person } from './person.js';
import { REQUEST_MS, validity } from './transport-checks.js';

export const DIFF_RULES = {
  open: {
    id: 'diffs.open',
    title: 'openDiff opens the diff without an error',
    severity: 'breaks',
    effect:
      'Both clients take an error reply (`isError`, or no such tool) as a failure to open: the diff is settled at once with that error, the CLI asks in the terminal only, and an answer given later in the editor is ignored.',
    fix: 'Show the diff and return `{content: []}`; report trouble in the editor, not in the reply.',
  },
  openAtOnce: {
    id: 'diffs.open-at-once',
    title: 'openDiff answers at once, before the user decides, with empty content',
    severity: 'advice',
    effect:
      "Both clients take the outcome from the ide/diffAccepted or ide/diffRejected notification alone and ignore the reply's content, so a late reply works — until the clients' 10-minute request timeout: a diff left open that long is then settled as an error, and the answer given after it is ignored.",
    fix: 'Show the diff, then return `{content: []}` at once; send the outcome later as a notification.',
  },
  accepted: {
    id: 'diffs.accepted',
    title: 'an accept arrives as ide/diffAccepted with the path echoed byte for byte',
    severity: 'breaks',
    effect:
      'The CLI matches the notification by the exact filePath string it sent: any other string leaves its diff pending for ever, and its diff mutex blocks every later diff.',
    fix: 'Keep the filePath exactly as the CLI sent it (no normalising, no realpath) and echo it in the notification.',
  },
  fullContent: {
    id: 'diffs.full-content',
    title: 'ide/diffAccepted carries the full edited text',
    severity: 'breaks',
    effect:
      "The CLI writes `content` as the whole file: a fragment or the original proposal loses the user's edits.",
    fix: 'Send the whole text of the proposed side as the user left it.',
  },
  noWrite: {
    id: 'diffs.no-write',
    title: 'the companion does not write the file',
    severity: 'breaks',
    effect:
      'Both CLIs write the file themselves after an accept, judging it by what they saw before: when the companion has written it first, Qwen Code\'s write fails ("File … has not been read in this session") and its model is told the edit failed; Gemini CLI tells its model "No changes detected".',
    fix: 'Leave writing to the CLI: send the accepted text in ide/diffAccepted and nothing else.',
  },
  rejected: {
    id: 'diffs.rejected',
    title: 'a reject arrives as ide/diffRejected with the path echoed',
    severity: 'breaks',
    effect:
      'The CLI keeps waiting on the diff, and no later diff of that CLI session reaches the editor.',
    fix: 'Send `ide/diffRejected {filePath}` (the exact string) when the user rejects or closes the view.',
  },
  closeJson: {
    id: 'diffs.close-json',
    title: 'closeDiff returns {"content": …} as JSON, with the edits',
    severity: 'breaks',
    effect:
      "The clients read `JSON.parse(text).content`: with plain text the client gets no content back, and the user's edits in the editor are lost when they approve in the terminal.",
    fix: 'Return one text part whose text is `JSON.stringify({content: <current text of the proposed side>})`.',
  },
  suppress: {
    id: 'diffs.close-suppress',
    title: 'closeDiff with suppressNotification sends nothing',
    severity: 'breaks',
    effect:
      'When the user answers in the terminal, the CLI sends closeDiff with suppressNotification, then settles the diff itself. A notification that reaches it before the reply settles the diff first: Gemini CLI then cancels the edit the user has just approved in its terminal ("Request cancelled."); Qwen Code goes on with the answer given in its terminal.',
    fix: 'After closeDiff with `suppressNotification: true`, send no notification for that diff.',
  },
  emptyAccept: {
    id: 'diffs.empty-accept',
    title: 'accepting an emptied proposal is refused in the editor',
    severity: 'breaks',
    effect:
      'Both CLIs read `content: ""` as "use the original proposal": the CLI writes what the user deleted.',
    fix: 'Refuse to accept an emptied proposal (say why in the editor); the user can reject instead.',
  },
  quitRejects: {
    id: 'diffs.quit-rejects',
    title: 'quitting the editor rejects every open diff',
    severity: 'breaks',
    effect:
      "The CLI's diff mutex stays held: no later diff of that CLI session ever reaches any editor.",
    fix: 'On shutdown send ide/diffRejected for every open diff first, then close the sessions.',
  },
  quitFiles: {
    id: 'diffs.quit-files',
    title: 'quitting the editor removes every discovery file',
    severity: 'breaks',
    effect:
      'A CLI started later picks the dead companion and reports "Failed to connect to IDE companion extension".',
    fix: 'Remove the discovery files before closing the listener; never wait on open event streams to do it.',
  },
} satisfies Record<string, CheckRule>;

const PROPOSAL = 'first line of the proposal\nsecond line\nlast line of the proposal\n';
const STEPS = 5;

/**
 * The diff round trips with a person at the editor, as a CLI makes them: each diff opens on a
 * file that does not exist, named with a space and a non-ASCII letter so that the path echo is
 * tested byte for byte.
 */
export async function checkDiffs(
  address: CompanionAddress,
  kind: ClientKind,
  dir: string,
  discoveryFiles: string[],
  person: Person,
): Promise<CheckResult[]> {
  const checks: CheckResult[] = [];
  const client = await CheckClient.connect(address, kind, REQUEST_MS);
  const path = (word: string) => join(dir, `tandem-check ${word} ü.txt`);
  const answerFor = (filePath: string) =>
    client.waitFor(
      (n) => n.method.startsWith('ide/diff') && pathOf(n) === filePath,
      person.limitMs,
    );
  try {
    // 1. Accept, after an edit.
    const accept = path('accept');
    const opening = openDiff(client, accept, person.limitMs);
    const atOnce = await answeredAtOnce(opening);
    if (atOnce.answer && !atOnce.answer.opened) {
      checks.push(openCheck(atOnce.answer), skipped(DIFF_RULES.openAtOnce, 'no diff opened'));
      return checks;
    }
    person.ask(
      'accept',
      1,
      STEPS,
      `add a line to the proposal for "${basename(accept)}", then accept it`,
    );
    const accepted = await client.waitFor((n) => n.method.startsWith('ide/diff'), person.limitMs);
    // A reply held back until the user decided comes with the outcome.
    const late = atOnce.answer ?? (await withinMs(opening, REQUEST_MS));
    checks.push(
      late ? openCheck(late) : outcome(DIFF_RULES.open, false, 'no answer, even after the outcome'),
      atOnce.check,
      ...acceptChecks(accepted, accept),
    );

    // 2. Reject.
    const reject = path('reject');
    await withinMs(openDiff(client, reject, person.limitMs), REQUEST_MS);
    person.ask('reject', 2, STEPS, `reject the diff of "${basename(reject)}"`);
    const rejected = await answerFor(reject);
    checks.push(
      outcome(
        DIFF_RULES.rejected,
        rejected?.method === 'ide/diffRejected',
        rejected ? `${rejected.method} ${JSON.stringify(pathOf(rejected))}` : 'no answer in time',
      ),
    );

    // 3. Edit, then the CLI closes the diff (the user approved in the terminal).
    const close = path('close');
    await withinMs(openDiff(client, close, person.limitMs), REQUEST_MS);
    person.ask(
      'edit',
      3,
      STEPS,
      `add a line to the proposal for "${basename(close)}" without accepting it, then press Enter here`,
    );
    const pressed = await person.enter();
    checks.push(await closeCheck(client, close, pressed));

    // 4. An emptied proposal cannot be accepted.
    const empty = path('empty');
    await withinMs(openDiff(client, empty, person.limitMs), REQUEST_MS);
    person.ask(
      'empty',
      4,
      STEPS,
      `delete all the text of the proposal for "${basename(empty)}" and accept: the editor should refuse; then reject it`,
    );
    const emptied = await answerFor(empty);
    checks.push(
      outcome(
        DIFF_RULES.emptyAccept,
        emptied?.method === 'ide/diffRejected',
        emptied
          ? `${emptied.method}${emptied.method === 'ide/diffAccepted' ? ` with content ${JSON.stringify((emptied.params as { content?: unknown }).content)}` : ''}`
          : 'no answer in time',
      ),
    );
    // Notifications travel in order on one stream: anything closeDiff set off has arrived by now.
    const unwanted = client.received.find((n) => pathOf(n) === close);
    checks.push(
      outcome(
        DIFF_RULES.suppress,
        unwanted === undefined,
        unwanted ? `${unwanted.method} arrived after closeDiff` : 'nothing arrived',
      ),
    );

    // 5. Quit the editor with a diff open.
    const quit = path('quit');
    await withinMs(openDiff(client, quit, person.limitMs), REQUEST_MS);
    person.ask('quit', 5, STEPS, `quit the editor, leaving the diff of "${basename(quit)}" open`);
    const last = await answerFor(quit);
    checks.push(
      outcome(
        DIFF_RULES.quitRejects,
        last?.method === 'ide/diffRejected',
        last ? last.method : 'no answer before the companion went away',
      ),
    );
    checks.push(await filesGone(discoveryFiles, person.limitMs));
    checks.push(validity(client));
    return checks;
  } finally {
    await client.end();
  }
}

function pathOf(notification: Received): unknown {
  return (notification.params as { filePath?: unknown } | undefined)?.filePath;
}

/** The companion's reply to openDiff: how long it took, and whether the diff opened. */
interface OpenAnswer {
  opened: boolean;
  /** `{content: []}`, as the specification says. */
  empty: boolean;
  detail: string;
}

/**
 * Calls openDiff as the CLIs do; the reply may take as long as the person (a companion that
 * holds it until the user decides is judged by `answeredAtOnce`, not cut off).
 */
async function openDiff(
  client: CheckClient,
  filePath: string,
  limitMs: number,
): Promise<OpenAnswer> {
  const started = Date.now();
  try {
    const result = await client.callTool(
      'openDiff',
      { filePath, newContent: PROPOSAL },
      limitMs + REQUEST_MS,
    );
    const ms = Date.now() - started;
    const empty = Array.isArray(result.content) && result.content.length === 0;
    return {
      opened: !result.isError,
      empty,
      detail: `after ${ms} ms: ${JSON.stringify({ isError: result.isError, content: result.content })}`,
    };
  } catch (error) {
    return { opened: false, empty: false, detail: `no answer: ${(error as Error).message}` };
  }
}

function openCheck(answer: OpenAnswer): CheckResult {
  return outcome(DIFF_RULES.open, answer.opened, answer.detail);
}

/** Whether openDiff answered within REQUEST_MS, before the person is asked anything. */
async function answeredAtOnce(
  opening: Promise<OpenAnswer>,
): Promise<{ answer?: OpenAnswer; check: CheckResult }> {
  const answer = await withinMs(opening, REQUEST_MS);
  if (!answer) {
    return {
      check: outcome(
        DIFF_RULES.openAtOnce,
        false,
        `no answer within ${REQUEST_MS} ms (is it waiting for the user?)`,
      ),
    };
  }
  return { answer, check: outcome(DIFF_RULES.openAtOnce, answer.empty, answer.detail) };
}

/** What `promise` settles to within `ms`, else undefined. */
export async function withinMs<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

function acceptChecks(answer: Received | undefined, filePath: string): CheckResult[] {
  if (answer === undefined) {
    const none = 'no notification in time';
    return [outcome(DIFF_RULES.accepted, false, none), skipped(DIFF_RULES.fullContent, none)];
  }
  const echoed = pathOf(answer);
  const checks = [
    outcome(
      DIFF_RULES.accepted,
      answer.method === 'ide/diffAccepted' && echoed === filePath,
      `${answer.method} ${JSON.stringify(echoed)}${echoed === filePath ? '' : `, sent ${JSON.stringify(filePath)}`}`,
    ),
  ];
  const content = (answer.params as { content?: unknown }).content;
  if (answer.method !== 'ide/diffAccepted') {
    checks.push(skipped(DIFF_RULES.fullContent, `the answer was ${answer.method}`));
    return checks;
  }
  const lines = PROPOSAL.split('\n').filter(Boolean);
  const full =
    typeof content === 'string' &&
    content !== PROPOSAL &&
    content.includes(lines[0]!) &&
    content.includes(lines[lines.length - 1]!);
  checks.push(
    outcome(
      DIFF_RULES.fullContent,
      full,
      typeof content !== 'string'
        ? `content is ${JSON.stringify(content)}`
        : content === PROPOSAL
          ? 'content is the proposal without the edit'
          : full
            ? `${content.length} characters, edit included`
            : `content is a fragment: ${JSON.stringify(content.slice(0, 60))}`,
    ),
  );
  checks.push(
    outcome(
      DIFF_RULES.noWrite,
      !existsSync(filePath),
      existsSync(filePath) ? 'the file was written' : 'the file was left to the CLI',
    ),
  );
  return checks;
}

async function closeCheck(
  client: CheckClient,
  filePath: string,
  pressed: boolean,
): Promise<CheckResult> {
  let text: unknown;
  try {
    const result = await client.callTool(
      'closeDiff',
      { filePath, suppressNotification: true },
      REQUEST_MS,
    );
    text = (result.content as { type?: string; text?: string }[] | undefined)?.[0]?.text;
  } catch (error) {
    return outcome(DIFF_RULES.closeJson, false, `no answer: ${(error as Error).message}`);
  }
  let content: unknown;
  try {
    content = (JSON.parse(String(text)) as { content?: unknown }).content;
  } catch {
    return outcome(
      DIFF_RULES.closeJson,
      false,
      `not JSON: ${JSON.stringify(String(text).slice(0, 60))}`,
    );
  }
  if (typeof content !== 'string') {
    return outcome(DIFF_RULES.closeJson, false, `content is ${JSON.stringify(content)}`);
  }
  const edited = content !== PROPOSAL;
  return outcome(
    DIFF_RULES.closeJson,
    edited || !pressed,
    edited
      ? `{"content": …} with the edit (${content.length} characters)`
      : pressed
        ? '{"content": …} without the edit made in the editor'
        : '{"content": …} (no edit confirmed in time)',
  );
}

/** Every discovery file of the companion disappears, polled within the time limit. */
async function filesGone(files: string[], limitMs: number): Promise<CheckResult> {
  if (files.length === 0) {
    return skipped(DIFF_RULES.quitFiles, 'no discovery files known (--port)');
  }
  const end = Date.now() + limitMs;
  for (;;) {
    const left = files.filter((file) => existsSync(file));
    if (left.length === 0) {
      return outcome(DIFF_RULES.quitFiles, true, `${files.length} removed`);
    }
    if (Date.now() > end) {
      return outcome(DIFF_RULES.quitFiles, false, `still there: ${left.join(', ')}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
