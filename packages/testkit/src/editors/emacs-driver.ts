/**
 * Emacs as the shared suites drive it: the adapter conformance steps (real keys in tmux, what
 * Emacs shows read through its server), and Emacs with a whole CLI in one of its terminals
 * (term, vterm, eat) for the CLI scenarios.
 */
import type { AdapterDriver, Position } from '../conformance/adapter-driver.js';
import type { CliEditor, CliScenarioDriver } from '../conformance/cli-driver.js';
import { startCliSession } from '../real-clients/cli-session.js';
import type { Sandbox } from '../sandbox.js';
import { waitFor, waitUntil } from '../wait.js';
import {
  EmacsSession,
  emacsSkipReason,
  lispString,
  prepareEmacs,
  type EmacsOptions,
} from './emacs-session.js';
import { cliSessionScreen } from './tmux-editor.js';

/** Keys that give the next command a numeric argument: `C-u 12`. */
function count(n: number): string[] {
  return ['C-u', ...String(n).split('')];
}

/** Emacs as a user drives it: keys pressed in its terminal, its state read through its server. */
export class EmacsUnderTest implements CliEditor {
  constructor(private readonly emacs: EmacsSession) {}

  async openFile(filePath: string): Promise<void> {
    await this.emacs.press('C-g', 'C-x', 'C-f');
    await this.emacs.type(filePath);
    await this.emacs.press('Enter');
  }

  async moveCursor({ line, character }: Position): Promise<void> {
    await this.endRegion();
    await this.goTo(line, character);
  }

  /**
   * `C-g` until no region is active. A `C-g` that comes while Emacs runs a timer or a process
   * filter (the sidecar's messages) quits that instead of running `keyboard-quit`, and the
   * region stays: a user presses it again.
   */
  private async endRegion(): Promise<void> {
    const active = '(if (buffer-local-value (quote mark-active) (window-buffer)) "yes" "no")';
    await waitUntil('the region to end after C-g', async () => {
      await this.emacs.press('C-g');
      return (await this.emacs.text(active)) === 'no';
    });
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
    await this.endRegion();
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

  async appendLine(filePath: string, line: string): Promise<void> {
    await this.showProposal(filePath);
    await this.emacs.press('M->');
    await this.emacs.type(`${line}\n`);
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

  async clientNames(): Promise<string[]> {
    return (await this.emacs.status()).clients;
  }

  bufferText(filePath: string): Promise<string> {
    return this.emacs.text(
      `(with-current-buffer (get-file-buffer ${lispString(filePath)}) (buffer-string))`,
    );
  }
}

/**
 * Emacs with the package of this checkout, or as `options` install it, for the adapter conformance
 * suite.
 */
export function emacsAdapterDriver(
  options: Pick<EmacsOptions, 'packageUserDir' | 'env'> = {},
): AdapterDriver {
  return {
    name: 'Emacs',
    skip: emacsSkipReason({ sidecar: true, tmux: true }),
    gestures: { accept: ['C-c C-c'], reject: ['C-c C-k', 'C-x k', 'C-x 0'] },
    async start(sandbox: Sandbox) {
      return new EmacsUnderTest(await EmacsSession.start(sandbox, { ...options, tandem: true }));
    },
  };
}

/** The terminal `M-x tandem-run-<cli>` runs the CLI in: the best one Emacs has. */
export interface EmacsTerminal {
  /** In the tests' titles. */
  name: string;
  /** The major mode of the CLI's buffer. */
  mode: string;
  /** The terminal's package, put on Emacs' load path as a package manager does; none for term. */
  loadPath?: string;
}

const TERM: EmacsTerminal = { name: 'an Emacs terminal buffer', mode: 'term-mode' };

/** Emacs (the default version) with the package, for the whole-CLI scenarios. */
export function emacsCliDriver(terminal = TERM): CliScenarioDriver {
  return {
    name: 'Emacs',
    terminal: terminal.name,
    skip: emacsSkipReason({ sidecar: true, tmux: true }),
    gestures: { accept: 'C-c C-c', reject: 'C-c C-k' },
    diffHint: /C-c C-c accept · C-c C-k reject/,
    // Gemini CLI's prompt line, as term.el draws it, lacks its placeholder: it says Rejected.
    rejectedHint: /Rejected|Type your message/,
    /** Emacs visits the file, then runs the CLI with `M-x tandem-run-<cli>` (which starts Tandem). */
    async startWithCli(sandbox, options, filePath, after) {
      const launch = prepareEmacs(sandbox);
      const start = `(progn
        (find-file ${lispString(filePath)})
        (setq tandem-${options.cli}-command (getenv "TANDEM_TEST_CLI"))
        (call-interactively #'tandem-run-${options.cli}))`;
      const loadPath = terminal.loadPath ? ['-L', terminal.loadPath] : [];
      const session = await startCliSession({
        ...options,
        command: (cli) => [
          'env',
          `TANDEM_TEST_CLI=${cli.shellLine}`,
          'TERM=xterm-256color',
          ...launch.command(...loadPath, '--eval', start),
        ],
      });
      const emacs = new EmacsSession(sandbox, cliSessionScreen(session), launch.socket);
      after(async () => {
        // Quit Emacs first: its sidecar, not in the pane's process group, then cleans up at once.
        await emacs.eval('(kill-emacs)').catch(() => undefined);
        await session.stop();
      });
      await emacs.ready();
      await waitFor(`the CLI in ${terminal.mode}`, async () =>
        (await emacs.text(
          '(with-current-buffer (window-buffer (selected-window)) (symbol-name major-mode))',
        )) === terminal.mode
          ? true
          : undefined,
      );
      return { session, editor: new EmacsUnderTest(emacs) };
    },
    async start(sandbox, filePath) {
      return new EmacsUnderTest(
        await EmacsSession.start(sandbox, { tandem: true, args: [filePath] }),
      );
    },
  };
}
