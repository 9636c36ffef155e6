/**
 * Vim as the shared suites drive it: the adapter conformance steps (keys and commands typed as a
 * user would, what Vim shows read through its test driver), and Vim with a whole CLI in its
 * terminal for the CLI scenarios.
 */
import type { AdapterDriver, Position } from '../conformance/adapter-driver.js';
import type { CliEditor, CliScenarioDriver } from '../conformance/cli-driver.js';
import { startCliSession } from '../real-clients/cli-session.js';
import type { Sandbox } from '../sandbox.js';
import { waitFor } from '../wait.js';
import { cliSessionScreen } from './tmux-editor.js';
import { vimArgv, VimSession, vimSkipReason, type VimOptions } from './vim-session.js';
import { gestureKeys, moveKeys } from './vim-keys.js';

const KEYS = gestureKeys('\r');

/** Vim as a user drives it: keys typed in its terminal, its state read through `vim-test-driver.vim`. */
export class VimUnderTest implements CliEditor {
  constructor(private readonly vim: VimSession) {}

  /** Types `keys` in Normal mode and waits until Vim has taken them. */
  private async normal(keys: string): Promise<void> {
    await this.vim.keys('Escape');
    await this.vim.type(keys);
    await this.settled();
  }

  /** Waits until Vim has read every key typed so far (it is waiting for more). */
  private async settled(): Promise<void> {
    const mark = `tandem-${Date.now()}`;
    await this.vim.command(`let g:tandem_test_mark = ''`);
    await this.vim.type(`:let g:tandem_test_mark = '${mark}'\r`);
    await waitFor('Vim to take the keys', async () =>
      (await this.vim.eval<string>('g:tandem_test_mark')) === mark ? true : undefined,
    );
  }

  async openFile(filePath: string): Promise<void> {
    await this.vim.keys('Escape');
    await this.vim.command(`edit ${filePath.replace(/[ \\%#|"]/g, '\\$&')}`);
  }

  async moveCursor(position: Position): Promise<void> {
    await this.normal(moveKeys(position));
  }

  async select(first: Position, last: Position): Promise<void> {
    await this.vim.keys('Escape');
    await this.vim.type(`${moveKeys(first)}v${moveKeys(last)}`);
  }

  async clearSelection(): Promise<void> {
    await this.vim.keys('Escape');
  }

  /** The views whose proposal is on screen in a window, with the proposal's text. */
  diffViews() {
    return this.vim.eval<{ filePath: string; proposal: string }[]>(
      `map(filter(tandem#status().diffs, {_, d -> !empty(win_findbuf(d.buffer))}),` +
        ` {_, d -> {'filePath': d.path, 'proposal': join(getbufline(d.buffer, 1, '$'), "\\n")}})`,
    );
  }

  /** Goes to the proposal's window of the view of `filePath`, in Normal mode. */
  private async focus(filePath: string): Promise<void> {
    await this.vim.keys('Escape');
    const found = await this.vim.eval<number>(
      `win_gotoid(get(win_findbuf(get(filter(tandem#status().diffs,` +
        ` {_, d -> d.path ==# ${JSON.stringify(filePath)}}), 0, {'buffer': -1}).buffer), 0, 0))`,
    );
    if (!found) throw new Error(`no diff view of ${filePath}`);
  }

  async editProposal(filePath: string, text: string): Promise<void> {
    await this.focus(filePath);
    await this.normal('ggdG');
    if (text !== '') {
      await this.vim.type(`i${text.replace(/\n$/, '')}`);
      await this.vim.keys('Escape');
      await this.settled();
    }
  }

  async appendLine(filePath: string, line: string): Promise<void> {
    await this.focus(filePath);
    await this.vim.type(`Go${line}`);
    await this.vim.keys('Escape');
    await this.settled();
  }

  accept(filePath: string, gesture: string): Promise<void> {
    return this.typeInView(filePath, KEYS.accept[gesture] ?? '');
  }

  reject(filePath: string, gesture: string): Promise<void> {
    return this.typeInView(filePath, KEYS.reject[gesture] ?? '');
  }

  /** Types `keys` in the proposal's window of the view of `filePath`. */
  private async typeInView(filePath: string, keys: string): Promise<void> {
    await this.focus(filePath);
    await this.vim.type(keys);
  }

  messages(): Promise<string> {
    return this.vim.eval<string>(`execute('messages')`);
  }

  async quit(): Promise<void> {
    await this.vim.keys('Escape');
    await this.vim.type(':qa\r');
    await waitFor('Vim to exit', async () => ((await this.vim.exited()) ? true : undefined));
  }

  close(): Promise<void> {
    return this.vim.close();
  }

  async clientNames(): Promise<string[]> {
    return (await this.vim.status()).clients.map((client) => client.name);
  }

  async bufferText(filePath: string): Promise<string> {
    const lines = await this.vim.eval<string[]>(
      `getbufline(bufnr(${JSON.stringify(filePath)}), 1, '$')`,
    );
    return `${lines.join('\n')}\n`;
  }
}

/**
 * Vim with the plugin of this checkout, or as `options` install it, for the adapter conformance
 * suite.
 */
export function vimAdapterDriver(
  options: Pick<VimOptions, 'pluginDir' | 'env'> = {},
): AdapterDriver {
  return {
    name: 'Vim',
    skip: vimSkipReason({ sidecar: true }),
    gestures: { accept: Object.keys(KEYS.accept), reject: Object.keys(KEYS.reject) },
    async start(sandbox: Sandbox) {
      const vim = await VimSession.start(sandbox, options);
      await vim.waitForState('running');
      return new VimUnderTest(vim);
    },
  };
}

/** Vim (the default version) with the plugin, for the whole-CLI scenarios. */
export function vimCliDriver(): CliScenarioDriver {
  return {
    name: 'Vim',
    terminal: "Vim's terminal",
    skip: vimSkipReason({ sidecar: true }),
    gestures: { accept: ':w', reject: ':q' },
    diffHint: /accept: :w or <leader>da/,
    /** Vim edits the file; `:Tandem cli` (the product's command) runs the CLI. */
    async startWithCli(sandbox, options, filePath, after) {
      VimSession.prepare(sandbox);
      const session = await startCliSession({
        ...options,
        command: (cli) =>
          vimArgv(sandbox, {
            env: { TERM: 'xterm-256color' },
            before: [
              `let g:tandem_clis = {'cli': ['sh', '-c', ${JSON.stringify(cli.shellLine)}]}`,
              // The whole width: typed into a narrow terminal, Qwen Code's prompt wraps and its
              // Enter is taken as part of a paste.
              `let g:tandem_terminal_split = 'tab split'`,
            ],
            args: [filePath, '-c', 'Tandem cli'],
          }),
      });
      after(() => session.stop());
      const vim = await VimSession.attach(sandbox, cliSessionScreen(session));
      return { session, editor: new VimUnderTest(vim) };
    },
    // Back to the CLI's tab: its terminal takes the keys again.
    backToCli: (session) => session.type('2gt'),
    async start(sandbox, filePath) {
      const vim = await VimSession.start(sandbox, { args: [filePath] });
      await vim.waitForState('running');
      return new VimUnderTest(vim);
    },
  };
}
