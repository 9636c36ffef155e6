import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { ContextFeed } from './context-feed.js';
import { OpenDocuments } from './documents.js';

function setUp(cursorIsACharacter = false) {
  const dir = mkdtempSync(path.join(tmpdir(), 'tandem-feed-'));
  const file = path.join(dir, 'a.txt');
  writeFileSync(file, 'héllo x\n');
  const uri = pathToFileURL(file).href;
  const events: unknown[][] = [];
  const documents = new OpenDocuments('utf-16');
  documents.opened({
    textDocument: { uri, languageId: 'plaintext', version: 1, text: 'héllo x\n' },
  });
  const feed = new ContextFeed(
    {
      fileOpened: (p) => events.push(['opened', p]),
      fileClosed: (p) => events.push(['closed', p]),
      cursorChanged: (...args) => events.push(['cursor', ...args]),
    },
    documents,
    (u) => u.includes('proposal'),
    cursorIsACharacter,
  );
  return { dir, file, uri, events, feed };
}

test('files on disk only, never a proposal; a range is a selection, a position the cursor', (t) => {
  const { dir, file, uri, events, feed } = setUp();
  t.after(() => rmSync(dir, { recursive: true }));
  feed.opened(uri);
  feed.opened(pathToFileURL(path.join(dir, 'not-on-disk.txt')).href);
  feed.opened('untitled:Untitled-1');
  feed.opened(pathToFileURL(path.join(dir, 'proposal.txt')).href);
  feed.selected(uri, { start: { line: 0, character: 0 }, end: { line: 0, character: 5 } });
  feed.cursorAt(uri, { line: 0, character: 6 });
  feed.closed(uri);
  assert.deepEqual(events, [
    ['opened', file],
    ['cursor', file, 1, 6, 'héllo', { line: 1, character: 1 }],
    ['cursor', file, 1, 7, undefined, undefined],
    ['closed', file],
  ]);
});

test("Kakoune's one-character selection is its cursor, on that character", (t) => {
  const { dir, file, uri, events, feed } = setUp(true);
  t.after(() => rmSync(dir, { recursive: true }));
  feed.selected(uri, { start: { line: 0, character: 6 }, end: { line: 0, character: 7 } });
  feed.selected(uri, { start: { line: 0, character: 0 }, end: { line: 0, character: 2 } });
  assert.deepEqual(events, [
    ['cursor', file, 1, 7, undefined, undefined],
    ['cursor', file, 1, 3, 'hé', { line: 1, character: 1 }],
  ]);
});
