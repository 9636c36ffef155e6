/**
 * The adapter conformance suite (`@tandem/testkit`), run on Emacs: Emacs in tmux driven with
 * real keys, judged by the real Gemini CLI and Qwen Code clients.
 */
import {
  EmacsSession,
  emacsSkipReason,
  lispString,
  runAdapterConformance,
  Sandbox,
  type AdapterDriver,
  type EditorUnderTest,
  type Position,
} from '@tandem/testkit';

/** Keys that give the next command a numeric argument: `C-u 12`. */
function count(n: number): string[] {
  return ['C-u', ...String(n).split('')];
}

class EmacsUnderTest implements EditorUnderTest {
  constructor(private readonly emacs: EmacsSession) {}

  async openFile(filePath: string): Promise<void> {
    await this.emacs.press('C-g', 'C-x', 'C-f');
    await this.emacs.type(filePath);
    await this.emacs.press('Enter');
  }

  async moveCursor({ line, character }: Position): Promise<void> {
    await this.emacs.press('C-g');
    await this.goTo(line, character);
  }

  /** `M-g g` to the line, then forward to the character (an active region stays active). */
  private async goTo(line: number, character: number): Promise<void> {
    await this.emacs.press('M-g', 'g');
    await this.emacs.type(String(line));
    await this.emacs.press('Enter', 'C-a', ...count(character - 1), 'C-f');
  }

  async select(first: Position, last: Position): Promise<void> {
    await this.moveCursor(first);
    await this.emacs.press('C-SPace');
    // The region ends before point: point goes just past the last character.
    await this.goTo(last.line, last.character + 1);
  }

  async clearSelection(): Promise<void> {
    await this.emacs.press('C-g');
  }

  async diffViews() {
    const views = await this.emacs.views();
    return views.map((view) => ({ filePath: view.path, proposal: view.proposal }));
  }

  /** Shows the proposal of `filePath` in the selected window, as `C-x b` does. */
  private async showProposal(filePath: string): Promise<void> {
    const name = await this.emacs.text(
      `(buffer-name (tandem-diff-view-proposal (cl-find ${lispString(filePath)} (tandem-diffs-views (tandem-session-diffs tandem--session)) :key #'tandem-diff-view-path :test #'equal)))`,
    );
    const current = await this.emacs.text('(buffer-name (window-buffer (selected-window)))');
    if (current === name) return;
    await this.emacs.press('C-g', 'C-x', 'b');
    await this.emacs.type(name);
    await this.emacs.press('Enter');
  }

  async editProposal(filePath: string, text: string): Promise<void> {
    await this.showProposal(filePath);
    await this.emacs.press('C-x', 'h', 'C-w');
    if (text !== '') await this.emacs.type(text);
    await this.emacs.settled();
  }

  async accept(filePath: string, gesture: string): Promise<void> {
    await this.showProposal(filePath);
    await this.emacs.press(...gesture.split(' '));
  }

  async reject(filePath: string, gesture: string): Promise<void> {
    await this.showProposal(filePath);
    await this.emacs.press(...gesture.split(' '));
    // C-x k asks which buffer to kill, the proposal by default.
    if (gesture === 'C-x k') await this.emacs.press('Enter');
  }

  messages(): Promise<string> {
    return this.emacs.text('(with-current-buffer (messages-buffer) (buffer-string))');
  }

  async quit(): Promise<void> {
    await this.emacs.keys('C-x', 'C-c');
    await this.emacs.waitForExit();
  }

  close(): Promise<void> {
    return this.emacs.close();
  }
}

const driver: AdapterDriver = {
  name: 'Emacs',
  skip: emacsSkipReason({ sidecar: true, tmux: true }),
  gestures: { accept: ['C-c C-c'], reject: ['C-c C-k', 'C-x k', 'C-x 0'] },
  async start(sandbox: Sandbox) {
    return new EmacsUnderTest(await EmacsSession.start(sandbox, { tandem: true }));
  },
};

runAdapterConformance(driver);
