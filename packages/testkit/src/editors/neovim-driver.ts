/**
 * Neovim as the shared suites drive it: the adapter conformance steps (keys and commands typed
 * as a user would, the windows Neovim shows read back), and Neovim with a whole CLI in its
 * terminal for the CLI scenarios.
 */
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { AdapterDriver, Position } from '../conformance/adapter-driver.js';
import type { CliEditor, CliScenarioDriver } from '../conformance/cli-driver.js';
import { startCliSession } from '../real-clients/cli-session.js';
import type { Sandbox } from '../sandbox.js';
import type { EditorVersion } from './editor-version.js';
import {
  neovimArgs,
  neovimEnv,
  NeovimSession,
  neovimSkipReason,
  type NeovimOptions,
} from './neovim-session.js';
import { gestureKeys, moveKeys } from './vim-keys.js';

const KEYS = gestureKeys('<CR>');

/** Neovim as a user drives it: keys typed (`nvim_input`), the windows it shows read back. */
export class NeovimUnderTest implements CliEditor {
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

  /** Types `keys` in the proposal's window of the view of `filePath`. */
  private async typeInView(filePath: string, keys: string): Promise<void> {
    await this.focus(filePath);
    await this.session.input(keys);
  }

  appendLine(filePath: string, line: string): Promise<void> {
    return this.typeInView(filePath, `Go${line}<Esc>`);
  }

  accept(filePath: string, gesture: string): Promise<void> {
    return this.typeInView(filePath, KEYS.accept[gesture] ?? '');
  }

  reject(filePath: string, gesture: string): Promise<void> {
    return this.typeInView(filePath, KEYS.reject[gesture] ?? '');
  }

  messages(): Promise<string> {
    return this.session.lua<string>(`return vim.fn.execute('messages')`);
  }

  async quit(): Promise<void> {
    // Neovim ends while taking the keys: no reply comes.
    this.session.nvim.input(':qa<CR>').catch(() => undefined);
    const code = await this.session.waitForExit();
    if (code !== 0) throw new Error(`Neovim exited with status ${code}`);
  }

  async clientNames(): Promise<string[]> {
    return (await this.session.status()).clients.map((client) => client.name);
  }

  async bufferText(filePath: string): Promise<string> {
    const lines = await this.session.lua<string[]>(
      'return vim.api.nvim_buf_get_lines(vim.fn.bufnr(...), 0, -1, false)',
      [filePath],
    );
    return `${lines.join('\n')}\n`;
  }

  close(): Promise<void> {
    return this.session.close();
  }
}

/**
 * Neovim with the plugin of this checkout, or as `options` install it, for the adapter conformance
 * suite.
 */
export function neovimAdapterDriver(
  options: Pick<NeovimOptions, 'pluginDir' | 'env'> = {},
): AdapterDriver {
  return {
    name: 'Neovim',
    skip: neovimSkipReason({ sidecar: true }),
    gestures: { accept: Object.keys(KEYS.accept), reject: Object.keys(KEYS.reject) },
    async start(sandbox: Sandbox) {
      return new NeovimUnderTest(await NeovimSession.start(sandbox, { ...options, tandem: '{}' }));
    },
  };
}

// Neovim opens the file, starts Tandem and waits until it runs (the CLI looks for it once, at
// its start), then opens the CLI in a terminal in a second tab.
const START_LUA = `
vim.cmd('edit ' .. vim.fn.fnameescape(vim.env.TANDEM_TEST_FILE))
require('tandem').setup({})
vim.wait(20000, function() return require('tandem').status().state ~= 'starting' end, 50)
vim.cmd('tabnew')
vim.cmd('terminal sh -c "$TANDEM_TEST_CLI"')
vim.cmd('startinsert')
`;

// Or Neovim runs the CLI with `:Tandem <cli>`, the plugin's own command line for it, in a tab.
const START_BY_COMMAND_LUA = `
vim.cmd('edit ' .. vim.fn.fnameescape(vim.env.TANDEM_TEST_FILE))
require('tandem').setup({ terminal = { split = 'tab split' } })
vim.wait(20000, function() return require('tandem').status().state ~= 'starting' end, 50)
vim.cmd('Tandem ' .. vim.env.TANDEM_TEST_CLI_NAME)
`;

/**
 * Neovim `nvim` with the plugin, for the whole-CLI scenarios. With `byCommand`, `:Tandem <cli>`
 * runs the CLI with the plugin's default command line, the CLI's executable (a native binary, as
 * Claude Code's) put on the PATH under the CLI's name; else a `:terminal` runs the test's own.
 */
export function neovimCliDriver(
  nvim: EditorVersion,
  { byCommand = false }: { byCommand?: boolean } = {},
): CliScenarioDriver {
  return {
    name: nvim.name,
    terminal: byCommand ? `${nvim.name}'s :Tandem terminal` : `${nvim.name}'s terminal`,
    skip: neovimSkipReason({ sidecar: true, tmux: true, statedVersions: true }),
    gestures: { accept: ':w', reject: ':q' },
    diffHint: /accept: :w or <leader>da/,
    async startWithCli(sandbox, options, filePath, after) {
      const startLua = path.join(sandbox.root, 'start.lua');
      writeFileSync(startLua, byCommand ? START_BY_COMMAND_LUA : START_LUA);
      const bin = path.join(sandbox.root, 'bin');
      const socket = path.join(sandbox.root, 'nvim.sock');
      // The pane has the CLI's environment: Neovim's private folders come on its command line.
      const own = Object.entries(neovimEnv(sandbox)).filter(([name]) =>
        /^(XDG_(CONFIG|DATA|STATE|CACHE)_HOME|NVIM_LOG_FILE)$/.test(name),
      );
      const session = await startCliSession({
        ...options,
        command: (cli) => [
          'env',
          ...(byCommand ? onPath(bin, options.cli, cli.argv[0] ?? '', cli.env.PATH) : []),
          `TANDEM_TEST_CLI=${cli.shellLine}`,
          `TANDEM_TEST_CLI_NAME=${options.cli}`,
          `TANDEM_TEST_FILE=${filePath}`,
          ...own.map(([name, value]) => `${name}=${value}`),
          'TERM=xterm-256color',
          ...nvim.command(),
          ...neovimArgs('--listen', socket, '-c', `luafile ${startLua}`),
        ],
      });
      after(() => session.stop());
      const neovim = await NeovimSession.connect(sandbox, socket);
      after(() => neovim.close());
      return { session, editor: new NeovimUnderTest(neovim) };
    },
    async backToCli(session) {
      await session.type('2gt');
      await session.type('i');
    },
    async start(sandbox, filePath) {
      const editor = new NeovimUnderTest(
        await NeovimSession.start(sandbox, { tandem: '{}', nvim }),
      );
      await editor.openFile(filePath);
      return editor;
    },
  };
}

/** The `env` assignment that puts `executable` on the PATH as `name`, in a new folder `bin`. */
function onPath(bin: string, name: string, executable: string, path_ = ''): string[] {
  mkdirSync(bin, { recursive: true });
  symlinkSync(executable, path.join(bin, name));
  return [`PATH=${bin}:${path_}`];
}
