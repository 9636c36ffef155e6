import assert from 'node:assert/strict';
import { test } from 'node:test';
import { OpenDocuments } from './documents.js';

const uri = 'file:///w/a.txt';

function opened(encoding: 'utf-8' | 'utf-16' | 'utf-32', text: string): OpenDocuments {
  const documents = new OpenDocuments(encoding);
  documents.opened({ textDocument: { uri, languageId: 'plaintext', version: 1, text } });
  return documents;
}

test('incremental edits land where the client meant, in its encoding', () => {
  // UTF-8: 😀 is four bytes, so "b" starts at byte 5 of line 0.
  const documents = opened('utf-8', 'a😀b\nsecond\n');
  documents.changed({
    textDocument: { uri, version: 2 },
    contentChanges: [
      { range: { start: { line: 0, character: 5 }, end: { line: 0, character: 6 } }, text: 'B' },
      { range: { start: { line: 1, character: 0 }, end: { line: 1, character: 6 } }, text: '2nd' },
    ],
  });
  assert.equal(documents.text(uri), 'a😀B\n2nd\n');
  documents.changed({ textDocument: { uri, version: 3 }, contentChanges: [{ text: 'whole' }] });
  assert.equal(documents.text(uri), 'whole');
});

test('positions and ranges in code points, 1-based', () => {
  const documents = opened('utf-16', 'a😀b 文 x\n');
  assert.deepEqual(documents.enginePosition(uri, { line: 0, character: 7 }), {
    line: 1,
    character: 7,
  });
  const range = { start: { line: 0, character: 1 }, end: { line: 0, character: 4 } };
  assert.equal(documents.textIn(uri, range), '😀b');
  assert.equal(documents.textIn(uri, { start: range.start, end: range.start }), undefined);
  assert.deepEqual(documents.enginePosition(uri, { line: 5, character: 3 }), {
    line: 6,
    character: 1,
  });
});

test('the text of a file the editor has open, by its path', () => {
  const documents = opened('utf-32', 'unsaved\n');
  assert.equal(documents.textOfFile('/w/a.txt'), 'unsaved\n');
  documents.closed(uri);
  assert.equal(documents.textOfFile('/w/a.txt'), undefined);
});

test("a document by the file it names, whatever the spelling of the editor's URI", () => {
  const documents = new OpenDocuments('utf-16');
  const neovims = 'file:///w/caf%c3%a9%5bid%5d.txt';
  documents.opened({
    textDocument: { uri: neovims, languageId: 'plaintext', version: 1, text: 'x\n' },
  });
  assert.equal(documents.text('file:///w/caf%C3%A9[id].txt'), 'x\n');
  assert.equal(documents.textOfFile('/w/café[id].txt'), 'x\n');
  documents.closed('file:///w/caf%C3%A9[id].txt');
  assert.equal(documents.text(neovims), undefined);
});
