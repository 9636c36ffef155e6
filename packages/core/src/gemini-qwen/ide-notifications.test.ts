import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { contextNotification, invalidity, type IdeNotification } from './ide-notifications.js';

describe('outgoing notifications are checked against the clients’ schemas', () => {
  it('passes valid ones', () => {
    assert.equal(
      invalidity({ method: 'ide/diffAccepted', params: { filePath: '/a', content: '' } }),
      undefined,
    );
    assert.equal(invalidity({ method: 'ide/contextUpdate', params: {} }), undefined);
  });

  it('catches what would disconnect a CLI', () => {
    const bad = [
      { method: 'ide/diffAccepted', params: { filePath: '/a' } },
      { method: 'ide/diffRejected', params: { filePath: 3 } },
      {
        method: 'ide/contextUpdate',
        params: { workspaceState: { openFiles: [{ path: '/a', timestamp: Number.NaN }] } },
      },
      {
        method: 'ide/contextUpdate',
        params: {
          workspaceState: {
            openFiles: [{ path: '/a', timestamp: 1, cursor: { line: 0, character: 1 } }],
          },
        },
      },
    ] as unknown as IdeNotification[];
    for (const notification of bad) assert.match(invalidity(notification) ?? '', /^ide\//);
  });
});

it('the context update carries what the spec names, not the anchor that only Claude Code takes', () => {
  const file = { path: '/w/a', timestamp: 1, isActive: true, selectedText: 'b' };
  const cursor = { line: 2, character: 1 };
  const notification = contextNotification({
    workspaceState: {
      openFiles: [{ ...file, cursor, anchor: { line: 3, character: 4 } }],
      isTrusted: true,
    },
  });
  assert.deepEqual(notification, {
    method: 'ide/contextUpdate',
    params: { workspaceState: { openFiles: [{ ...file, cursor }], isTrusted: true } },
  });
});
