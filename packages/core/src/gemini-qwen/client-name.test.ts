import assert from 'node:assert/strict';
import { test } from 'node:test';
import { clientLabel, describeClient } from './client-name.js';

test('Gemini CLI is named with its version; Qwen Code without the fixed one it reports', () => {
  const gemini = describeClient(
    { name: 'streamable-http-client', version: '0.61.0' },
    '2025-06-18',
  );
  assert.deepEqual(gemini, { name: 'Gemini CLI', version: '0.61.0' });
  const qwen = describeClient({ name: 'streamable-http-client', version: '1.0.0' }, '2025-11-25');
  assert.deepEqual(qwen, { name: 'Qwen Code', version: '' });
  assert.deepEqual(describeClient({ name: 'zed', version: '2' }, undefined), {
    name: 'zed',
    version: '2',
  });
  assert.deepEqual(describeClient(undefined, undefined), { name: 'unknown', version: '' });
});

test('a client for people: its version after its name, and no space when it states none', () => {
  assert.equal(clientLabel({ name: 'Gemini CLI', version: '0.61.0' }), 'Gemini CLI 0.61.0');
  assert.equal(clientLabel({ name: 'Qwen Code', version: '' }), 'Qwen Code');
});
