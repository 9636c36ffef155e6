import { statSync } from 'node:fs';
import type { EditorEvents } from '@tandem/core';
import type { Position, Range } from 'vscode-languageserver';
import type { OpenDocuments } from './documents.js';
import { filePath } from './file-identity.js';

type ContextEvents = Pick<EditorEvents, 'fileOpened' | 'fileClosed' | 'cursorChanged'>;

/**
 * Editor facts from LSP traffic: the open files from `didOpen`/`didClose` (files on disk only,
 * never a proposal), the cursor and selection from the position-bearing requests a client sends
 * as the cursor moves. The document of the latest one is the active file.
 */
export class ContextFeed {
  constructor(
    private readonly events: ContextEvents,
    private readonly documents: OpenDocuments,
    private readonly isProposal: (uri: string) => boolean,
    /**
     * Whether the editor's cursor is a one-character selection (Kakoune's is): such a range is
     * the cursor, on that character, and no selection.
     */
    private readonly cursorIsACharacter = false,
  ) {}

  opened(uri: string): void {
    const path = this.userFile(uri);
    if (path !== undefined && isFileOnDisk(path)) this.events.fileOpened(path);
  }

  closed(uri: string): void {
    const path = this.userFile(uri);
    if (path !== undefined) this.events.fileClosed(path);
  }

  /**
   * A request at one position (`hover`, `documentHighlight`, `signatureHelp`). The clients that
   * send one with the selection's range too send it after this one, as the cursor settles.
   */
  cursorAt(uri: string, position: Position): void {
    this.report(uri, { start: position, end: position });
  }

  /** A request with the selection's range (`codeAction`); an empty range is the cursor alone. */
  selected(uri: string, range: Range): void {
    this.report(uri, range);
  }

  private report(uri: string, range: Range): void {
    const path = this.userFile(uri);
    if (path === undefined) return;
    let selectedText = this.documents.textIn(uri, range);
    let head = range.end;
    if (this.cursorIsACharacter && selectedText !== undefined && [...selectedText].length === 1) {
      selectedText = undefined;
      head = range.start;
    }
    const cursor = this.documents.enginePosition(uri, head);
    // A range has no direction: taken from its start, as the cursor is taken at its end.
    const anchor =
      selectedText === undefined ? undefined : this.documents.enginePosition(uri, range.start);
    this.events.cursorChanged(path, cursor.line, cursor.character, selectedText, anchor);
  }

  private userFile(uri: string): string | undefined {
    return this.isProposal(uri) ? undefined : filePath(uri);
  }
}

function isFileOnDisk(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}
