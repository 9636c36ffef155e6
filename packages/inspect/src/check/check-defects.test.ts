/**
 * `tandem check` against a companion with one planted defect at a time: it must fail the check
 * that names that defect (and a companion with none passes every check).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { containerFacts } from '@tandem/core';
import { BrokenCompanion, cannotPlant, DEFECTS, type Defect } from './broken-companion.fixture.js';
import {
  assertFailed,
  checkOwnCompanion,
  failures,
  type PersonScript,
} from './check-run.fixture.js';

/** The check each defect must fail. */
const FAILS: Record<Defect, string> = {
  'no-ide-info': 'discovery.ide-info',
  'dead-ppid': 'discovery.ppid',
  'foreign-owner': 'discovery.owner',
  'world-readable': 'discovery.private',
  'no-token': 'security.no-token',
  'any-host': 'security.host',
  'any-origin': 'security.origin',
  'grants-cors': 'security.cors',
  'reads-body-first': 'security.body-before-token',
  'crashes-on-garbage': 'security.still-serving',
  'no-event-stream': 'transport.event-stream',
  'no-close-diff': 'transport.tools',
  'no-context': 'transport.context',
  'invalid-context': 'transport.notifications-valid',
  'newest-session-only': 'sessions.routing',
  'keeps-sessions': 'sessions.freed',
  'open-diff-waits': 'diffs.open-at-once',
  'open-diff-errors': 'diffs.open',
  'normalizes-path': 'diffs.accepted',
  'plain-close-diff': 'diffs.close-json',
  'ignores-suppress': 'diffs.close-suppress',
  'passes-empty-accept': 'diffs.empty-accept',
  'writes-file': 'diffs.no-write',
  'quit-leaves-diffs': 'diffs.quit-rejects',
  'quit-leaves-files': 'diffs.quit-files',
};

/** The person at the broken companion's "editor", doing what each prompt asks. */
function personAt(companion: BrokenCompanion): PersonScript {
  return async (key, { pressEnter }) => {
    const diff = companion.newestDiff();
    if (!diff) throw new Error(`asked to ${key} with no diff open`);
    switch (key) {
      case 'accept':
        await companion.accept(diff, `${diff.proposal}a line the person added\n`);
        return;
      case 'reject':
        await companion.reject(diff);
        return;
      case 'edit':
        companion.edit(diff, `${diff.proposal}an edit left in the editor\n`);
        pressEnter();
        return;
      case 'empty':
        if (!(await companion.accept(diff, ''))) await companion.reject(diff);
        return;
      case 'quit':
        await companion.stop();
        return;
    }
  };
}

// Most cases wait out a time limit of the check (a reply that never comes, a session that is
// never freed): each case has folders of its own, so they wait side by side.
describe('tandem check finds each planted defect', { concurrency: 6 }, () => {
  async function check(defects: Defect[]) {
    const run = await checkOwnCompanion((folders) => BrokenCompanion.start(defects, folders), {
      cliArgs: [],
      interactive: defects.some((defect) => FAILS[defect].startsWith('diffs.')),
      person: personAt,
    });
    return { run, failed: failures(run.report) };
  }

  it('a companion without defects passes every check, diffs included', async () => {
    const { run, failed } = await check([]);
    assert.deepEqual(failed, [], run.stderr);
    assert.equal(run.status, 0);
    // Run as from a plain terminal of this machine: in a container (/.dockerenv) the container
    // rule is reported by name, as advice that fails no run.
    const container = run
      .report!.sections.flatMap((section) => section.checks)
      .find((c) => c.id === 'discovery.container');
    assert.equal(container?.status, containerFacts({}).marker ? 'fail' : 'pass');
    assert.equal(container?.severity, 'advice');
  });

  for (const defect of DEFECTS) {
    it(`${defect}: ${FAILS[defect]} fails`, { skip: cannotPlant(defect) }, async () => {
      const { run } = await check([defect]);
      assertFailed(run, FAILS[defect]);
    });
  }
});
