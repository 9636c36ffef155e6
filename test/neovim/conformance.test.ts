/**
 * The adapter conformance suite of @tandem/testkit, run against real Neovim with the plugin:
 * the driver types keys and commands as a user would, and reads the windows Neovim shows.
 */
import {
  NeovimSession,
  neovimSkipReason,
  runAdapterConformance,
  Sandbox,
  type EditorUnderTest,
  type Position,
} from '@tandem/testkit';

/** The keys of each named gesture; `<leader>` is Neovim's default, a backslash. */
const ACCEPT: Record<string, string> = {
  ':w': ':w<CR>',
  ':TandemAccept': ':TandemAccept<CR>',
  '<leader>da': '\\da',
};
// The first one also rejects an edited proposal (`:q` refuses to drop the edits).
const REJECT: Record<string, string> = {
  ':TandemReject': ':TandemReject<CR>',
  ':q': ':q<CR>',
  '<leader>dr': '\\dr',
  'closing the tab (:tabclose)': ':tabclose<CR>',
};

/** Keys that move the cursor to `position` in Normal or Visual mode (characters, not bytes). */
function moveKeys({ line, character }: Position): string {
  return `${line}G0${character > 1 ? `${character - 1}l` : ''}`;
}

class NeovimEditor implements EditorUnderTest {
  constructor(private readonly session: NeovimSession) {}

  async openFile(filePath: string): Promise<void> {
    await this.session.input('<Esc>');
    await this.session.lua(`vim.cmd('edit ' .. vim.fn.fnameescape(...))`, [filePath]);
  }

  async moveCursor(position: Position): Promise<void> {
    await this.session.input(`<Esc>${moveKeys(position)}`);
  }

  async select(first: Position, last: Position): Promise<void> {
    await this.session.input(`<Esc>${moveKeys(first)}v${moveKeys(last)}`);
  }

  async clearSelection(): Promise<void> {
    await this.session.input('<Esc>');
  }

  /** The views whose tab and proposal window are on screen, with the proposal's text. */
  diffViews() {
    return this.session.lua<{ filePath: string; proposal: string }[]>(`
      local shown = {}
      for _, view in ipairs(require('tandem').instance().diffs:list()) do
        if vim.api.nvim_tabpage_is_valid(view.tab) and vim.api.nvim_win_is_valid(view.right_win)
          and vim.api.nvim_win_get_buf(view.right_win) == view.right_buf then
          local lines = vim.api.nvim_buf_get_lines(view.right_buf, 0, -1, false)
          shown[#shown + 1] = { filePath = view.path, proposal = table.concat(lines, '\\n') }
        end
      end
      return shown
    `);
  }

  /** Goes to the proposal's window of the view of `filePath`, in Normal mode. */
  private async focus(filePath: string): Promise<void> {
    await this.session.input('<Esc>');
    await this.session.lua(
      `
      for _, view in ipairs(require('tandem').instance().diffs:list()) do
        if view.path == ... then
          vim.api.nvim_set_current_tabpage(view.tab)
          vim.api.nvim_set_current_win(view.right_win)
          return
        end
      end
      error('no diff view of ' .. ...)
    `,
      [filePath],
    );
  }

  async editProposal(filePath: string, text: string): Promise<void> {
    await this.focus(filePath);
    await this.session.input('ggdG');
    if (text !== '') {
      const lines = text.replace(/\n$/, '').split('\n');
      await this.session.lua('vim.api.nvim_buf_set_lines(0, 0, -1, false, ...)', [lines]);
    }
  }

  async accept(filePath: string, gesture: string): Promise<void> {
    await this.focus(filePath);
    await this.session.input(ACCEPT[gesture] ?? '');
  }

  async reject(filePath: string, gesture: string): Promise<void> {
    await this.focus(filePath);
    await this.session.input(REJECT[gesture] ?? '');
  }

  messages(): Promise<string> {
    return this.session.lua<string>(`return vim.fn.execute('messages')`);
  }

  async quit(): Promise<void> {
    // Neovim ends while taking the keys: no reply comes.
    this.session.nvim.input(':qa<CR>').catch(() => undefined);
    await this.session.waitForExit();
  }

  close(): Promise<void> {
    return this.session.close();
  }
}

runAdapterConformance({
  name: 'Neovim',
  skip: neovimSkipReason({ sidecar: true }),
  gestures: { accept: Object.keys(ACCEPT), reject: Object.keys(REJECT) },
  async start(sandbox: Sandbox) {
    return new NeovimEditor(await NeovimSession.start(sandbox, { tandem: '{}' }));
  },
});
