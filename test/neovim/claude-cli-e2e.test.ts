/**
 * End to end: the whole Claude Code (the newest, against a fake Messages API) in a terminal of
 * the newest Neovim, the testkit's whole-CLI scenarios driven by `neovimCliDriver`: the diff opens
 * in Neovim, an edit there and `:w` write exactly the user's text, `:q` leaves the file as it was;
 * approved or cancelled in Claude's terminal, the view closes and Neovim says what became of the
 * file. Claude Code 2.1.110, in a pane of its own, started as a user starts it, and Neovim
 * quitting with its diff open. And `:Tandem send`: the mention shows in Claude Code's prompt as
 * `@file#L2-3`. Only the newest Neovim runs it (each scenario starts Neovim and Claude Code,
 * about 10–40 s).
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import {
  claudeCodeMissing,
  editorVersions,
  missing,
  neovimCliDriver,
  NeovimSession,
  neovimSkipReason,
  runClaudeScenarios,
  Sandbox,
  startClaudeCode,
  waitFor,
} from '@tandem/testkit';

for (const nvim of editorVersions('nvim', ['newest'])) {
  runClaudeScenarios(neovimCliDriver(nvim), false, [
    'accept',
    'reject',
    'approve-in-cli',
    'cancel-in-cli',
  ]);
  // The oldest Claude Code, started without --permission-mode: its default mode asks, so the
  // diff opens; then Neovim quits with it open.
  runClaudeScenarios(neovimCliDriver(nvim), false, ['quit-with-diff'], 'oldest');
  // `:Tandem claude` as the plugin ships it: Claude Code asks, so its edits open as diffs.
  runClaudeScenarios(neovimCliDriver(nvim, { byCommand: true }), false);

  const skip =
    neovimSkipReason({ sidecar: true }) || missing(['tmux'], claudeCodeMissing('newest'));
  test(
    `Neovim ${nvim.label}: :Tandem send puts @lines.txt#L2-3 and @lines.txt in the real Claude Code's prompt`,
    { skip, timeout: 300_000 },
    async (t) => {
      const sandbox = new Sandbox();
      const file = path.join(sandbox.workspace, 'lines.txt');
      writeFileSync(file, 'one\ntwo\nthree\nfour\n');
      const neovim = await NeovimSession.start(sandbox, { tandem: '{}', nvim });
      t.after(() => neovim.close());
      await neovim.command('edit lines.txt');
      const claude = await startClaudeCode({
        version: 'newest',
        cwd: sandbox.workspace,
        dir: path.join(sandbox.root, 'claude-run'),
        claudeConfigDir: sandbox.claudeConfigDir,
        ssePort: Number((await neovim.status()).env.CLAUDE_CODE_SSE_PORT),
        script: { prompt: 'unused', filePath: file, oldString: 'two', newString: 'TWO' },
      });
      // After hooks run in order: Claude Code's tmux is ended through its socket, in the sandbox.
      t.after(() => claude.stop());
      t.after(() => sandbox.remove());
      // Claude Code hears mentions a moment after it has connected: sent until it shows one.
      await waitFor(
        'Claude Code to show @lines.txt#L2-3 in its prompt',
        async () => {
          if ((await claude.pane.capture()).includes('@lines.txt#L2-3')) return true;
          await neovim.command('2,3Tandem send');
          return undefined;
        },
        120_000,
        2000,
      );
      await neovim.command('Tandem send');
      await waitFor('@lines.txt in the prompt, after the range', async () =>
        /@lines\.txt#L2-3 +@lines\.txt(?![#\w])/.test(await claude.pane.capture())
          ? true
          : undefined,
      ).catch(async (error: unknown) => {
        throw new Error(`${String(error)}; Claude Code's screen:\n${await claude.pane.capture()}`);
      });
    },
  );
}
