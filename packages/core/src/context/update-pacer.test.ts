import assert from 'node:assert/strict';
import { describe, it, mock } from 'node:test';
import { UpdatePacer } from './update-pacer.js';

/** Runs `body` with mocked timers, restored afterwards. */
function withMockTimers(body: () => void): void {
  mock.timers.enable({ apis: ['setImmediate', 'setTimeout'] });
  try {
    body();
  } finally {
    mock.timers.reset();
  }
}

/** A pacer with a 50 ms window that counts what it sends. */
function countingPacer(): { pacer: UpdatePacer; sent: () => number } {
  let sent = 0;
  return { pacer: new UpdatePacer(() => sent++, 50), sent: () => sent };
}

describe('UpdatePacer', () => {
  it('sends an isolated change at once, and the changes of one turn together', () =>
    withMockTimers(() => {
      const { pacer, sent } = countingPacer();
      pacer.changed();
      pacer.changed();
      mock.timers.tick(0);
      assert.equal(sent(), 1);
      mock.timers.tick(1000);
      assert.equal(sent(), 1, 'nothing changed since: nothing more is sent');
    }));

  it('coalesces a burst: 100 changes in 100 ms leave as at most 4 updates, the last after the last change', () =>
    withMockTimers(() => {
      const sentAt: number[] = [];
      let now = 0;
      const pacer = new UpdatePacer(() => sentAt.push(now), 50);
      for (let i = 0; i < 100; i++) {
        pacer.changed();
        mock.timers.tick(1);
        now += 1;
      }
      mock.timers.tick(200);
      now += 200;
      assert.ok(sentAt.length <= 4, `sent ${sentAt.length} updates`);
      assert.ok(sentAt.length >= 2);
      assert.ok(sentAt.at(-1)! >= 99, 'the last update follows the last change');
    }));

  it('sends nothing once stopped', () =>
    withMockTimers(() => {
      const { pacer, sent } = countingPacer();
      pacer.changed();
      pacer.stop();
      mock.timers.tick(100);
      assert.equal(sent(), 0);
    }));
});
