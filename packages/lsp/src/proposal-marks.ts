import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { DiffRequest } from '@tandem/core';
import { DiagnosticSeverity, type Diagnostic, type Range } from 'vscode-languageserver';
import { hunksBetween, type Hunk } from './hunks.js';
import { unitsIn, type PositionEncoding } from './positions.js';

/** Every diagnostic Tandem publishes names it as its source. */
export const SOURCE = 'tandem';
/** The code of the diagnostic that marks a proposal still waiting for the user's answer. */
export const PENDING_CODE = 'tandem.pending';
/** The code of the diagnostic that says what became of a proposal. */
export const ANSWERED_CODE = 'tandem.answered';

/** A changed place's "was" shows at most this many of the file's lines. */
const MAX_WAS_LINES = 12;

/**
 * The diagnostics of a pending proposal: how to answer it (on its first line), the user's
 * unsaved changes it does not contain, and each changed place, with what the file had there, as
 * a hint (editors without a diff view show what changed).
 */
export function pendingMarks(
  diff: DiffRequest,
  encoding: PositionEncoding,
  unsavedInEditor: boolean,
): Diagnostic[] {
  const lines = diff.newContent.split(/\r?\n/);
  const name = path.basename(diff.filePath);
  const what = diff.oldContent === null ? `a new file ${name}` : `a change to ${name}`;
  const pending = mark(
    lineRange(lines, 0, 1, encoding),
    DiagnosticSeverity.Information,
    `${diff.client.name} proposes ${what}: save this proposal to accept it (with your edits), ` +
      'close it without saving to reject it.',
    PENDING_CODE,
  );
  // A link to the file the proposal is for, where editors show one.
  pending.relatedInformation = [
    {
      location: {
        uri: pathToFileURL(diff.filePath).href,
        range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } },
      },
      message: `the file this proposal is for: ${diff.filePath}`,
    },
  ];
  const marks: Diagnostic[] = [pending];
  if (unsavedInEditor) {
    marks.push(
      mark(
        lineRange(lines, 0, 1, encoding),
        DiagnosticSeverity.Warning,
        `${name} has unsaved changes in the editor that this proposal does not contain. ` +
          `Tandem never writes ${name}: on accept, ${diff.client.name} writes this proposal ` +
          'to disk, and your editor keeps your unsaved text.',
      ),
    );
  }
  for (const hunk of hunksBetween(diff.oldContent, diff.newContent)) {
    marks.push(
      mark(
        lineRange(lines, hunk.line, hunk.lineCount, encoding),
        DiagnosticSeverity.Hint,
        wasMessage(hunk),
      ),
    );
  }
  return marks;
}

/** The one diagnostic of a proposal that is no longer pending: what became of it. */
export function answeredMark(message: string): Diagnostic[] {
  return [
    mark(
      { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } },
      DiagnosticSeverity.Information,
      message,
      ANSWERED_CODE,
    ),
  ];
}

function wasMessage(hunk: Hunk): string {
  if (hunk.was.length === 0) return 'Added: the file has nothing here.';
  const shown = hunk.was.slice(0, MAX_WAS_LINES);
  const more = hunk.was.length - shown.length;
  const text = shown.join('\n') + (more > 0 ? `\n… and ${more} more lines` : '');
  return `${hunk.lineCount === 0 ? 'Removed here' : 'Was'}:\n${text}`;
}

/** Lines `first` to `first + count - 1` of `lines`, whole; an empty count marks line `first`. */
function lineRange(
  lines: string[],
  first: number,
  count: number,
  encoding: PositionEncoding,
): Range {
  const start = Math.min(first, lines.length - 1);
  const last = Math.min(Math.max(start, first + count - 1), lines.length - 1);
  const lastLine = lines[last] as string;
  const end = count === 0 ? 0 : unitsIn(lastLine, [...lastLine].length, encoding);
  return { start: { line: start, character: 0 }, end: { line: last, character: end } };
}

function mark(
  range: Range,
  severity: DiagnosticSeverity,
  message: string,
  code?: string,
): Diagnostic {
  return { range, severity, message, source: SOURCE, ...(code && { code }) };
}
