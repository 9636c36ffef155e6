/**
 * A real Emacs for tests: `emacs -nw` in a tmux pane (a real frame, real key presses), its
 * server started so that `emacsclient --eval` can look inside, Tandem loaded from this
 * repository's `emacs/` folder, and every directory it could write to made private.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { REPO_ROOT } from '../repo-root.js';
import type { Sandbox } from '../sandbox.js';
import { waitFor } from '../wait.js';
import { editorSkipReason, waitForTandemState } from './editor-needs.js';
import { defaultEditor, type EditorVersion } from './editor-version.js';
import { startEditorPane, terminalEnv, type EditorScreen } from './tmux-editor.js';

const run = promisify(execFile);

/** Tandem's Emacs package in this checkout. */
export const EMACS_PACKAGE_DIR = path.join(REPO_ROOT, 'emacs');

/** The Emacs under test: the one `$TANDEM_EMACS` names, else the system's (28.2). */
export function emacsVersion(): EditorVersion {
  const found = defaultEditor('emacs');
  if (!found.editor) throw new Error(found.reason);
  return found.editor;
}

/** The command line that runs `program` (`emacs`, `emacsclient`) of the Emacs under test. */
export function emacsCommand(program = 'emacs'): string[] {
  return emacsVersion().command(program);
}

/** Why the Emacs tests cannot run here, or `false` (see `editorSkipReason`). */
export function emacsSkipReason(needs: { sidecar?: boolean; tmux?: boolean } = {}): string | false {
  return editorSkipReason('emacs', needs);
}

/** Emacs arguments: nothing of the user's, no native compilation, Tandem on the load path. */
export function emacsArgs(...extra: string[]): string[] {
  return [...bareEmacsArgs(), '-L', EMACS_PACKAGE_DIR, ...extra];
}

/** Emacs arguments: nothing of the user's, no native compilation. */
function bareEmacsArgs(): string[] {
  return ['-Q', '--eval', '(setq native-comp-deferred-compilation nil)'];
}

/** A Lisp string literal of `text`. */
export function lispString(text: string): string {
  return `"${text.replaceAll('\\', '\\\\').replaceAll('"', '\\"')}"`;
}

export interface EmacsStatus {
  state: string;
  error: string | null;
  folder: string | null;
  port: number | null;
  clients: string[];
  discoveryFiles: string[];
  diffs: { id: string; path: string }[];
}

/** A diff view as Emacs shows it. */
export interface EmacsDiffView {
  id: string;
  path: string;
  proposal: string;
  disk: string;
  proposalHeader: string;
  diskHeader: string;
  mode: string;
  diskReadOnly: boolean;
  /** Whether the proposal is in the selected window. */
  selected: boolean;
}

export interface EmacsOptions {
  /** Turn `tandem-mode` on and wait until it runs. */
  tandem?: boolean;
  /** More arguments for Emacs, after Tandem's load path (e.g. files to visit). */
  args?: string[];
  /** More variables for Emacs. */
  env?: Record<string, string>;
  /**
   * Tandem as package.el installed it into this `package-user-dir` (activated, its autoloads
   * read, nothing loaded), instead of this checkout's `emacs/` on the load path.
   */
  packageUserDir?: string;
  width?: number;
  height?: number;
}

/** The folders of one Emacs in a sandbox, and the command line that starts it. */
export interface EmacsLaunch {
  dir: string;
  socket: string;
  /** `emacs -nw` with its server started and Tandem loaded; `extra` arguments last. */
  command(...extra: string[]): string[];
}

export function prepareEmacs(sandbox: Sandbox, packageUserDir?: string): EmacsLaunch {
  shareNativeCode(sandbox);
  const dir = path.join(sandbox.root, 'emacs-session');
  // Emacs refuses a server directory that others may read.
  const serverDir = path.join(dir, 'server');
  mkdirSync(serverDir, { recursive: true, mode: 0o700 });
  const tandem = packageUserDir
    ? `(progn (require 'package) (setq package-user-dir ${lispString(packageUserDir)} package-archives nil) (package-initialize))`
    : `(require 'tandem)`;
  const start = `(progn (setq server-socket-dir ${lispString(serverDir)}) (server-start) (require 'json) ${tandem})`;
  const args = (...extra: string[]) =>
    packageUserDir ? [...bareEmacsArgs(), ...extra] : emacsArgs(...extra);
  return {
    dir,
    socket: path.join(serverDir, 'server'),
    command: (...extra) => [...emacsCommand(), '-nw', ...args('--eval', start, ...extra)],
  };
}

/**
 * Emacs compiles the Lisp files it loads to native code in the background, into HOME's
 * `.emacs.d/eln-cache`, some of them before `--eval` can turn that off: with a fresh HOME per
 * test, every test's Emacs compiled the same files again, seconds of CPU each. The sandbox's
 * eln-cache is the checkout's own (in the git-ignored `.cache`, which the editor roots see too),
 * so each file compiles once per checkout and Emacs version.
 */
function shareNativeCode(sandbox: Sandbox): void {
  const shared = path.join(REPO_ROOT, '.cache', 'emacs-eln-cache');
  const cache = path.join(sandbox.home, '.emacs.d', 'eln-cache');
  if (existsSync(cache)) return;
  mkdirSync(shared, { recursive: true, mode: 0o700 });
  mkdirSync(path.dirname(cache), { recursive: true });
  symlinkSync(shared, cache);
}

/** One `emacs -nw` in a tmux pane, in a sandbox, looked into through its server. */
export class EmacsSession {
  constructor(
    readonly sandbox: Sandbox,
    readonly pane: EditorScreen,
    readonly socket: string,
  ) {}

  /** Starts Emacs in `sandbox.workspace` with Tandem on its load path and its server running. */
  static async start(sandbox: Sandbox, options: EmacsOptions = {}): Promise<EmacsSession> {
    const launch = prepareEmacs(sandbox, options.packageUserDir);
    const pane = await startEditorPane(sandbox, {
      dir: launch.dir,
      // tmux sets TERM=screen in its panes: 256 colours, as most terminals people use have.
      // Emacs 30 would natively compile its own libraries in the background in every session,
      // whatever native-comp-deferred-compilation says: CPU taken from tests and benchmarks.
      argv: [
        'env',
        'TERM=xterm-256color',
        'EMACS_INHIBIT_AUTOMATIC_NATIVE_COMPILATION=1',
        ...launch.command(...(options.args ?? [])),
      ],
      env: terminalEnv(sandbox, options.env),
      width: options.width,
      height: options.height,
    });
    const session = new EmacsSession(sandbox, pane, launch.socket);
    try {
      await session.ready();
      if (options.tandem) {
        // As M-x would: in the buffer the user looks at.
        await session.eval(
          '(with-current-buffer (window-buffer (selected-window)) (tandem-mode 1))',
        );
        await session.waitForState('running');
      }
    } catch (error) {
      await pane.stop();
      throw error;
    }
    return session;
  }

  /** Waits until the server of this Emacs answers. */
  async ready(): Promise<void> {
    await waitFor('the Emacs server', async () => {
      const ending = await this.pane.ending();
      if (ending) throw new Error(`Emacs ended (${ending}):\n${await this.pane.capture()}`);
      return existsSync(this.socket) ? true : undefined;
    });
    await waitFor('Emacs to answer', () => this.eval('t'));
  }

  /** Evaluates `lisp` in Emacs; returns what emacsclient prints (Lisp's printed form). */
  async eval(lisp: string): Promise<string> {
    const [program, ...prefix] = emacsCommand('emacsclient');
    const { stdout } = await run(program!, [...prefix, '-s', this.socket, '--eval', lisp], {
      cwd: this.sandbox.workspace,
      env: this.sandbox.env(),
      maxBuffer: 64 * 1024 * 1024,
    });
    return stdout.trim();
  }

  /** Evaluates `lisp` and returns its value as JSON (`json-encode`) parsed. */
  async json<T>(lisp: string): Promise<T> {
    const printed = await this.eval(
      `(base64-encode-string (encode-coding-string (json-encode ${lisp}) 'utf-8) t)`,
    );
    return JSON.parse(Buffer.from(printed.replaceAll('"', ''), 'base64').toString('utf8')) as T;
  }

  /** Evaluates `lisp`, whose value is a string, and returns that string. */
  text(lisp: string): Promise<string> {
    return this.json<string>(lisp);
  }

  status(): Promise<EmacsStatus> {
    return this.json<EmacsStatus>(`(let-alist (tandem-status-data)
      (list (cons 'state .state) (cons 'error .error) (cons 'folder .folder) (cons 'port .port)
            (cons 'clients (vconcat .clients)) (cons 'discoveryFiles (vconcat .discovery-files))
            (cons 'diffs (vconcat (mapcar (lambda (d) (list (cons 'id (car d)) (cons 'path (cadr d)))) .diffs)))))`);
  }

  waitForState(state: string): Promise<EmacsStatus> {
    return waitForTandemState(state, () => this.status(), { details: () => this.log() });
  }

  /** The open diff views, oldest first. */
  views(): Promise<EmacsDiffView[]> {
    return this.json<EmacsDiffView[]>(`(vconcat
      (mapcar (lambda (view)
                (let ((disk (tandem-diff-view-disk view))
                      (proposal (tandem-diff-view-proposal view)))
                  (list (cons 'id (tandem-diff-view-id view))
                        (cons 'path (tandem-diff-view-path view))
                        (cons 'proposal (tandem-diff-proposal-text view))
                        (cons 'disk (with-current-buffer disk (buffer-string)))
                        (cons 'proposalHeader (format-mode-line (buffer-local-value 'header-line-format proposal)))
                        (cons 'diskHeader (format-mode-line (buffer-local-value 'header-line-format disk)))
                        (cons 'mode (symbol-name (buffer-local-value 'major-mode proposal)))
                        (cons 'diskReadOnly (if (buffer-local-value 'buffer-read-only disk) t :json-false))
                        (cons 'selected (if (eq (window-buffer (selected-window)) proposal) t :json-false)))))
              (and tandem--session (tandem-diffs-views (tandem-session-diffs tandem--session)))))`);
  }

  /** Waits until `count` diffs are open. */
  waitForDiffs(count: number, timeoutMs?: number): Promise<EmacsStatus> {
    return waitFor(
      `${count} open diffs in Emacs`,
      async () => {
        const status = await this.status();
        return status.diffs.length === count ? status : undefined;
      },
      timeoutMs,
    );
  }

  /** The log buffer of Tandem. */
  log(): Promise<string> {
    return this.text(
      `(if (get-buffer "*tandem-log*") (with-current-buffer "*tandem-log*" (buffer-string)) "")`,
    );
  }

  /** tmux key names, e.g. `C-c`, `Enter`, `M-x`, or single characters. */
  keys(...keys: string[]): Promise<void> {
    return this.pane.sendKeys(...keys);
  }

  /** Types text literally. */
  type(text: string): Promise<void> {
    return this.pane.type(text);
  }

  /** Types keys one after the other, waiting until Emacs has taken each. */
  async press(...keys: string[]): Promise<void> {
    for (const key of keys) {
      await this.keys(key);
      await this.settled();
    }
  }

  /** Resolves once Emacs has taken all input so far (the server answers only between commands). */
  async settled(): Promise<void> {
    await this.eval('t');
  }

  screen(): Promise<string> {
    return this.pane.capture();
  }

  async waitForScreen(pattern: RegExp, timeoutMs?: number): Promise<string> {
    let last = '';
    return waitFor(
      `${pattern} on the screen`,
      async () => {
        last = await this.screen();
        return pattern.test(last) ? last : undefined;
      },
      timeoutMs,
    ).catch((error: unknown) => {
      throw new Error(`${String(error)}; screen:\n${last}`);
    });
  }

  /** Waits until Emacs has ended by itself; returns how (see `TmuxPane.ending`). */
  waitForExit(timeoutMs = 20_000): Promise<string> {
    return waitFor('Emacs to exit', () => this.pane.ending(), timeoutMs);
  }

  /** Ends Emacs if it still runs, and its tmux server. */
  async close(): Promise<void> {
    if ((await this.pane.ending().catch(() => 'gone')) === undefined) {
      await this.eval('(kill-emacs)').catch(() => undefined);
      await waitFor('Emacs to exit', () => this.pane.ending(), 10_000).catch(() => undefined);
    }
    await this.pane.stop();
  }
}
