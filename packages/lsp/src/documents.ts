import { TextDocument } from 'vscode-languageserver-textdocument';
import type {
  DidChangeTextDocumentParams,
  DidOpenTextDocumentParams,
  Position,
  Range,
} from 'vscode-languageserver';
import { documentKey, fileKey } from './file-identity.js';
import { codePointsIn, convertCharacter, type PositionEncoding } from './positions.js';

/** A place in a document as the engine counts it: line and character 1-based, in code points. */
export interface EnginePosition {
  line: number;
  character: number;
}

/**
 * The documents the editor has open, kept in step with its edits, each by the file it names
 * (`file-identity.ts`): an editor may spell one file's URI otherwise than Tandem does. Positions
 * arrive in the negotiated encoding; `TextDocument` counts UTF-16, so edits are converted before
 * they apply.
 */
export class OpenDocuments {
  private readonly documents = new Map<string, TextDocument>();
  /** The key of each URI the editor opened a document with, looked up at every keystroke. */
  private readonly keys = new Map<string, string>();

  constructor(private readonly encoding: PositionEncoding) {}

  /** The key of the document `uri` names (`documentKey`); of an open one, without a look at the disk. */
  keyOf(uri: string): string {
    return this.keys.get(uri) ?? documentKey(uri);
  }

  opened({ textDocument: { uri, languageId, version, text } }: DidOpenTextDocumentParams): void {
    const key = documentKey(uri);
    this.keys.set(uri, key);
    this.documents.set(key, TextDocument.create(uri, languageId, version, text));
  }

  changed({ textDocument: { uri, version }, contentChanges }: DidChangeTextDocumentParams): void {
    const document = this.get(uri);
    if (!document) return;
    // Each change applies to the text the previous one left.
    for (const change of contentChanges) {
      const utf16 =
        'range' in change ? { ...change, range: this.toUtf16(document, change.range) } : change;
      TextDocument.update(document, [utf16], version);
    }
  }

  closed(uri: string): void {
    const key = this.keyOf(uri);
    this.documents.delete(key);
    for (const [spelling, named] of this.keys) if (named === key) this.keys.delete(spelling);
  }

  text(uri: string): string | undefined {
    return this.get(uri)?.getText();
  }

  /** The text of the open document of the file `path`, if the editor has it open. */
  textOfFile(path: string): string | undefined {
    return this.documents.get(fileKey(path))?.getText();
  }

  /** The text of `line` (0-based) without its line break; `''` past the end. */
  line(uri: string, line: number): string {
    const document = this.get(uri);
    if (!document || line >= document.lineCount) return '';
    const text = document.getText({
      start: { line, character: 0 },
      end: { line: line + 1, character: 0 },
    });
    return text.replace(/\r?\n$|\r$/, '');
  }

  /** `position` as the engine counts it. */
  enginePosition(uri: string, position: Position): EnginePosition {
    const points = codePointsIn(this.line(uri, position.line), position.character, this.encoding);
    return { line: position.line + 1, character: points + 1 };
  }

  /** The text `range` covers; `undefined` for an empty range or a document not open. */
  textIn(uri: string, range: Range): string | undefined {
    const document = this.get(uri);
    if (!document) return undefined;
    const text = document.getText(this.toUtf16(document, range));
    return text === '' ? undefined : text;
  }

  private get(uri: string): TextDocument | undefined {
    return this.documents.get(this.keyOf(uri));
  }

  private toUtf16(document: TextDocument, range: Range): Range {
    const convert = ({ line, character }: Position): Position => ({
      line,
      character: convertCharacter(
        this.line(document.uri, line),
        character,
        this.encoding,
        'utf-16',
      ),
    });
    return { start: convert(range.start), end: convert(range.end) };
  }
}
