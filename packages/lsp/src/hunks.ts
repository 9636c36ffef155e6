import { diffLines } from 'diff';

/** One changed place of a proposal: its lines in the proposal, and what the file had there. */
export interface Hunk {
  /** The first proposed line of the change, 0-based (for a pure deletion: the line after it). */
  line: number;
  /** How many proposed lines the change spans; 0 for lines only removed. */
  lineCount: number;
  /** The file's lines the change replaces, without their line breaks; none for lines only added. */
  was: string[];
}

/** The changed places between the file (`null`: it does not exist) and the proposal. */
export function hunksBetween(oldContent: string | null, newContent: string): Hunk[] {
  const hunks: Hunk[] = [];
  let line = 0;
  let open: Hunk | undefined;
  for (const change of diffLines(oldContent ?? '', newContent)) {
    if (!change.added && !change.removed) {
      open = undefined;
      line += change.count;
      continue;
    }
    if (!open) {
      open = { line, lineCount: 0, was: [] };
      hunks.push(open);
    }
    if (change.added) {
      open.lineCount += change.count;
      line += change.count;
    } else {
      open.was.push(...splitLines(change.value));
    }
  }
  return hunks;
}

function splitLines(text: string): string[] {
  return text.replace(/\r?\n$/, '').split(/\r?\n/);
}
