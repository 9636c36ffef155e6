import { pathToFileURL } from 'node:url';
import { wasTrimmed } from '../clients/context-limits.js';
import type { EditorContext } from '../context/context-tracker.js';

interface Position {
  line: number;
  character: number;
}

/** Claude Code's `selection_changed` params: lines and characters 0-based. */
export interface ClaudeSelection {
  text: string;
  filePath: string;
  fileUrl: string;
  selection: { start: Position; end: Position; isEmpty: boolean };
}

/**
 * The active file's selection as Claude Code takes it, or `undefined` when no file is active.
 * Claude Code shows `end.line - start.line + 1` lines from `start.line + 1`, one fewer when
 * `end.character` is 0, as VS Code's end after a line break is.
 *
 * The selection starts at the earlier of the cursor and its anchor (where it began) in every
 * editor, and ends where its text does from there: the later end is not used, since an editor
 * whose cursor sits on the last character selected (Vim's) and one whose cursor follows it
 * (VS Code's, Emacs's) place it differently. Only a text cut at the clients' limit ends at the
 * later end. An editor that does not tell the anchor has its cursor taken as the end, the start
 * counted back over the text's lines.
 */
export function claudeSelection(context: EditorContext): ClaudeSelection | undefined {
  const active = context.workspaceState.openFiles.find((file) => file.isActive);
  if (!active?.cursor) return undefined;
  const text = active.selectedText ?? '';
  const cursor = { line: active.cursor.line - 1, character: active.cursor.character };
  const { start, end } = active.anchor
    ? fromEnds(cursor, { line: active.anchor.line - 1, character: active.anchor.character }, text)
    : { start: countedBack(cursor, text), end: cursor };
  return {
    text,
    filePath: active.path,
    fileUrl: pathToFileURL(active.path).href,
    selection: { start, end: text ? end : start, isEmpty: text === '' },
  };
}

/** The selection of `text` between two ends (lines 0-based, characters 1-based). */
function fromEnds(
  one: Position,
  other: Position,
  text: string,
): { start: Position; end: Position } {
  const [first, last] =
    one.line < other.line || (one.line === other.line && one.character <= other.character)
      ? [one, other]
      : [other, one];
  const start = { line: first.line, character: Math.max(0, first.character - 1) };
  return { start, end: wasTrimmed(text) ? last : endOf(text, start) };
}

/** Where `text` ends when it begins at `start`: after its last character, 0-based. */
function endOf(text: string, start: Position): Position {
  const lines = text.split('\n');
  const last = [...lines.at(-1)!].length;
  if (lines.length === 1) return { line: start.line, character: start.character + last };
  return { line: start.line + lines.length - 1, character: last };
}

/** Where a selection of `text` ending at `end` starts: its first line's start when it spans lines. */
function countedBack(end: Position, text: string): Position {
  const lines = text.replace(/\n$/, '').split('\n');
  if (lines.length === 1) {
    return { line: end.line, character: Math.max(0, end.character - [...text].length) };
  }
  return { line: Math.max(0, end.line - (lines.length - 1)), character: 0 };
}
