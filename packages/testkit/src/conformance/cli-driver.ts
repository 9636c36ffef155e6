/**
 * What an editor's test implements so that the whole-CLI scenarios can run that editor with the
 * real Gemini CLI and Qwen Code (against fake models) in tmux: its conformance steps
 * (`EditorUnderTest`) and how the editor starts with a CLI in its own terminal.
 */
import type { CliSession, CliSessionOptions } from '../real-clients/cli-session.js';
import type { Sandbox } from '../sandbox.js';
import type { EditorUnderTest } from './adapter-driver.js';

/** The editor with Tandem, driven by its conformance steps, and what it shows of the CLI. */
export interface CliEditor extends EditorUnderTest {
  /** The names of the CLIs connected, as the editor shows them. */
  clientNames(): Promise<string[]>;
  /** The text of the buffer of `filePath` (not of a proposal), as the editor would write it. */
  bufferText(filePath: string): Promise<string>;
}

/** The editor in the pane of a CLI session, the CLI running in the editor's terminal. */
export interface EditorWithCli {
  session: CliSession;
  editor: CliEditor;
}

export interface CliScenarioDriver {
  /** The editor's name in the tests' titles: `Vim`, `Neovim 0.7.2`. */
  name: string;
  /** Where the CLI runs inside the editor, in the tests' titles: `Vim's terminal`. */
  terminal: string;
  /** Why the scenarios cannot run here (a program missing, printed), or false. */
  skip: string | false;
  /** The gestures (of the editor's conformance driver) the scenarios accept and reject with. */
  gestures: { accept: string; reject: string };
  /** What the CLI's screen shows while the editor in it shows a diff. */
  diffHint: RegExp;
  /** What the CLI's screen shows once it took a rejection (default: its prompt). */
  rejectedHint?: RegExp;
  /**
   * Starts the editor, as the pane of a CLI session (`options`), with the file `filePath` open
   * and the CLI in a terminal of the editor (run by the product's own command for it). Resolves
   * once the test can drive the editor; `after` takes the editor's own cleanup, run before the
   * session stops.
   */
  startWithCli(
    sandbox: Sandbox,
    options: CliSessionOptions,
    filePath: string,
    after: (cleanup: () => Promise<void>) => void,
  ): Promise<EditorWithCli>;
  /**
   * Types the keys that take the user from the diff back to the CLI's terminal in the editor,
   * its prompt taking the keys. Without it, the scenarios that answer in the CLI's terminal run
   * the CLI in a pane of its own.
   */
  backToCli?(session: CliSession): Promise<void>;
  /** Starts the editor alone in a pane of its own, `filePath` open and Tandem running. */
  start(sandbox: Sandbox, filePath: string): Promise<CliEditor>;
}
