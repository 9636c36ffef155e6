/**
 * Neovim's own LSP client (0.11+: `vim.lsp.config`, `vim.lsp.enable`) with `tandem lsp` as a
 * language server, no Tandem plugin started: the adapter conformance steps as a user takes them,
 * with keys and the code actions Tandem offers.
 */
import path from 'node:path';
import type { AdapterDriver, Position, ShownDiff } from '../conformance/adapter-driver.js';
import type { Sandbox } from '../sandbox.js';
import { waitFor } from '../wait.js';
import type { EditorVersion } from './editor-version.js';
import { NeovimUnderTest } from './neovim-driver.js';
import { NeovimSession, neovimSkipReason } from './neovim-session.js';
import { tandemOnPath } from './tandem-on-path.js';
import { moveKeys } from './vim-keys.js';

/**
 * The user's configuration, as the README gives it: the server for every file type, and what
 * many users add anyway: the symbol under a resting cursor highlighted (the request by which
 * Tandem learns where the cursor is), and keys for Tandem's code actions.
 */
const CONFIG_LUA = `
vim.lsp.config('tandem', {
  cmd = { 'tandem', 'lsp' },
  -- Lighter: no CA certificates read at start, large buffers given back (docs/lsp.md).
  cmd_env = { NODE_EXTRA_CA_CERTS = '', GLIBC_TUNABLES = 'glibc.malloc.mmap_threshold=65536' },
})
vim.lsp.enable('tandem')
vim.o.updatetime = 100
local function action(pattern)
  return function()
    vim.lsp.buf.code_action({
      apply = true,
      filter = function(a) return a.title:match(pattern) ~= nil end,
    })
  end
end
vim.api.nvim_create_autocmd('LspAttach', {
  callback = function(args)
    if vim.lsp.get_client_by_id(args.data.client_id).name ~= 'tandem' then return end
    vim.api.nvim_create_autocmd('CursorHold', {
      buffer = args.buf,
      callback = function() vim.lsp.buf.document_highlight() end,
    })
    vim.keymap.set({ 'n', 'x' }, '<leader>ts', action('^Tandem: send'), { buffer = args.buf })
    vim.keymap.set('n', '<leader>ta', action('^Tandem: accept'), { buffer = args.buf })
    vim.keymap.set('n', '<leader>tr', action('^Tandem: reject'), { buffer = args.buf })
  end,
})
`;

// The suite connects its clients before it opens a file: start the server at once, as
// \`vim.lsp.start\` lets a user do (\`vim.lsp.enable\` alone starts it with the first file).
const START_NOW_LUA = `
vim.lsp.start(vim.tbl_extend('force', vim.lsp.config.tandem, { name = 'tandem' }), { attach = false })
`;

const GESTURES = {
  accept: { ':w': ':w<CR>', 'the Accept code action': '\\ta' } as Record<string, string>,
  // The first one also rejects an edited proposal (`:bwipeout` refuses to drop the edits).
  reject: {
    'the Reject code action': '\\tr',
    ':bwipeout': ':bwipeout<CR>',
  } as Record<string, string>,
};

/** Neovim with its LSP client talking to `tandem lsp`, driven as a user would. */
export class NeovimLspUnderTest {
  /** The steps Neovim takes the same with or without Tandem's plugin. */
  private readonly plain: NeovimUnderTest;

  constructor(
    private readonly session: NeovimSession,
    private readonly workspace: string,
  ) {
    this.plain = new NeovimUnderTest(session);
  }

  openFile(filePath: string): Promise<void> {
    return this.plain.openFile(filePath);
  }

  moveCursor(position: Position): Promise<void> {
    return this.plain.moveCursor(position);
  }

  /** Selects, then sends the selection with Tandem's code action (no request carries it else). */
  async select(first: Position, last: Position): Promise<void> {
    await this.session.input(`<Esc>${moveKeys(first)}v${moveKeys(last)}\\ts`);
  }

  clearSelection(): Promise<void> {
    return this.plain.clearSelection();
  }

  /**
   * The proposals open and still waiting for an answer (Tandem's pending mark), each a buffer
   * (the newest shown in the window, the others a buffer switch away): an answered proposal
   * stays open, saying what became of it, since LSP cannot close a document. A proposal has the
   * name of its file; the suite's files are in the workspace.
   */
  async diffViews(): Promise<ShownDiff[]> {
    const shown = await this.session.lua<{ name: string; lines: string[] }[]>(`
      local shown = {}
      for _, buf in ipairs(vim.api.nvim_list_bufs()) do
        local pending = vim.tbl_filter(function(d)
          return d.source == 'tandem' and d.code == 'tandem.pending'
        end, vim.diagnostic.get(buf))
        if #pending > 0 and vim.bo[buf].buflisted then
          shown[#shown + 1] = {
            name = vim.api.nvim_buf_get_name(buf),
            lines = vim.api.nvim_buf_get_lines(buf, 0, -1, false),
          }
        end
      end
      return shown
    `);
    return shown.map(({ name, lines }) => ({
      filePath: path.join(this.workspace, path.basename(name)),
      proposal: lines.join('\n'),
    }));
  }

  /** Shows the proposal for `filePath` in the current window (`:buffer`), in Normal mode. */
  private async focus(filePath: string): Promise<void> {
    await this.session.input('<Esc>');
    await this.session.lua(
      `
      local name = ...
      for _, buf in ipairs(vim.api.nvim_list_bufs()) do
        local tandem = vim.tbl_filter(function(d) return d.source == 'tandem' end,
          vim.diagnostic.get(buf))
        if #tandem > 0 and vim.fs.basename(vim.api.nvim_buf_get_name(buf)) == name then
          vim.cmd.buffer(buf)
          return
        end
      end
      error('no proposal of ' .. name)
    `,
      [path.basename(filePath)],
    );
  }

  /**
   * Runs `edit`, then waits until Tandem has the change: Neovim sends pending changes before a
   * request, and the server answers in order (a hover, answered empty, moves nothing).
   */
  private async changing(edit: () => Promise<unknown>): Promise<void> {
    await edit();
    await this.session.lua(`
      local client = vim.lsp.get_clients({ name = 'tandem' })[1]
      local buf = vim.api.nvim_get_current_buf()
      local params = vim.lsp.util.make_position_params(0, client.offset_encoding)
      assert(client:request_sync('textDocument/hover', params, 10000, buf), 'no answer')
    `);
  }

  async editProposal(filePath: string, text: string): Promise<void> {
    await this.focus(filePath);
    const lines = text === '' ? [] : text.replace(/\n$/, '').split('\n');
    await this.changing(() =>
      this.session.lua('vim.api.nvim_buf_set_lines(0, 0, -1, false, ...)', [lines]),
    );
  }

  async appendLine(filePath: string, line: string): Promise<void> {
    await this.focus(filePath);
    await this.changing(() => this.session.input(`Go${line}<Esc>`));
  }

  async accept(filePath: string, gesture: string): Promise<void> {
    await this.focus(filePath);
    await this.session.input(GESTURES.accept[gesture] ?? '');
  }

  async reject(filePath: string, gesture: string): Promise<void> {
    await this.focus(filePath);
    await this.session.input(GESTURES.reject[gesture] ?? '');
  }

  messages(): Promise<string> {
    return this.plain.messages();
  }

  async quit(): Promise<void> {
    // Neovim ends while taking the keys: no reply comes.
    this.session.nvim.input('<Esc>:qa<CR>').catch(() => undefined);
    await this.session.waitForExit();
  }

  close(): Promise<void> {
    return this.session.close();
  }
}

/**
 * Neovim `nvim` (0.11 or newer; the default version when not given) with `tandem lsp`, for the
 * adapter conformance suite.
 */
export function neovimLspDriver(nvim?: EditorVersion): AdapterDriver {
  return {
    name: `${nvim?.name ?? 'Neovim'}'s LSP client`,
    skip: neovimSkipReason({ sidecar: true }),
    gestures: { accept: Object.keys(GESTURES.accept), reject: Object.keys(GESTURES.reject) },
    cannot: {
      // runtime/lua/vim/lsp.lua, _buf_get_full_text: the lines, and the line break 'eol' adds.
      emptiedAccept:
        "Neovim's LSP client sends an emptied buffer as one line break (it adds the one 'eol' " +
        'says the file ends with), which the engine takes as a proposal of that text',
    },
    async start(sandbox: Sandbox) {
      const session = await NeovimSession.start(sandbox, { nvim });
      const bin = tandemOnPath(sandbox);
      await session.lua(`vim.env.PATH = ... .. ':' .. vim.env.PATH`, [bin]);
      await session.lua(CONFIG_LUA);
      await session.lua(START_NOW_LUA);
      await waitFor('tandem lsp to start', async () =>
        (await session.lua<boolean>(
          `local c = vim.lsp.get_clients({ name = 'tandem' })[1]
           return c ~= nil and c.initialized == true`,
        ))
          ? true
          : undefined,
      );
      return new NeovimLspUnderTest(session, sandbox.workspace);
    },
  };
}
