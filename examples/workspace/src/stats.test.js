import assert from 'node:assert/strict';
import { test } from 'node:test';
import { mean, range } from './stats.js';

test('mean', () => assert.equal(mean([1, 2, 3, 6]), 3));
test('range', () => assert.equal(range([4, -1, 7]), 8));
