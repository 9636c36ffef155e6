/**
 * The sentence for what became of a diff answered in a CLI's terminal, for the cases the real
 * clients' tests (diff-closing.test.ts) do not reach: an emptied view, a CLI of another name.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isTerminalApprovalWrite, terminalOutcome } from './diff-rules.js';

const path = '/w/src/stats.py';

describe('terminalOutcome', () => {
  it('Gemini CLI with the view emptied writes its proposal; it claims no kept edits', () => {
    const after = { changed: true, content: 'proposal\n' } as const;
    const outcome = terminalOutcome('Gemini CLI', path, after, '', 'proposal\n');
    assert.equal(outcome.kind, 'approved');
    assert.equal(
      outcome.message,
      'Gemini CLI wrote its own proposal to stats.py, not your edits (approved in its terminal).',
    );
  });

  it('a CLI of another name may write the view or its proposal', () => {
    for (const content of ['edited\n', 'proposal\n']) {
      assert.equal(isTerminalApprovalWrite('Other CLI', content, 'edited\n', 'proposal\n'), true);
    }
    assert.equal(isTerminalApprovalWrite('Qwen Code', 'edited\n', 'edited\n', 'proposal\n'), false);
    const after = { changed: true, content: 'something else\n' } as const;
    const outcome = terminalOutcome('', path, after, 'edited\n', 'proposal\n');
    assert.equal(outcome.kind, 'changed');
    assert.match(outcome.message, /^stats\.py changed, but not as the CLI writes it/);
  });
});
