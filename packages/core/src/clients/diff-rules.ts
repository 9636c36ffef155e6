import { basename } from 'node:path';
import type { DiffClosedNotice, DiffCloseReason, DiffOutcomeNotice } from '../editor-port.js';

/**
 * What the CLIs do with a diff's answer that a frontend must not have to know (docs/clients.md, "Both").
 */

/**
 * Both CLIs read an accept whose content is empty as "write the proposal". An emptied proposal
 * can therefore not be accepted as such; returns why, or `undefined` when the accept is sound.
 */
export function emptyAcceptRefusal(proposal: string, content: string): string | undefined {
  if (content !== '' || proposal === '') return undefined;
  return (
    'An empty file cannot be accepted: the CLI would write its original proposal instead. ' +
    'Reject the diff, or leave some text in it.'
  );
}

/**
 * What to say when a view closes without the user's answer, whether they had edited the
 * proposal or not, and whether their edits can reach the file.
 */
export interface ClosingMessages {
  /** When the proposal was not edited: what happens to the file now. */
  message: string;
  /** When the user had edited the proposal: what happens to their edits. */
  editedMessage: string;
  /** Whether the edits can reach the file; when not, the frontend keeps them to copy. */
  keepsEdits: boolean;
}

/**
 * Why a view of `clientName`'s diff closed without an answer (`reason`), for people.
 *
 * `terminal`: the CLI closed its diff because the user answered in its terminal
 * (`suppressNotification`). Both CLIs close the same way after an approval and after a cancel;
 * which it was shows on disk a moment later (`terminalOutcome`). After an approval Gemini CLI
 * writes the text `closeDiff` returned (with the user's edits); Qwen Code writes its own
 * proposal, dropping them. Every other reason: nothing the user edited is written.
 */
export function closingMessages(reason: DiffCloseReason, clientName: string): ClosingMessages {
  if (reason !== 'terminal') return unansweredClosing(reason);
  const closed = `${clientName || 'The CLI'} closed this diff: you answered in its terminal.`;
  if (clientName === 'Gemini CLI') {
    return { message: closed, editedMessage: closed, keepsEdits: true };
  }
  const never = clientName === 'Qwen Code' ? 'It never writes' : 'It may not write';
  return {
    message: closed,
    editedMessage: `${closed} ${never} your edits: they are kept here to copy.`,
    keepsEdits: false,
  };
}

/**
 * What the user is told once a view of `clientName`'s diff of `filePath` closed for `reason`,
 * holding `viewText` against the CLI's `proposal`: the message, and their edits to keep when
 * those reach no file.
 */
export function closedNotice(
  reason: DiffCloseReason,
  clientName: string,
  filePath: string,
  proposal: string,
  viewText: string,
): DiffClosedNotice {
  const closing = closingMessages(reason, clientName);
  const edited = viewText !== proposal;
  return {
    reason,
    filePath,
    message: edited ? closing.editedMessage : closing.message,
    ...(edited && !closing.keepsEdits && { keptText: viewText }),
  };
}

/**
 * How long an approval in the terminal may take to reach the file after `closeDiff` returns
 * (Qwen Code may also write before: it does not wait for it). Measured with the whole CLIs in
 * tmux on a loaded two-core machine: Gemini CLI 0.61.0 wrote 173–478 ms after it, Qwen Code
 * 0.24.4 217–888 ms. A file still unchanged after more than five times the slowest was not
 * written: the proposal was cancelled.
 */
export const TERMINAL_WRITE_LIMIT_MS = 5_000;

/** What the engine saw on disk after a terminal answer (see `DiffCoordinator`). */
export type FileAfterAnswer =
  | { changed: false }
  /** `content` is `null` when the file was removed. */
  | { changed: true; content: string | null };

/**
 * What the CLI writes after an approval in its terminal, given the view's text as `closeDiff`
 * returned it: whether `content` (the file as found on disk) is that write. Gemini CLI writes the
 * view's text, or its proposal when that text is empty, and restores the file's CRLF line
 * endings; Qwen Code writes its proposal. Another CLI may do either.
 */
export function isTerminalApprovalWrite(
  clientName: string,
  content: string,
  viewText: string,
  proposal: string,
): boolean {
  const writes = {
    'Gemini CLI': [viewText || proposal],
    'Qwen Code': [proposal],
  }[clientName] ?? [viewText, proposal];
  return writes.some((text) => sameText(text, content));
}

/**
 * One definite sentence on what became of a diff answered in the terminal, from what was found
 * on disk within `TERMINAL_WRITE_LIMIT_MS` of the close.
 */
export function terminalOutcome(
  clientName: string,
  filePath: string,
  after: FileAfterAnswer,
  viewText: string,
  proposal: string,
): DiffOutcomeNotice {
  const cli = clientName || 'The CLI';
  const named = clientName || 'the CLI';
  const file = basename(filePath);
  if (!after.changed) {
    return {
      kind: 'cancelled',
      filePath,
      message: `${file} was not changed: the proposal was cancelled in ${named}'s terminal.`,
    };
  }
  const { content } = after;
  if (content === null || !isTerminalApprovalWrite(clientName, content, viewText, proposal)) {
    return {
      kind: 'changed',
      filePath,
      message:
        `${file} ${content === null ? 'was removed' : 'changed'}, but not as ${named} writes ` +
        `it after an approval in its terminal: something else did it. Check the file.`,
    };
  }
  const edited = !sameText(viewText, proposal);
  if (edited && viewText !== '' && sameText(content, viewText)) {
    return {
      kind: 'approved',
      filePath,
      message: `${cli} wrote ${file} with your edits (approved in its terminal).`,
    };
  }
  // What matters first: a frontend may cut a long line to fit the screen.
  const wrote = `${cli} wrote its own proposal to ${file}`;
  const kept = closingMessages('terminal', clientName).keepsEdits
    ? ''
    : '; your edits were kept when the diff closed';
  return {
    kind: 'approved',
    filePath,
    message: edited
      ? `${wrote}, not your edits (approved in its terminal${kept}).`
      : `${wrote} (approved in its terminal).`,
  };
}

/** The same text, whatever its line endings (Gemini CLI restores a file's CRLF). */
function sameText(a: string, b: string): boolean {
  return a.replace(/\r\n/g, '\n') === b.replace(/\r\n/g, '\n');
}

/** Every other reason a view closes without an answer: nothing the user edited is written. */
function unansweredClosing(reason: Exclude<DiffCloseReason, 'terminal'>): ClosingMessages {
  const why = {
    withdrawn: 'The CLI withdrew this diff',
    replaced: 'The CLI proposed this file again: this diff is replaced by the new one',
    'client-left': 'The CLI that proposed this diff has gone',
    stopping: 'The editor companion stopped: this diff was rejected',
  }[reason];
  return {
    message: `${why}; the file stays as it was.`,
    editedMessage: `${why}; your edits are not written (they are kept here to copy).`,
    keepsEdits: false,
  };
}
