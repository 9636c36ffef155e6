import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { ReviewChange } from './review-queue.js';
import { diffRequest, recordingQueue } from './review-queue.fixture.js';

function setUp() {
  const recorded = recordingQueue();
  const changes: ReviewChange[] = [];
  recorded.queue.subscribe((change) => changes.push(change));
  return { ...recorded, changes };
}

describe('ReviewQueue', () => {
  test('a shown diff is pending, its draft the proposal, and listeners hear of it', async () => {
    const { queue, changes } = setUp();
    await queue.showDiff(diffRequest('a'));
    const [review] = queue.pending();
    assert.equal(review?.draft, 'new\n');
    assert.equal(review?.proposal, 'new\n');
    assert.deepEqual(review?.client, { name: 'Gemini CLI', version: '0.61.0' });
    assert.deepEqual(
      changes.map((change) => change.type),
      ['opened'],
    );
  });

  test('a new file keeps oldContent null', async () => {
    const { queue } = setUp();
    await queue.showDiff(diffRequest('n', { oldContent: null }));
    assert.equal(queue.pending()[0]?.oldContent, null);
  });

  test('diffs queue in the order they arrive', async () => {
    const { queue } = setUp();
    await queue.showDiff(diffRequest('first'));
    await queue.showDiff(diffRequest('second'));
    assert.deepEqual(
      queue.pending().map((review) => review.id),
      ['first', 'second'],
    );
  });

  test('the same id twice is refused', async () => {
    const { queue } = setUp();
    await queue.showDiff(diffRequest('a'));
    await assert.rejects(queue.showDiff(diffRequest('a')), /already open/);
  });

  test('closeDiff returns the latest draft and forgets the diff', async () => {
    const { queue, answers } = setUp();
    await queue.showDiff(diffRequest('a'));
    assert.equal(queue.updateDraft('a', 'edited\n'), true);
    assert.equal(await queue.closeDiff('a'), 'edited\n');
    assert.deepEqual(queue.pending(), []);
    assert.deepEqual(answers, [], 'a close is no answer');
  });

  test("closed by the CLI: the page hears the engine's words, and the edited text it keeps", async () => {
    const { queue, changes } = setUp();
    await queue.showDiff(diffRequest('a'));
    await queue.closeDiff('a');
    const filePath = '/w/a.ts';
    queue.diffClosed('a', { reason: 'terminal', filePath, message: 'plain' });
    assert.deepEqual(changes.at(-1), {
      type: 'closed',
      id: 'a',
      outcome: 'closed',
      notice: { message: 'plain' },
    });
    await queue.showDiff(diffRequest('b'));
    queue.updateDraft('b', 'my edit\n');
    await queue.closeDiff('b');
    queue.diffClosed('b', { reason: 'terminal', filePath, message: 'kept', keptText: 'my edit\n' });
    assert.deepEqual(changes.at(-1), {
      type: 'closed',
      id: 'b',
      outcome: 'closed',
      notice: { message: 'kept', editedText: 'my edit\n' },
    });
  });

  test('a diff answered beside the page (in an editor) leaves it, with nothing to say', async () => {
    const { queue, changes, answers } = setUp();
    await queue.showDiff(diffRequest('a'));
    queue.withdraw('a');
    queue.withdraw('a');
    assert.deepEqual(queue.pending(), []);
    assert.deepEqual(
      changes.filter((change) => change.type === 'closed'),
      [{ type: 'closed', id: 'a', outcome: 'closed' }],
    );
    assert.deepEqual(answers, [], 'no answer of its own');
  });

  test('what became of a diff answered in the terminal reaches the page', () => {
    const { queue, changes } = setUp();
    const message = 'a.ts was not changed: the proposal was cancelled in Gemini CLI’s terminal.';
    queue.diffOutcome('a', { kind: 'cancelled', filePath: '/w/a.ts', message });
    assert.deepEqual(changes.at(-1), {
      type: 'outcome',
      id: 'a',
      outcome: { kind: 'cancelled', message },
    });
  });

  test('warnings reach the page, and so does the end of the server', () => {
    const { queue, changes } = setUp();
    queue.warningsChanged([{ code: 'no-diffs', cli: 'qwen', message: 'm', fix: 'f' }]);
    assert.deepEqual(queue.warnings(), [{ message: 'm', fix: 'f' }]);
    queue.stopped();
    assert.deepEqual(changes.slice(-2), [
      { type: 'warnings', warnings: [{ message: 'm', fix: 'f' }] },
      { type: 'stopped' },
    ]);
  });

  test('closeDiff of a diff that is not open rejects', async () => {
    const { queue } = setUp();
    await assert.rejects(queue.closeDiff('missing'), /not open/);
  });

  test('accept reaches the engine with the content, once', async () => {
    const { queue, answers, warnings, changes } = setUp();
    await queue.showDiff(diffRequest('a'));
    assert.equal(queue.accept('a', 'final\n').ok, true);
    assert.equal(queue.accept('a', 'again\n').ok, false);
    assert.equal(queue.reject('a').ok, false);
    assert.deepEqual(answers, ['accepted a: final\n']);
    assert.equal(warnings.length, 2);
    assert.match(warnings[0]!, /accept: diff a is no longer pending/);
    assert.deepEqual(changes.at(-1), { type: 'closed', id: 'a', outcome: 'accepted' });
  });

  test('reject reaches the engine, and a later accept is ignored with a warning', async () => {
    const { queue, answers, warnings } = setUp();
    await queue.showDiff(diffRequest('a'));
    assert.equal(queue.reject('a').ok, true);
    assert.equal(queue.accept('a', 'late\n').ok, false);
    assert.deepEqual(answers, ['rejected a']);
    assert.match(warnings[0]!, /no longer pending/);
  });

  test('answering a diff the CLI closed is ignored with a warning', async () => {
    const { queue, answers, warnings } = setUp();
    await queue.showDiff(diffRequest('a'));
    await queue.closeDiff('a');
    assert.equal(queue.accept('a', 'x').ok, false);
    assert.equal(queue.updateDraft('a', 'x'), false);
    assert.deepEqual(answers, []);
    assert.equal(warnings.length, 2);
  });

  test('clients are kept by name and version', () => {
    const { queue, changes } = setUp();
    queue.clientsChanged([{ sessionId: 's', name: 'Qwen Code', version: '0.24.4' }]);
    assert.deepEqual(queue.clients(), [{ name: 'Qwen Code', version: '0.24.4' }]);
    assert.deepEqual(changes, [
      { type: 'clients', clients: [{ name: 'Qwen Code', version: '0.24.4' }] },
    ]);
  });

  test('an unsubscribed listener hears nothing more', async () => {
    const { queue } = setUp();
    const heard: ReviewChange[] = [];
    const unsubscribe = queue.subscribe((change) => heard.push(change));
    unsubscribe();
    await queue.showDiff(diffRequest('a'));
    assert.deepEqual(heard, []);
  });
});
