import assert from 'node:assert/strict';
import { test } from 'node:test';
import { printable } from './terminal-text.js';

test('control characters and bidirectional overrides are escaped; the rest is kept', () => {
  const hostile =
    'a\u001b]0;title\u0007b\u001b]52;c;cHduZWQ=\u0007\r\u001b[2Kc\nd\u009be\u202egnp.js';
  assert.equal(
    printable(hostile),
    'a\\u001b]0;title\\u0007b\\u001b]52;c;cHduZWQ=\\u0007\\u000d\\u001b[2Kc\\u000ad\\u009be\\u202egnp.js',
  );
  assert.equal(printable('plain ü ✓ 文件 \\ "q"'), 'plain ü ✓ 文件 \\ "q"');
});
