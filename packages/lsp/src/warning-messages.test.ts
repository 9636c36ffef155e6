import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { CompanionWarning } from '@tandem/core';
import { WarningMessages } from './warning-messages.js';

const ideOff: CompanionWarning = {
  code: 'ide-mode-off',
  cli: 'gemini',
  message: 'IDE mode is off in Gemini CLI.',
  fix: 'Type /ide enable.',
};
const shared: CompanionWarning = {
  code: 'shared-folder',
  message: 'Another editor serves this folder too.',
  fix: 'Close it.',
};

test('each warning is told once as it appears, and again when it comes back', () => {
  const told: string[] = [];
  const messages = new WarningMessages((message) => told.push(message));
  messages.changed([ideOff]);
  messages.changed([ideOff]);
  messages.changed([ideOff, shared]);
  assert.deepEqual(told, [
    'Tandem: IDE mode is off in Gemini CLI. Type /ide enable.',
    'Tandem: Another editor serves this folder too. Close it.',
  ]);
  messages.changed([shared]);
  messages.changed([]);
  messages.changed([ideOff]);
  assert.equal(told.length, 3);
  assert.equal(told[2], told[0]);
});
