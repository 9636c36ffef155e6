/**
 * `tandem check --interactive` against the Vim plugin in a real Vim (in tmux), the test typing
 * what the person at the editor types for each prompt.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Sandbox, VimSession, vimSkipReason, waitFor } from '@tandem/testkit';
import { failures, runCheck } from './check-run.fixture.js';

/** The word in the name of the file each step's diff opens on. */
const FILE_WORD: Record<string, string> = {
  accept: 'accept',
  reject: 'reject',
  edit: 'close',
  empty: 'empty',
  quit: 'quit',
};

describe('tandem check against the Vim plugin', { skip: vimSkipReason({ sidecar: true }) }, () => {
  it('passes every check, the diffs answered with Vim keys', async (t) => {
    const sandbox = new Sandbox();
    const vim = await VimSession.start(sandbox);
    t.after(async () => {
      await vim.close();
      sandbox.remove();
    });
    await vim.waitForState('running');

    /** Waits until Vim has read every key typed so far. */
    const settled = async () => {
      const mark = `mark-${Date.now()}`;
      await vim.type(`:let g:tandem_check_mark = '${mark}'\r`);
      await waitFor('Vim to take the keys', async () =>
        (await vim.eval<string>(`get(g:, 'tandem_check_mark', '')`)) === mark ? true : undefined,
      );
    };
    /** Goes, as a user would, to the proposal of the diff whose file name holds `word`. */
    const focus = (word: string) =>
      waitFor(`the diff view of ${word}`, async () => {
        await vim.keys('Escape');
        const found = await vim.eval<number>(
          `win_gotoid(get(win_findbuf(get(filter(tandem#status().diffs,` +
            ` {_, d -> stridx(d.path, '${word}') >= 0}), 0, {'buffer': -1}).buffer), 0, 0))`,
        );
        return found ? true : undefined;
      });

    const run = await runCheck(
      ['--cwd', sandbox.workspace, '--interactive', '--time-limit', '60', '--json'],
      {
        env: sandbox.env({ REMOTE_CONTAINERS: 'true' }),
        cwd: sandbox.workspace,
        person: async (key, { pressEnter }) => {
          await focus(FILE_WORD[key]!);
          switch (key) {
            case 'accept':
              await vim.type('Goa line the person added');
              await vim.keys('Escape');
              return vim.type(':w\r');
            case 'reject':
              return vim.type(':TandemReject\r');
            case 'edit':
              await vim.type('Goan edit left in the editor');
              await vim.keys('Escape');
              await settled();
              return pressEnter();
            case 'empty':
              await vim.type('ggdG:w\r');
              await waitFor('the refusal', async () =>
                /empty/i.test(await vim.eval<string>(`execute('messages')`)) ? true : undefined,
              );
              return vim.type(':TandemReject\r');
            case 'quit':
              await vim.type(':qa\r');
              await waitFor('Vim to exit', async () => ((await vim.exited()) ? true : undefined));
              return;
          }
        },
      },
    );
    assert.deepEqual(failures(run.report), [], run.stderr);
    assert.equal(run.status, 0);
    assert.equal(run.report?.counts.skip, 0);
  });
});
