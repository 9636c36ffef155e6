/**
 * `tandem check --interactive` against `tandem serve` in a process of its own, the person
 * answering through the review page's own API (what the page sends when they click).
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { spawn, type ChildProcess } from 'node:child_process';
import { missing, ReviewPage, Sandbox, TANDEM, waitFor } from '@tandem/testkit';

const unbuilt = missing([], existsSync(TANDEM) ? [] : [`${TANDEM} is not built (npm run build)`]);
import { containerFacts } from '@tandem/core';
import { assertPassed, runInteractiveCheck } from './check-run.fixture.js';
import { checkDiscovery } from './discovery-checks.js';

describe('tandem check against tandem serve', { skip: unbuilt }, () => {
  let sandbox: Sandbox;
  let serve: ChildProcess;
  let exited: Promise<number | null>;
  let page: ReviewPage;

  before(async () => {
    sandbox = new Sandbox();
    // The built command, as a user runs it.
    serve = spawn(process.execPath, [TANDEM, 'serve', sandbox.workspace], {
      cwd: sandbox.workspace,
      env: sandbox.env(),
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    exited = new Promise((resolve) => serve.once('exit', resolve));
    let printed = '';
    serve.stdout!.on('data', (chunk: Buffer) => (printed += chunk.toString('utf8')));
    const url = await waitFor('the review page URL', () => /Review page: (\S+)/.exec(printed)?.[1]);
    page = await ReviewPage.open(url);
  });

  after(async () => {
    if (serve.exitCode === null && serve.signalCode === null) serve.kill('SIGKILL');
    await exited;
    sandbox.remove();
  });

  for (const marker of ['/.dockerenv', undefined]) {
    it(`with ${marker ?? 'no container marker'}: the companion is found; the container rule is reported by name`, async () => {
      const found = await checkDiscovery(sandbox.workspace, sandbox.env(), ['gemini', 'qwen'], {
        ...(marker && { marker }),
      });
      const status = (id: string) =>
        found.checks.filter((check) => check.id === id).map((check) => check.status);
      assert.deepEqual(status('discovery.found'), ['pass', 'pass']);
      assert.deepEqual(status('discovery.container'), [marker ? 'fail' : 'pass']);
      const rule = found.checks.find((check) => check.id === 'discovery.container')!;
      assert.equal(rule.severity, 'advice');
      if (marker) assert.match(rule.fix ?? '', /eval "\$\(tandem env\)"/);
    });
  }

  it('passes every check, the diffs answered on the review page', async () => {
    // The sandbox's environment, a plain terminal of this machine: no variable of the editor's
    // terminals.
    const run = await runInteractiveCheck(sandbox, async (key, { pressEnter }) => {
      const review = await page.newest();
      switch (key) {
        case 'accept':
          assert.equal(await page.act(review.id, 'accept', `${review.proposal}added\n`), 204);
          return;
        case 'reject':
          assert.equal(await page.act(review.id, 'reject'), 204);
          return;
        case 'edit':
          assert.equal(await page.act(review.id, 'draft', `${review.proposal}edit\n`), 204);
          pressEnter();
          return;
        case 'empty':
          assert.equal(await page.act(review.id, 'accept', ''), 422, 'an emptied accept');
          assert.equal(await page.act(review.id, 'reject'), 204);
          return;
        case 'quit':
          serve.kill('SIGTERM');
          return;
      }
    });
    assertPassed(run);
    // In a container (this machine may be one), the container rule is its own advice.
    const container = run.report?.sections
      .flatMap((section) => section.checks)
      .find((check) => check.id === 'discovery.container');
    assert.equal(container?.status, containerFacts({}).marker ? 'fail' : 'pass');
    assert.equal(await exited, 0);
  });
});
