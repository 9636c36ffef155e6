import assert from 'node:assert/strict';
import { test } from 'node:test';
import { codeActionsAt, COMMANDS } from './code-actions.js';

const range = { start: { line: 0, character: 0 }, end: { line: 0, character: 3 } };

test("in the user's file: send the selection, and send to Claude Code, with the range the request carried", () => {
  const [send, toClaude, ...rest] = codeActionsAt('file:///a', range, [], false);
  assert.deepEqual(send?.command, {
    title: 'Tandem: send the selection to the CLIs',
    command: COMMANDS.sendSelection,
    arguments: ['file:///a', range],
  });
  assert.deepEqual(toClaude?.command, {
    title: 'Tandem: Claude Code: send the lines to its prompt',
    command: COMMANDS.sendToClaude,
    arguments: ['file:///a', range],
  });
  assert.deepEqual(rest, []);
});

test('on a proposal: accept, reject, the review page; no selection to send', () => {
  const actions = codeActionsAt('file:///p', range, [{ id: '7', client: 'Qwen Code' }], true);
  assert.deepEqual(
    actions.map((action) => [action.title, action.command?.command, action.command?.arguments]),
    [
      ["Tandem: accept Qwen Code's proposal", COMMANDS.accept, ['7']],
      ["Tandem: reject Qwen Code's proposal", COMMANDS.reject, ['7']],
      ["Tandem: open Qwen Code's proposal on the review page", COMMANDS.openReviewPage, ['7']],
    ],
  );
});
