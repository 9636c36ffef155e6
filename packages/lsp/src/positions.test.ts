import assert from 'node:assert/strict';
import { test } from 'node:test';
import { chooseEncoding, unitsIn } from './positions.js';

/** a, an astral character, b, a wide character, x: five code points. */
const LINE = 'a😀b文x';

test('the encoding: code points first, UTF-16 when the client offers nothing it knows', () => {
  assert.equal(chooseEncoding(['utf-8', 'utf-32', 'utf-16']), 'utf-32');
  assert.equal(chooseEncoding(['utf-8', 'utf-16']), 'utf-16');
  assert.equal(chooseEncoding(['utf-8']), 'utf-8');
  assert.equal(chooseEncoding(undefined), 'utf-16');
  assert.equal(chooseEncoding(['latin-1']), 'utf-16');
});

test('the x after an astral character, in each encoding', () => {
  assert.equal(unitsIn(LINE, 4, 'utf-32'), 4);
  assert.equal(unitsIn(LINE, 4, 'utf-16'), 5);
  assert.equal(unitsIn(LINE, 4, 'utf-8'), 9);
});

test('a count past the end of the line stops at its end', () => {
  assert.equal(unitsIn(LINE, 99, 'utf-16'), 6);
});
