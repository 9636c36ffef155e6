/**
 * `tandem check --interactive` against the Neovim plugin in a real Neovim, the test typing what
 * the person at the editor types for each prompt.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { NeovimSession, neovimSkipReason, Sandbox, waitFor } from '@tandem/testkit';
import { failures, runCheck } from './check-run.fixture.js';

/** The word in the name of the file each step's diff opens on. */
const FILE_WORD: Record<string, string> = {
  accept: 'accept',
  reject: 'reject',
  edit: 'close',
  empty: 'empty',
  quit: 'quit',
};

describe(
  'tandem check against the Neovim plugin',
  { skip: neovimSkipReason({ sidecar: true }) },
  () => {
    it('passes every check, the diffs answered with Neovim keys', async (t) => {
      const sandbox = new Sandbox();
      const neovim = await NeovimSession.start(sandbox, { tandem: '{}' });
      t.after(async () => {
        await neovim.close();
        sandbox.remove();
      });
      const run = await runCheck(
        ['--cwd', sandbox.workspace, '--interactive', '--time-limit', '60', '--json'],
        {
          env: sandbox.env({ REMOTE_CONTAINERS: 'true' }),
          cwd: sandbox.workspace,
          person: async (key, { pressEnter }) => {
            const word = FILE_WORD[key]!;
            await waitFor(`the diff view of step ${key}`, async () => {
              const [status, tab] = await Promise.all([neovim.status(), neovim.currentTab()]);
              const shown = status.diffs.some((diff) => diff.path.includes(word));
              return shown && tab.windows.some((w) => w.diff && w.current) ? true : undefined;
            });
            switch (key) {
              case 'accept':
                return neovim.input('Goa line the person added<Esc>:wq<CR>');
              case 'reject':
                return neovim.input(':TandemReject<CR>');
              case 'edit':
                await neovim.input('Goan edit left in the editor<Esc>');
                return pressEnter();
              case 'empty':
                await neovim.input('ggdG:wq<CR>');
                await waitFor('the refusal', async () =>
                  /empty/i.test(await neovim.lua<string>(`return vim.fn.execute('messages')`))
                    ? true
                    : undefined,
                );
                return neovim.input(':q!<CR>');
              case 'quit':
                // Neovim exits before it could say it consumed the keys.
                neovim.nvim.input(':qa!<CR>').catch(() => undefined);
                assert.equal(await neovim.waitForExit(), 0);
                return;
            }
          },
        },
      );
      assert.deepEqual(failures(run.report), [], run.stderr);
      assert.equal(run.status, 0);
      assert.equal(run.report?.counts.skip, 0);
    });
  },
);
