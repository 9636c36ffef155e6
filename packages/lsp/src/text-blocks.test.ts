import assert from 'node:assert/strict';
import { test } from 'node:test';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { OpenDocuments } from './documents.js';
import { unitsIn, type PositionEncoding } from './positions.js';
import { BlockText } from './text-blocks.js';

/**
 * The model: the whole text in one string, read the way `tandem lsp` read it before blocks —
 * `vscode-languageserver-textdocument` for lines and UTF-16 offsets, each position's line walked
 * from its start to convert it.
 */
function codePointsIn(line: string, character: number, encoding: PositionEncoding): number {
  let units = 0;
  let points = 0;
  for (const char of line) {
    units += unitsIn(char, 1, encoding);
    if (units > character) break;
    points += 1;
  }
  return points;
}

function lineOf(document: TextDocument, line: number): string {
  if (line >= document.lineCount) return '';
  const text = document.getText({
    start: { line, character: 0 },
    end: { line: line + 1, character: 0 },
  });
  return text.replace(/\r?\n$|\r$/, '');
}

function modelOffset(
  document: TextDocument,
  line: number,
  character: number,
  encoding: PositionEncoding,
): number {
  const text = lineOf(document, line);
  const utf16 =
    encoding === 'utf-16'
      ? character
      : unitsIn(text, codePointsIn(text, character, encoding), 'utf-16');
  return document.offsetAt({ line, character: utf16 });
}

const ENCODINGS: PositionEncoding[] = ['utf-16', 'utf-32', 'utf-8'];
/** Every kind of character a count can stumble on, lone surrogates included. */
const PIECES = ['a', 'b', 'é', '文', '😀', '\r', '\n', '\r\n', '\ud83d', '\ude00', ' '];

/** A small seeded generator, so that a failure can be replayed. */
function randomFrom(seed: number) {
  let state = seed >>> 0 || 1;
  const next = (): number => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 2 ** 32;
  };
  const below = (n: number): number => Math.floor(next() * n);
  const text = (length: number): string =>
    Array.from({ length }, () => PIECES[below(PIECES.length)]).join('');
  return { below, text };
}

function randomPosition(random: ReturnType<typeof randomFrom>, document: TextDocument) {
  const line = random.below(document.lineCount + 3) - 1;
  const length = lineOf(document, line).length;
  const character = random.below(10) === 0 ? 2 ** 31 : random.below(length * 4 + 3) - 1;
  return { line, character };
}

test('blocks read and edit like one string, in every encoding, at every block boundary', () => {
  for (const encoding of ENCODINGS) {
    for (const blockSize of [2, 3, 5, 64]) {
      const random = randomFrom(blockSize * 7919 + encoding.length);
      let model = random.text(random.below(200));
      const blocks = new BlockText(model, blockSize);
      for (let round = 0; round < 2000; round++) {
        const document = TextDocument.create('file:///m', 'plaintext', 1, model);
        const context = `${encoding}, blocks of ${blockSize}, round ${round}`;
        for (let probe = 0; probe < 4; probe++) {
          const { line, character } = randomPosition(random, document);
          const where = `${context}, ${line}:${character}`;
          assert.equal(
            blocks.offsetAt(line, character, encoding),
            modelOffset(document, line, character, encoding),
            where,
          );
          assert.equal(
            blocks.codePointsAt(line, character, encoding),
            codePointsIn(lineOf(document, line), character, encoding),
            where,
          );
        }
        const from = random.below(model.length + 1);
        const to = random.below(5) === 0 ? random.below(model.length + 1) : from + random.below(4);
        const end = Math.min(to, model.length);
        assert.equal(
          blocks.slice(from, end),
          model.slice(Math.min(from, end), Math.max(from, end)),
        );
        const inserted =
          random.below(8) === 0 ? random.text(random.below(40)) : random.text(random.below(3));
        blocks.splice(from, end, inserted);
        model = model.slice(0, Math.min(from, end)) + inserted + model.slice(Math.max(from, end));
        assert.equal(blocks.text(), model, context);
      }
    }
  }
});

/**
 * `OpenDocuments` as it was: `TextDocument`, each position converted on its whole line. Its
 * lines are counted afresh after each edit: `TextDocument` counts them wrong after an edit on a
 * line past the end, where blocks count them right.
 */
class ModelDocuments {
  document: TextDocument;

  constructor(
    text: string,
    private readonly encoding: PositionEncoding,
  ) {
    this.document = TextDocument.create('file:///m', 'plaintext', 1, text);
  }

  change(range: { start: Position; end: Position }, text: string): void {
    const convert = ({ line, character }: Position): Position => ({
      line,
      character: document.positionAt(modelOffset(document, line, character, this.encoding))
        .character,
    });
    const { document } = this;
    const utf16 = { start: convert(range.start), end: convert(range.end) };
    TextDocument.update(document, [{ range: utf16, text }], 2);
    this.document = TextDocument.create('file:///m', 'plaintext', 1, document.getText());
  }
}

interface Position {
  line: number;
  character: number;
}

test('OpenDocuments keeps a long document exactly as before, over edits across lines and blocks', () => {
  const uri = 'file:///w/long.txt';
  for (const encoding of ENCODINGS) {
    const random = randomFrom(31 + encoding.length);
    // Long lines of several blocks, a few short ones, and CRLF.
    const text = [random.text(9000), 'x'.repeat(13000), '😀'.repeat(5000), random.text(300)].join(
      '\r\n',
    );
    const model = new ModelDocuments(text, encoding);
    const documents = new OpenDocuments(encoding);
    documents.opened({ textDocument: { uri, languageId: 'plaintext', version: 1, text } });
    for (let round = 0; round < 300; round++) {
      const start = randomPosition(random, model.document);
      const end =
        random.below(4) === 0
          ? randomPosition(random, model.document)
          : { line: start.line, character: start.character + random.below(3) };
      const inserted = random.text(random.below(random.below(10) === 0 ? 50 : 3));
      const range = { start, end };
      const context = `${encoding}, round ${round}, ${JSON.stringify(range)}`;
      assert.deepEqual(
        documents.enginePosition(uri, start),
        {
          line: start.line + 1,
          character:
            codePointsIn(lineOf(model.document, start.line), start.character, encoding) + 1,
        },
        context,
      );
      const covered = model.document.getText({
        start: model.document.positionAt(
          modelOffset(model.document, start.line, start.character, encoding),
        ),
        end: model.document.positionAt(
          modelOffset(model.document, end.line, end.character, encoding),
        ),
      });
      assert.equal(documents.textIn(uri, range), covered === '' ? undefined : covered, context);
      documents.changed({
        textDocument: { uri, version: round + 2 },
        contentChanges: [{ range, text: inserted }],
      });
      model.change(range, inserted);
      assert.equal(documents.text(uri), model.document.getText(), context);
    }
  }
});

test('an empty document, and one emptied', () => {
  for (const encoding of ENCODINGS) {
    const blocks = new BlockText('', 2);
    assert.equal(blocks.offsetAt(0, 5, encoding), 0);
    assert.equal(blocks.offsetAt(3, 5, encoding), 0);
    assert.equal(blocks.codePointsAt(0, 5, encoding), 0);
    blocks.splice(0, 0, 'a😀\r\nb');
    assert.equal(blocks.offsetAt(1, 1, encoding), 6);
    blocks.splice(6, 6, '');
    blocks.splice(0, 6, '');
    assert.equal(blocks.text(), '');
    assert.equal(blocks.offsetAt(1, 0, encoding), 0);
  }
});
