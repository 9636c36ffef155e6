/**
 * What an editor adapter's test implements so that the conformance suite can drive that editor
 * as a user would. Every method acts through the editor's own means (keys, commands, its API),
 * never through Tandem's sidecar or engine.
 */
import type { Sandbox } from '../sandbox.js';

/** A place in a file: line and character both 1-based, characters in Unicode code points. */
export interface Position {
  line: number;
  character: number;
}

/** A diff view the editor shows now. */
export interface ShownDiff {
  /** The absolute path of the file the proposal is for. */
  filePath: string;
  /** The whole text of the proposed side, as the user could accept it now. */
  proposal: string;
}

/** One running editor with Tandem, started by `AdapterDriver.start`. */
export interface EditorUnderTest {
  /** Opens the file (absolute path) in the editor and makes it the active one. */
  openFile(filePath: string): Promise<void>;
  /** Puts the cursor of the active file at `position`, with no selection. */
  moveCursor(position: Position): Promise<void>;
  /** Selects the text of the active file from `first` to `last`, both characters included. */
  select(first: Position, last: Position): Promise<void>;
  /** Ends the selection, leaving the cursor where it is. */
  clearSelection(): Promise<void>;
  /** Every diff view shown now. */
  diffViews(): Promise<ShownDiff[]>;
  /** Replaces the whole proposed side of the view of `filePath` with `text`, as a user edits. */
  editProposal(filePath: string, text: string): Promise<void>;
  /**
   * Types `line` and a line break at the end of the proposed side of the view of `filePath`, as a
   * user adds a line; resolves once the editor has the edit.
   */
  appendLine(filePath: string, line: string): Promise<void>;
  /** Accepts the view of `filePath` with one of the driver's `gestures.accept`. */
  accept(filePath: string, gesture: string): Promise<void>;
  /** Rejects (or closes) the view of `filePath` with one of the driver's `gestures.reject`. */
  reject(filePath: string, gesture: string): Promise<void>;
  /** What the editor showed the user as messages so far (notifications, echo area...). */
  messages(): Promise<string>;
  /** Quits the editor as a user would; resolves once its process has ended. */
  quit(): Promise<void>;
  /** Ends the editor if it still runs (cleanup after each group of cases). */
  close(): Promise<void>;
  /**
   * What the editor and Tandem in it logged so far (the extension's or plugin's log, the
   * editor's own), printed with a failed case so that it explains itself.
   */
  logs?(): Promise<string>;
}

export interface AdapterDriver {
  /** The editor's name, shown in the tests' titles. */
  name: string;
  /** Why the suite cannot run here (a program missing, printed), or false. */
  skip: string | false;
  /** The named gestures that accept and that reject a diff in this editor. */
  gestures: { accept: string[]; reject: string[] };
  /**
   * Cases of the suite this editor cannot take, each with why (the case is skipped with it):
   * `emptiedAccept`, when the editor never hands over an empty text for an emptied proposal;
   * `endingSelection`, when the editor tells nothing of a selection ended with the cursor still.
   */
  cannot?: { emptiedAccept?: string; endingSelection?: string };
  /**
   * Starts the editor with Tandem in `sandbox.workspace` (its processes writing only inside the
   * sandbox), and resolves once Tandem runs and its discovery files exist.
   */
  start(sandbox: Sandbox): Promise<EditorUnderTest>;
}
