/**
 * The adapter conformance suite of @tandem/testkit, run against real Vim in tmux: the driver
 * types keys and commands as a user would, and reads what Vim shows through the test driver.
 */
import {
  runAdapterConformance,
  Sandbox,
  VimSession,
  vimSkipReason,
  waitFor,
  type EditorUnderTest,
  type Position,
} from '@tandem/testkit';

/** What each named gesture types; `<leader>` is Vim's default, a backslash. */
const ACCEPT: Record<string, string> = {
  ':w': ':w\r',
  ':TandemAccept': ':TandemAccept\r',
  '<leader>da': '\\da',
};
// The first one also rejects an edited proposal (`:q` refuses to drop the edits).
const REJECT: Record<string, string> = {
  ':TandemReject': ':TandemReject\r',
  ':q': ':q\r',
  '<leader>dr': '\\dr',
  'closing the tab (:tabclose)': ':tabclose\r',
};

/** Keys that move the cursor to `position` in Normal or Visual mode (`l` counts characters). */
function moveKeys({ line, character }: Position): string {
  return `${line}G0${character > 1 ? `${character - 1}l` : ''}`;
}

class VimEditor implements EditorUnderTest {
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

  async accept(filePath: string, gesture: string): Promise<void> {
    await this.focus(filePath);
    await this.vim.type(ACCEPT[gesture] ?? '');
  }

  async reject(filePath: string, gesture: string): Promise<void> {
    await this.focus(filePath);
    await this.vim.type(REJECT[gesture] ?? '');
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
}

runAdapterConformance({
  name: 'Vim',
  skip: vimSkipReason({ sidecar: true }),
  gestures: { accept: Object.keys(ACCEPT), reject: Object.keys(REJECT) },
  async start(sandbox: Sandbox) {
    const vim = await VimSession.start(sandbox);
    await vim.waitForState('running');
    return new VimEditor(vim);
  },
});
