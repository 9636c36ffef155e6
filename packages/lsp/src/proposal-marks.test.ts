import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { DiffRequest } from '@tandem/core';
import { DiagnosticSeverity } from 'vscode-languageserver';
import { answeredMark, PENDING_CODE, pendingMarks } from './proposal-marks.js';

const diff: DiffRequest = {
  id: '1',
  filePath: '/w/app.py',
  oldContent: 'keep\nold\n',
  newContent: 'keep\nnew 😀\n',
  client: { sessionId: 's', name: 'Gemini CLI', version: '1' },
};

test('how to answer, linked to the file; each change as a hint with what the file had', () => {
  const [pending, hint, ...rest] = pendingMarks(diff, 'utf-16', false);
  assert.equal(pending?.code, PENDING_CODE);
  assert.match(String(pending?.message), /^Gemini CLI proposes a change to app\.py: save/);
  assert.equal(pending?.relatedInformation?.[0]?.location.uri, 'file:///w/app.py');
  assert.equal(hint?.severity, DiagnosticSeverity.Hint);
  assert.equal(hint?.message, 'Was:\nold');
  // The whole line, its end in the negotiated encoding: 😀 is two UTF-16 units.
  assert.deepEqual(hint?.range, {
    start: { line: 1, character: 0 },
    end: { line: 1, character: 6 },
  });
  assert.deepEqual(rest, []);
  assert.equal(pendingMarks(diff, 'utf-8', false)[1]?.range.end.character, 8);
});

test("the user's unsaved changes are named; a new file and removed lines say so", () => {
  const marks = pendingMarks(diff, 'utf-32', true);
  assert.ok(
    marks.some(
      (m) => m.severity === DiagnosticSeverity.Warning && /unsaved/.test(String(m.message)),
    ),
  );
  const created = pendingMarks({ ...diff, oldContent: null, newContent: 'a\n' }, 'utf-16', false);
  assert.match(String(created[0]?.message), /a new file app\.py/);
  assert.equal(created[1]?.message, 'Added: the file has nothing here.');
  const removed = pendingMarks(
    { ...diff, oldContent: 'a\nb\nc\n', newContent: 'a\nc\n' },
    'utf-16',
    false,
  );
  assert.equal(removed[1]?.message, 'Removed here:\nb');
  assert.equal(answeredMark('done')[0]?.message, 'done');
});
