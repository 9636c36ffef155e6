import assert from 'node:assert/strict';
import { test } from 'node:test';
import { hunksBetween } from './hunks.js';

test('a changed line, lines added and lines removed, each with what the file had', () => {
  const old = 'keep\nold\nkeep\ngone one\ngone two\nkeep\n';
  const proposal = 'keep\nnew\nkeep\nkeep\nadded\n';
  assert.deepEqual(hunksBetween(old, proposal), [
    { line: 1, lineCount: 1, was: ['old'] },
    { line: 3, lineCount: 0, was: ['gone one', 'gone two'] },
    { line: 4, lineCount: 1, was: [] },
  ]);
});

test('a new file is one hunk of added lines; no change is no hunk', () => {
  assert.deepEqual(hunksBetween(null, 'a\nb\n'), [{ line: 0, lineCount: 2, was: [] }]);
  assert.deepEqual(hunksBetween('same\n', 'same\n'), []);
});

test('CRLF lines', () => {
  assert.deepEqual(hunksBetween('a\r\nb\r\n', 'a\r\nc\r\n'), [
    { line: 1, lineCount: 1, was: ['b'] },
  ]);
});
