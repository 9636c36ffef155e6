import type { DiffClosing } from '../editor-port.js';

/**
 * What the CLIs do with a diff's answer that a frontend must not have to know (SPEC-NOTES §3).
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
 * The CLI closed its diff because the user answered in its terminal (`suppressNotification`).
 * Both CLIs close the same way after an approval and after a cancel, so the engine cannot say
 * which happened. After an approval Gemini CLI writes the text `closeDiff` returned (with the
 * user's edits); Qwen Code writes its own proposal, dropping them.
 */
export function terminalAnswerClosing(clientName: string): DiffClosing {
  const name = clientName || 'The CLI';
  const closed = `${name} closed this diff: you answered in its terminal.`;
  const cancelled = 'if you cancelled, the file stays as it was';
  if (clientName === 'Gemini CLI') {
    return {
      reason: 'terminal',
      message: `${closed} If you approved there, it writes the proposal; ${cancelled}.`,
      editedMessage:
        `${closed} If you approved there, it writes your edited text; ${cancelled} and ` +
        `your edits are not written (they are kept here to copy).`,
      keepsEdits: true,
    };
  }
  const writesProposal =
    clientName === 'Qwen Code' ? 'it writes its own proposal' : 'it may write its own proposal';
  return {
    reason: 'terminal',
    message: `${closed} If you approved there, ${writesProposal}; ${cancelled}.`,
    editedMessage:
      `${closed} Your edits are not written: if you approved there, ${writesProposal}; ` +
      `${cancelled}. Your edited text is kept here: copy it to apply it yourself.`,
    keepsEdits: false,
  };
}

/** Every other reason a view closes without an answer: nothing the user edited is written. */
export function unansweredClosing(reason: Exclude<DiffClosing['reason'], 'terminal'>): DiffClosing {
  const why = {
    withdrawn: 'The CLI withdrew this diff',
    replaced: 'The CLI proposed this file again: this diff is replaced by the new one',
    'client-left': 'The CLI that proposed this diff has gone',
    stopping: 'The editor companion stopped: this diff was rejected',
  }[reason];
  return {
    reason,
    message: `${why}; the file stays as it was.`,
    editedMessage: `${why}; your edits are not written (they are kept here to copy).`,
    keepsEdits: false,
  };
}
