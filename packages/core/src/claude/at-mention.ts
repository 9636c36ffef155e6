import { basename, isAbsolute } from 'node:path';
import type { LineRange, MentionAnswer } from '../editor-port.js';

/**
 * Claude Code's `at_mentioned` params: lines 0-based (it adds 1 and puts
 * `@<path relative to its folder>#L<start>-<end>` in its prompt, `#L<start>` for one line, the
 * bare `@<path>` without lines).
 */
export interface ClaudeMention {
  filePath: string;
  lineStart?: number;
  lineEnd?: number;
}

/**
 * The lines a selection covers, from its 0-based positions (as LSP and VS Code give them):
 * 1-based, `end` included, a selection that ends at a line's start leaving that line out;
 * `undefined` for an empty selection (the whole file is meant).
 */
export function selectionLines(selection: {
  start: { line: number; character: number };
  end: { line: number; character: number };
}): LineRange | undefined {
  const { start, end } = selection;
  if (start.line === end.line && start.character === end.character) return undefined;
  const last = end.character === 0 && end.line > start.line ? end.line : end.line + 1;
  return { start: start.line + 1, end: last };
}

/** Why the editor's mention cannot be sent (a sentence for the user), or `undefined`. */
export function mentionInvalidity(path: string, lines?: LineRange): string | undefined {
  if (!isAbsolute(path)) return `${path || 'this buffer'} is not a file on disk.`;
  if (!lines) return undefined;
  const { start, end } = lines;
  if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || start < 1 || end < start) {
    return `lines ${start}–${end} are no lines of ${basename(path)} (they count from 1, the first not after the last).`;
  }
  return undefined;
}

/** The editor's mention (1-based lines) as Claude Code takes it. */
export function claudeMention(path: string, lines?: LineRange): ClaudeMention {
  return lines
    ? { filePath: path, lineStart: lines.start - 1, lineEnd: lines.end - 1 }
    : { filePath: path };
}

/** What the user is told once `reached` Claude Code sessions received the mention. */
export function mentionAnswer(reached: number, path: string, lines?: LineRange): MentionAnswer {
  if (reached === 0) {
    return { ok: false, message: 'no Claude Code is connected to this editor.' };
  }
  const what = !lines
    ? basename(path)
    : lines.start === lines.end
      ? `line ${lines.start} of ${basename(path)}`
      : `lines ${lines.start}–${lines.end} of ${basename(path)}`;
  return { ok: true, message: `${what} sent to Claude Code.` };
}
