import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { test } from 'node:test';
import { needShell } from '@tandem/testkit';
import { shellQuote } from './shell-quote.js';

const words = ['plain', 'two words', `it's`, '$HOME', 'back\\slash', '"q"', 'a;b', '', 'ü ✓'];

test('a quoted word survives a real POSIX shell', () => {
  const line = `printf '%s\\n' ${words.map((word) => shellQuote(word)).join(' ')}`;
  const out = execFileSync('sh', ['-c', line], { encoding: 'utf8' });
  assert.deepEqual(out.split('\n').slice(0, -1), words);
});

test('a quoted word survives a real fish', (t) => {
  if (!needShell(t, 'fish')) return;
  const line = `printf '%s\\n' ${words.map((word) => shellQuote(word, 'fish')).join(' ')}`;
  const out = execFileSync('fish', ['-c', line], { encoding: 'utf8' });
  assert.deepEqual(out.split('\n').slice(0, -1), words);
});
