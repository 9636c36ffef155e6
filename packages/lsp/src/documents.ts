import type {
  DidChangeTextDocumentParams,
  DidOpenTextDocumentParams,
  Position,
  Range,
} from 'vscode-languageserver';
import { documentKey, fileKey } from './file-identity.js';
import type { PositionEncoding } from './positions.js';
import { BlockText } from './text-blocks.js';

/** A place in a document as the engine counts it: line and character 1-based, in code points. */
export interface EnginePosition {
  line: number;
  character: number;
}

/**
 * The documents the editor has open, kept in step with its edits, each by the file it names
 * (`file-identity.ts`): an editor may spell one file's URI otherwise than Tandem does. Positions
 * arrive in the negotiated encoding; `BlockText` converts them from the nearest block, so a
 * keystroke on a line of megabytes costs what it costs on a short one.
 */
export class OpenDocuments {
  private readonly documents = new Map<string, BlockText>();
  /** The key of each URI the editor opened a document with, looked up at every keystroke. */
  private readonly keys = new Map<string, string>();

  constructor(private readonly encoding: PositionEncoding) {}

  /** The key of the document `uri` names (`documentKey`); of an open one, without a look at the disk. */
  keyOf(uri: string): string {
    return this.keys.get(uri) ?? documentKey(uri);
  }

  opened({ textDocument: { uri, text } }: DidOpenTextDocumentParams): void {
    const key = documentKey(uri);
    this.keys.set(uri, key);
    this.documents.set(key, new BlockText(text));
  }

  changed({ textDocument: { uri }, contentChanges }: DidChangeTextDocumentParams): void {
    const document = this.get(uri);
    if (!document) return;
    // Each change applies to the text the previous one left.
    for (const change of contentChanges) {
      if (typeof change.text !== 'string') throw new Error('Unknown change event received');
      if ('range' in change) {
        const { start, end } = change.range;
        document.splice(this.offsetAt(document, start), this.offsetAt(document, end), change.text);
      } else document.replace(change.text);
    }
  }

  closed(uri: string): void {
    const key = this.keyOf(uri);
    this.documents.delete(key);
    for (const [spelling, named] of this.keys) if (named === key) this.keys.delete(spelling);
  }

  text(uri: string): string | undefined {
    return this.get(uri)?.text();
  }

  /** The text of the open document of the file `path`, if the editor has it open. */
  textOfFile(path: string): string | undefined {
    return this.documents.get(fileKey(path))?.text();
  }

  /** `position` as the engine counts it. */
  enginePosition(uri: string, position: Position): EnginePosition {
    const points =
      this.get(uri)?.codePointsAt(position.line, position.character, this.encoding) ?? 0;
    return { line: position.line + 1, character: points + 1 };
  }

  /** The text `range` covers; `undefined` for an empty range or a document not open. */
  textIn(uri: string, range: Range): string | undefined {
    const document = this.get(uri);
    if (!document) return undefined;
    const text = document.slice(
      this.offsetAt(document, range.start),
      this.offsetAt(document, range.end),
    );
    return text === '' ? undefined : text;
  }

  private get(uri: string): BlockText | undefined {
    return this.documents.get(this.keyOf(uri));
  }

  private offsetAt(document: BlockText, { line, character }: Position): number {
    return document.offsetAt(line, character, this.encoding);
  }
}
