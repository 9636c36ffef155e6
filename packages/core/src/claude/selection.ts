import { pathToFileURL } from 'node:url';
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
 * The editors tell the engine the cursor and the selected text, not where the selection starts:
 * the cursor is taken as its end, the start counted back over the text's lines. Claude Code
 * shows `end.line - start.line + 1` lines (one fewer when `end.character` is 0) from
 * `start.line + 1`, so the end's character is the cursor's 1-based one: never 0.
 */
export function claudeSelection(context: EditorContext): ClaudeSelection | undefined {
  const active = context.workspaceState.openFiles.find((file) => file.isActive);
  if (!active?.cursor) return undefined;
  const text = active.selectedText ?? '';
  const end = { line: active.cursor.line - 1, character: active.cursor.character };
  const lines = text.replace(/\n$/, '').split('\n');
  const startLine = Math.max(0, end.line - (lines.length - 1));
  const start =
    lines.length === 1
      ? { line: end.line, character: Math.max(0, end.character - [...text].length) }
      : { line: startLine, character: 0 };
  return {
    text,
    filePath: active.path,
    fileUrl: pathToFileURL(active.path).href,
    selection: { start, end: text ? end : start, isEmpty: text === '' },
  };
}
