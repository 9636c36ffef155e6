import { statSync } from 'node:fs';
import type { EditorEvents } from '@tandem/core';
import type { Position, Range } from 'vscode-languageserver';
import type { OpenDocuments } from './documents.js';
import { filePath } from './editor-identity.js';

type ContextEvents = Pick<EditorEvents, 'fileOpened' | 'fileClosed' | 'cursorChanged'>;

/**
 * Editor facts from LSP traffic: the open files from `didOpen`/`didClose` (files on disk only,
 * never a proposal), the cursor and selection from the position-bearing requests a client sends
 * as the cursor moves. The document of the latest one is the active file.
 */
export class ContextFeed {
  /** The latest selection, so that a request at its end (a highlight) does not end it. */
  private selection: { uri: string; range: Range } | undefined;

  constructor(
    private readonly events: ContextEvents,
    private readonly documents: OpenDocuments,
    private readonly isProposal: (uri: string) => boolean,
  ) {}

  opened(uri: string): void {
    const path = this.userFile(uri);
    if (path !== undefined && isFileOnDisk(path)) this.events.fileOpened(path);
  }

  closed(uri: string): void {
    const path = this.userFile(uri);
    if (path !== undefined) this.events.fileClosed(path);
  }

  /** A request at one position (`hover`, `documentHighlight`, `signatureHelp`). */
  cursorAt(uri: string, position: Position): void {
    const kept = this.selection;
    if (kept?.uri === uri && (same(kept.range.end, position) || same(kept.range.start, position))) {
      return;
    }
    this.report(uri, { start: position, end: position });
  }

  /** A request with the selection's range (`codeAction`); an empty range is the cursor alone. */
  selected(uri: string, range: Range): void {
    this.report(uri, range);
  }

  private report(uri: string, range: Range): void {
    const path = this.userFile(uri);
    if (path === undefined) return;
    const selectedText = this.documents.textIn(uri, range);
    this.selection = selectedText === undefined ? undefined : { uri, range };
    const cursor = this.documents.enginePosition(uri, range.end);
    this.events.cursorChanged(path, cursor.line, cursor.character, selectedText);
  }

  private userFile(uri: string): string | undefined {
    return this.isProposal(uri) ? undefined : filePath(uri);
  }
}

function same(a: Position, b: Position): boolean {
  return a.line === b.line && a.character === b.character;
}

function isFileOnDisk(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}
