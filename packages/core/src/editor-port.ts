import type { CliKind } from './clients/cli-settings.js';

/**
 * The one boundary between the engine and an editor. A frontend (an in-process extension,
 * `tandem bridge`, `tandem serve`) implements `EditorPort`; everything it learns from the
 * editor it passes to the engine through `EditorEvents`.
 */

/** The host editor, as the CLIs will name it in "Connected to <displayName>". */
export interface EditorInfo {
  /** A short machine name, e.g. `neovim`. */
  name: string;
  /** What the user reads, e.g. `Neovim`. */
  displayName: string;
  version?: string;
  /** The editor's own live process id (Qwen Code deletes a lock file whose `ppid` is dead). */
  pid: number;
}

/** A CLI session connected to the engine. */
export interface ConnectedClient {
  sessionId: string;
  /** `Gemini CLI`, `Qwen Code`, or the name the client gave itself. */
  name: string;
  /** The client's own version; `''` when it names none (Qwen Code reports a fixed, false one). */
  version: string;
}

/** A proposed edit that the editor should show. */
export interface DiffRequest {
  /** Unique for the engine's life. */
  id: string;
  /** Absolute path, exactly as the CLI sent it. */
  filePath: string;
  /** The file on disk when the diff was opened; `null` when it does not exist yet. */
  oldContent: string | null;
  newContent: string;
  client: ConnectedClient;
}

/**
 * The largest request a CLI may send the engine, hence the largest proposal: its text is at
 * most this many bytes.
 */
export const MAX_PROPOSAL_BYTES = 64 * 1024 * 1024;

/**
 * What every frontend takes back as one answer (a bridge line, a request of the review page), so
 * that any proposal the engine accepted can be accepted back. The CLIs escape its text with
 * `JSON.stringify`, within `MAX_PROPOSAL_BYTES`; any other JSON encoder takes at most three
 * times as many bytes for the same text (`\u00e9` for `é`, `\u000a` for a newline, `\/`
 * for `/`), plus room for the rest of the message.
 */
export const MAX_ANSWER_BYTES = 3 * MAX_PROPOSAL_BYTES + 1024 * 1024;

/**
 * Why a diff view closes without the user's answer in it. `terminal`: the user answered in the
 * CLI's terminal — approved or cancelled, the CLIs do not say which (the engine finds out on
 * disk and tells `diffOutcome` later); `withdrawn`: the CLI closed it without an answer;
 * `replaced`: the CLI proposed the same file again; `client-left`: its CLI went away;
 * `stopping`: the editor's companion stops.
 */
export type DiffCloseReason = 'terminal' | 'withdrawn' | 'replaced' | 'client-left' | 'stopping';

/**
 * What the user is told once a view closed without their answer, decided by the engine from the
 * text the view held: the frontend shows `message`, and keeps `keptText` when there is one.
 */
export interface DiffClosedNotice {
  reason: DiffCloseReason;
  /** The diff's file, exactly as the CLI sent it. */
  filePath: string;
  /** For people: why the view closed, and what becomes of the file and of the user's edits. */
  message: string;
  /**
   * The user's edited text, which reaches no file: keep it where they can still take it (a
   * scratch buffer, a notice to copy from). Absent when they had not edited the proposal, or
   * when the CLI writes their edits.
   */
  keptText?: string;
}

/**
 * What became of a diff the user answered in its CLI's terminal, as the engine found it on disk
 * a moment after the CLI closed it: `approved` (the CLI wrote the file), `cancelled` (nothing
 * was written), `changed` (the file changed, but not to what the CLI writes).
 */
export interface DiffOutcomeNotice {
  kind: 'approved' | 'cancelled' | 'changed';
  /** The diff's file, exactly as the CLI sent it. */
  filePath: string;
  /** For people: one sentence on what happened to the file and to the user's edits. */
  message: string;
}

/** A diagnostic as the editor shows it; lines and characters 0-based. */
export interface Diagnostic {
  message: string;
  severity: 'Error' | 'Warning' | 'Information' | 'Hint';
  range: { start: { line: number; character: number }; end: { line: number; character: number } };
  source?: string;
  code?: string;
}

/** The diagnostics of one file. */
export interface FileDiagnostics {
  /** Absolute path. */
  path: string;
  diagnostics: Diagnostic[];
}

/** What a frontend implements. */
export interface EditorPort {
  /** Show the diff. Resolve once it is shown; reject (with a reason) when it cannot be. */
  showDiff(diff: DiffRequest): Promise<void>;
  /**
   * Close the diff view without an answer and return the current text of the proposed side
   * (the user may have edited it). What the user is told follows in `diffClosed`. `client` is
   * the CLI that proposed it.
   */
  closeDiff(id: string, reason: DiffCloseReason, client: ConnectedClient): Promise<string>;
  /** After `closeDiff` returned: what to tell the user, and their edits to keep. */
  diffClosed?(id: string, notice: DiffClosedNotice): void;
  /**
   * What became of a diff closed with reason `terminal` (its view is already closed): a few
   * seconds after the close, once the engine saw the CLI write the file or not.
   */
  diffOutcome?(id: string, outcome: DiffOutcomeNotice): void;
  /** The set of connected CLIs changed. */
  clientsChanged?(clients: ConnectedClient[]): void;
  /** The warnings changed (see `Engine.warnings()`; the first list is read from the engine). */
  warningsChanged?(warnings: CompanionWarning[]): void;
  /**
   * The diagnostics the editor shows, of the file at `path` or, without it, of every file that
   * has some. Optional: an editor without it answers Claude Code's `getDiagnostics` with none.
   */
  diagnostics?(path?: string): Promise<FileDiagnostics[]>;
}

/**
 * What the engine says to a user's answer. `empty-accept`: the proposal was emptied, which both
 * CLIs would read as "write the proposal" — the diff stays open and the frontend shows `message`.
 * `not-open`: the diff was already answered or closed — the frontend closes its view.
 */
export type DiffAnswer =
  { ok: true } | { ok: false; code: 'empty-accept' | 'not-open'; message: string };

/** Lines of a file, 1-based, `end` included. */
export interface LineRange {
  start: number;
  end: number;
}

/**
 * What the engine says to a mention: `ok` when a CLI that takes mentions (Claude Code) received
 * it; `message` is what the frontend tells the user either way.
 */
export interface MentionAnswer {
  ok: boolean;
  message: string;
}

/** A place in a file: its line and character, both 1-based, characters in code points. */
export interface TextPosition {
  line: number;
  character: number;
}

/**
 * What a frontend tells the engine: plain editor facts. Paths are absolute; lines are 1-based,
 * characters are 1-based and counted in Unicode code points. The engine applies every rule of
 * the CLIs (limits, files on disk, empty accepts).
 */
export interface EditorEvents {
  fileOpened(path: string): void;
  fileClosed(path: string): void;
  fileFocused(path: string): void;
  /**
   * The cursor, and with a selection its text and, where the editor knows it, its `anchor`: the
   * end the selection began at, the cursor being the other (before it, when selected upwards).
   */
  cursorChanged(
    path: string,
    line: number,
    character: number,
    selectedText?: string,
    anchor?: TextPosition,
  ): void;
  /** The user accepted the diff, with `content` as the final text of the proposed side. */
  diffAccepted(id: string, content: string): DiffAnswer;
  diffRejected(id: string): DiffAnswer;
  /** The user sends the file, or `lines` of it, to the CLIs' prompts (as `@file#L2-3`). */
  mention(path: string, lines?: LineRange): MentionAnswer;
  workspaceChanged(folders: string[], isTrusted?: boolean): void | Promise<void>;
}

/**
 * The facts a user must know before a CLI silently does not do what they expect, computed once
 * for every frontend (the bridge's `initialize` reply and `warnings` notification, the page and
 * the start-up message of `tandem serve`, `tandem doctor`):
 * - `ide-mode-off`: the CLI never looks for an editor;
 * - `no-diffs`: its approval mode writes edits without asking, so no diff reaches the editor;
 * - `container`: Gemini CLI dials `host.docker.internal` from a terminal this editor did not open;
 * - `shared-folder`: another editor serves the same folder, and a CLI may pick either;
 * - `terminal-diffs`: Claude Code's `diffTool` keeps every diff in its terminal.
 */
export type WarningCode =
  'ide-mode-off' | 'no-diffs' | 'container' | 'shared-folder' | 'terminal-diffs';

export interface CompanionWarning {
  code: WarningCode;
  /** The CLI concerned; absent when it concerns every one. */
  cli?: CliKind | 'claude';
  /** What goes wrong, in one or two sentences. */
  message: string;
  /** What to do about it. */
  fix: string;
}
