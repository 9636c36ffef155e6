import assert from 'node:assert/strict';
import { test } from 'node:test';
import { codePointColumn } from './code-points.js';

test('a column in plain text is the offset plus one', () => {
  assert.equal(codePointColumn('hello', 0), 1);
  assert.equal(codePointColumn('hello', 3), 4);
  assert.equal(codePointColumn('hello', 5), 6);
});

test('a character outside the BMP counts once', () => {
  // '😀' is two UTF-16 units: the offset after it is 2, the column 2.
  assert.equal(codePointColumn('😀x', 2), 2);
  assert.equal(codePointColumn('😀x', 3), 3);
  assert.equal(codePointColumn('a😀b😀c', 6), 5);
});

test('BMP characters beyond ASCII count once each, as in UTF-16', () => {
  assert.equal(codePointColumn('ünï✓', 4), 5);
});

test('an offset past the end of the line stops at the end', () => {
  assert.equal(codePointColumn('ab', 10), 3);
});
