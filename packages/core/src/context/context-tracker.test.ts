import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ideContextSchema } from '../gemini-qwen/ide-notifications.js';
import { MAX_OPEN_FILES, MAX_SELECTED_TEXT, trimSelection } from '../clients/context-limits.js';
import { ContextTracker } from './context-tracker.js';

describe('ContextTracker', () => {
  let dir: string;
  const file = (n: number) => join(dir, `f${n}.txt`);

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'tandem-context-'));
    for (let n = 0; n < 15; n++) await writeFile(file(n), `${n}\n`);
  });
  after(() => rm(dir, { recursive: true, force: true }));

  it('keeps the newest files first, cut to the clients’ limit, the focused one active', () => {
    const tracker = new ContextTracker(() => undefined);
    for (let n = 0; n < 15; n++) tracker.fileOpened(file(n));
    tracker.fileFocused(file(3));
    tracker.cursorChanged(file(3), 4, 2, 'sel');
    const files = tracker.snapshot().workspaceState!.openFiles!;
    assert.equal(files.length, MAX_OPEN_FILES);
    assert.equal(files[0]!.path, file(3));
    assert.deepEqual(files[0], {
      path: file(3),
      timestamp: files[0]!.timestamp,
      isActive: true,
      cursor: { line: 4, character: 2 },
      selectedText: 'sel',
    });
    assert.equal(files.filter((f) => f.isActive || f.cursor || f.selectedText).length, 1);
    const timestamps = files.map((f) => f.timestamp);
    assert.deepEqual(
      timestamps,
      [...timestamps].sort((a, b) => b - a),
    );
    assert.equal(new Set(timestamps).size, timestamps.length);
    assert.ok(ideContextSchema.safeParse(tracker.snapshot()).success);
  });

  it('leaves out files that are not on disk', () => {
    const tracker = new ContextTracker(() => undefined);
    tracker.fileOpened(join(dir, 'unsaved.txt'));
    tracker.fileFocused(dir);
    tracker.fileOpened(file(1));
    assert.deepEqual(
      tracker.snapshot().workspaceState!.openFiles!.map((f) => f.path),
      [file(1)],
    );
  });

  it('forgets the cursor when another file takes focus, and a closed file', () => {
    const tracker = new ContextTracker(() => undefined);
    tracker.cursorChanged(file(1), 1, 1);
    tracker.fileFocused(file(2));
    tracker.fileClosed(file(2));
    const files = tracker.snapshot().workspaceState!.openFiles!;
    assert.deepEqual(
      files.map((f) => [f.path, f.isActive, f.cursor]),
      [[file(1), undefined, undefined]],
    );
  });

  it('reports a change only when something changed', () => {
    let changes = 0;
    const tracker = new ContextTracker(() => changes++);
    tracker.cursorChanged(file(1), 1, 1);
    const after = changes;
    tracker.cursorChanged(file(1), 1, 1);
    tracker.fileFocused(file(1));
    tracker.fileOpened(file(1));
    assert.equal(changes, after);
  });

  it('sends isTrusted only when the editor knows it', () => {
    const tracker = new ContextTracker(() => undefined);
    assert.equal('isTrusted' in tracker.snapshot().workspaceState!, false);
    tracker.trustChanged(false);
    assert.equal(tracker.snapshot().workspaceState!.isTrusted, false);
  });

  it('trims a long selection to exactly the limit, marked, without splitting a character', () => {
    const long = 'x'.repeat(MAX_SELECTED_TEXT - 16) + '😀'.repeat(100);
    const trimmed = trimSelection(long);
    assert.ok(trimmed.length <= MAX_SELECTED_TEXT);
    assert.ok(trimmed.endsWith('... [TRUNCATED]'));
    assert.doesNotMatch(trimmed, /[\ud800-\udbff](?![\udc00-\udfff])/);
    assert.equal(trimSelection('short'), 'short');
  });
});
