import { statSync } from 'node:fs';
import { MAX_OPEN_FILES, trimSelection } from '../clients/context-limits.js';
import type { EditorEvents, TextPosition } from '../editor-port.js';

interface TrackedFile {
  /** When the file was last focused (or opened, if never focused): the clients sort by it. */
  timestamp: number;
}

/** One open file as the CLIs see it; only the active file has a cursor and a selection. */
export interface ContextFile {
  path: string;
  timestamp: number;
  isActive?: boolean;
  cursor?: TextPosition;
  selectedText?: string;
  /**
   * The selection's other end from the cursor, where the editor tells it. Claude Code's alone:
   * Gemini CLI's and Qwen Code's context has no such field (`contextNotification`).
   */
  anchor?: TextPosition;
}

/** What the editor shows, newest file first, within the clients' limits. */
export interface EditorContext {
  workspaceState: { openFiles: ContextFile[]; isTrusted?: boolean };
}

interface Cursor {
  line: number;
  character: number;
  selectedText?: string;
  anchor?: TextPosition;
}

/**
 * Turns editor events into one normalized `EditorContext`: newest first, only files that exist on
 * disk, the active file alone carrying cursor and selection, trimmed to the clients' limits so
 * that what the CLI keeps is exactly what was sent.
 */
export class ContextTracker {
  private readonly files = new Map<string, TrackedFile>();
  private active: string | undefined;
  private cursor: Cursor | undefined;
  private trusted: boolean | undefined;
  private lastTimestamp = 0;

  constructor(private readonly onChange: () => void) {}

  fileOpened(path: string): void {
    if (this.files.has(path)) return;
    this.files.set(path, { timestamp: this.now() });
    this.onChange();
  }

  fileClosed(path: string): void {
    if (!this.files.delete(path)) return;
    if (this.active === path) {
      this.active = undefined;
      this.cursor = undefined;
    }
    this.onChange();
  }

  fileFocused(path: string): void {
    if (this.active === path && this.files.has(path)) return;
    this.files.set(path, { timestamp: this.now() });
    if (this.active !== path) this.cursor = undefined;
    this.active = path;
    this.onChange();
  }

  cursorChanged(
    ...[path, line, character, selectedText, anchor]: Parameters<EditorEvents['cursorChanged']>
  ): void {
    if (this.active !== path) this.fileFocused(path);
    const next: Cursor = {
      line,
      character,
      ...(selectedText ? { selectedText, ...(anchor ? { anchor } : {}) } : {}),
    };
    if (
      this.cursor?.line === next.line &&
      this.cursor.character === next.character &&
      this.cursor.selectedText === next.selectedText &&
      this.cursor.anchor?.line === next.anchor?.line &&
      this.cursor.anchor?.character === next.anchor?.character
    ) {
      return;
    }
    this.cursor = next;
    this.onChange();
  }

  /** `undefined` means the editor does not know, and the CLI keeps its own decision. */
  trustChanged(isTrusted: boolean | undefined): void {
    if (this.trusted === isTrusted) return;
    this.trusted = isTrusted;
    this.onChange();
  }

  snapshot(): EditorContext {
    const openFiles: ContextFile[] = [];
    const newestFirst = [...this.files].sort(([, a], [, b]) => b.timestamp - a.timestamp);
    for (const [path, { timestamp }] of newestFirst) {
      if (openFiles.length === MAX_OPEN_FILES) break;
      if (!isFileOnDisk(path)) continue;
      const file: ContextFile = { path, timestamp };
      if (path === this.active) {
        file.isActive = true;
        if (this.cursor) {
          file.cursor = { line: this.cursor.line, character: this.cursor.character };
          if (this.cursor.selectedText) file.selectedText = trimSelection(this.cursor.selectedText);
          if (this.cursor.anchor) file.anchor = { ...this.cursor.anchor };
        }
      }
      openFiles.push(file);
    }
    return {
      workspaceState: {
        openFiles,
        ...(this.trusted === undefined ? {} : { isTrusted: this.trusted }),
      },
    };
  }

  /** Strictly increasing, so that two events in one millisecond still order correctly. */
  private now(): number {
    this.lastTimestamp = Math.max(Date.now(), this.lastTimestamp + 1);
    return this.lastTimestamp;
  }
}

function isFileOnDisk(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}
