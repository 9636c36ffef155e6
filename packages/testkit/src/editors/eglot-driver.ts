/**
 * Emacs's own LSP client, eglot (built in since Emacs 29), with `tandem lsp` as a language
 * server and Tandem's package not started: the adapter conformance steps as a user takes them,
 * with real keys in tmux; what Emacs shows read through its server.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { AdapterDriver, Position, ShownDiff } from '../conformance/adapter-driver.js';
import { REPO_ROOT } from '../repo-root.js';
import type { Sandbox } from '../sandbox.js';
import { waitFor } from '../wait.js';
import { EmacsUnderTest } from './emacs-driver.js';
import { EmacsSession, emacsSkipReason } from './emacs-session.js';
import type { EditorVersion } from './editor-version.js';
import { tandemOnPath } from './tandem-on-path.js';

/**
 * The user's configuration: the one docs/lsp.md gives for eglot, read from there, so that what
 * users copy is what runs here.
 */
function configLisp(): string {
  const docs = readFileSync(path.join(REPO_ROOT, 'docs', 'lsp.md'), 'utf8');
  const section = docs.slice(docs.indexOf('### Emacs (eglot)'));
  const block = /```elisp\n([\s\S]*?)```/.exec(section)?.[1];
  if (!block) throw new Error("docs/lsp.md has no elisp block under '### Emacs (eglot)'");
  return block;
}

/**
 * For the tests' pace: eldoc asks at point (eglot's hover and highlight, by which Tandem learns
 * where the cursor rests) after a shorter idle time than its default half second.
 */
const PACE_LISP = '(setq eldoc-idle-delay 0.05)';

// The suite connects its clients before it opens a file: start eglot at once for the workspace,
// as M-x eglot does in a text buffer of it, with the server (its class and command) the
// configuration names for text (a file opened later joins it).
const START_LISP = `(let* ((default-directory (file-name-as-directory (expand-file-name ".")))
       (contact (alist-get '(text-mode prog-mode) eglot-server-programs nil nil #'equal))
       (class (and (symbolp (car contact)) (car contact))))
  (eglot '(text-mode) (cons 'transient default-directory) (or class 'eglot-lsp-server)
         (if class (cdr contact) contact) '("text"))
  "started")`;

/**
 * What the test watches in Emacs: for each file, whether the marks eglot received last for it
 * say it waits for an answer (Tandem's pending mark). Flymake shows them, but drops a mark
 * whose text is deleted, as in an emptied proposal.
 */
const WATCH_MARKS_LISP = `(progn
  (defvar tandem-test-pending (make-hash-table :test 'equal))
  (cl-defmethod eglot-handle-notification :before
    (_server (_method (eql 'textDocument/publishDiagnostics)) &key uri diagnostics
             &allow-other-keys)
    (puthash (decode-coding-string (expand-file-name (eglot-uri-to-path uri)) 'utf-8)
             (seq-some (lambda (d) (equal (plist-get d :code) "tandem.pending")) diagnostics)
             tandem-test-pending)))`;

/** The buffers of proposals still waiting for an answer. */
const PENDING_PROPOSALS_LISP = `(vconcat (delq nil (mapcar (lambda (buffer)
  (with-current-buffer buffer
    (when (and buffer-file-name
               (gethash (expand-file-name buffer-file-name) tandem-test-pending))
      (list :name (file-name-nondirectory buffer-file-name) :buffer (buffer-name)
            :text (buffer-substring-no-properties (point-min) (point-max))))))
  (buffer-list))))`;

/** Whether eldoc has asked at point (eldoc.el, `eldoc--request-state`: buffer, tick, point). */
const ELDOC_ASKED_HERE_LISP = `(with-current-buffer (window-buffer (selected-window))
  (if (equal eldoc--last-request-state (eldoc--request-state)) "yes" "no"))`;

/** The gestures that take Tandem's code actions (`M-x eglot-code-actions`). */
const CODE_ACTION = { accept: 'the Accept code action', reject: 'the Reject code action' };

/** Emacs with eglot talking to `tandem lsp`, driven as a user would. */
export class EglotUnderTest {
  /** The steps Emacs takes the same with or without Tandem's package. */
  private readonly plain: EmacsUnderTest;

  constructor(
    private readonly emacs: EmacsSession,
    private readonly workspace: string,
  ) {
    this.plain = new EmacsUnderTest(emacs);
  }

  openFile(filePath: string): Promise<void> {
    return this.plain.openFile(filePath);
  }

  moveCursor(position: Position): Promise<void> {
    return this.plain.moveCursor(position);
  }

  /**
   * Selects, then sends the selection with Tandem's code action: `M-x eglot-code-actions` on the
   * region (eglot asks for no code action by itself). Eldoc asks at point once per place: the
   * code action waits until it has asked at the region's end, as it does while a user selects,
   * so that its hover does not come after the selection and end it.
   */
  async select(first: Position, last: Position): Promise<void> {
    await this.plain.select(first, last);
    await waitFor('eldoc to ask at the end of the region', async () =>
      (await this.emacs.text(ELDOC_ASKED_HERE_LISP)) === 'yes' ? true : undefined,
    );
    await this.codeAction('Tandem: send');
  }

  clearSelection(): Promise<void> {
    return this.plain.clearSelection();
  }

  private async pending(): Promise<{ name: string; buffer: string; text: string }[]> {
    return this.emacs.json(PENDING_PROPOSALS_LISP);
  }

  /**
   * The proposals open and still waiting for an answer (Tandem's first mark): an answered
   * proposal stays open, saying what became of it, since LSP cannot close a document. A
   * proposal has the name of its file; the suite's files are in the workspace.
   */
  async diffViews(): Promise<ShownDiff[]> {
    return (await this.pending()).map(({ name, text }) => ({
      filePath: path.join(this.workspace, name),
      proposal: text,
    }));
  }

  /** Shows the proposal of `filePath` in the selected window, as `C-x b` does. */
  private async showProposal(filePath: string): Promise<void> {
    const name = path.basename(filePath);
    const proposal = (await this.pending()).find((each) => each.name === name);
    if (!proposal) throw new Error(`no proposal of ${name}`);
    const current = await this.emacs.text('(buffer-name (window-buffer (selected-window)))');
    if (current === proposal.buffer) return;
    await this.emacs.press('C-g', 'C-x', 'b');
    await this.emacs.type(proposal.buffer);
    await this.emacs.press('Enter');
  }

  /** Runs `edit`, then waits until eglot has sent Tandem the change (it sends it when idle). */
  private async changing(edit: () => Promise<void>): Promise<void> {
    await edit();
    await waitFor('eglot to send the change', async () =>
      (await this.emacs.text(
        '(if (with-current-buffer (window-buffer (selected-window)) eglot--recent-changes) "no" "yes")',
      )) === 'yes'
        ? true
        : undefined,
    );
    // A request leaves after the changes, and the server answers in order.
    await this.emacs.eval(
      `(with-current-buffer (window-buffer (selected-window))
         (jsonrpc-request (eglot-current-server) :textDocument/hover
                          (eglot--TextDocumentPositionParams)))`,
    );
  }

  async editProposal(filePath: string, text: string): Promise<void> {
    await this.showProposal(filePath);
    await this.changing(async () => {
      await this.emacs.press('C-x', 'h', 'C-w');
      if (text !== '') await this.emacs.type(text);
      await this.emacs.settled();
    });
  }

  async appendLine(filePath: string, line: string): Promise<void> {
    await this.showProposal(filePath);
    await this.changing(async () => {
      await this.emacs.press('M->');
      await this.emacs.type(`${line}\n`);
      await this.emacs.settled();
    });
  }

  async accept(filePath: string, gesture: string): Promise<void> {
    await this.showProposal(filePath);
    if (gesture === CODE_ACTION.accept) await this.codeAction('Tandem: accept');
    else await this.emacs.press(...gesture.split(' '));
  }

  /** `C-x k` asks which buffer (the proposal), then whether to drop edits (yes). */
  async reject(filePath: string, gesture: string): Promise<void> {
    await this.showProposal(filePath);
    if (gesture === CODE_ACTION.reject) {
      await this.codeAction('Tandem: reject');
      return;
    }
    const modified = await this.emacs.text(
      `(if (buffer-modified-p (window-buffer (selected-window))) "yes" "no")`,
    );
    await this.emacs.press(...gesture.split(' '), 'Enter');
    if (modified === 'yes') {
      await this.emacs.waitForScreen(/modified; kill anyway\?/);
      await this.emacs.type('yes');
      await this.emacs.press('Enter');
    }
  }

  /** `M-x eglot-code-actions` at point, the action whose title starts with `title` picked. */
  private async codeAction(title: string): Promise<void> {
    await this.emacs.press('M-x');
    await this.emacs.type('eglot-code-actions');
    await this.emacs.press('Enter');
    await this.emacs.waitForScreen(/Pick an action/);
    await this.emacs.type(title);
    await this.emacs.press('Tab', 'Enter');
  }

  messages(): Promise<string> {
    return this.plain.messages();
  }

  /** Evaluates `lisp` in Emacs, for a test that looks inside it; its value, through JSON. */
  json<T>(lisp: string): Promise<T> {
    return this.emacs.json<T>(lisp);
  }

  quit(): Promise<void> {
    return this.plain.quit();
  }

  close(): Promise<void> {
    return this.plain.close();
  }
}

/** Emacs `emacs` (29 or newer; the default version when not given) with eglot and `tandem lsp`. */
export function eglotDriver(emacs?: EditorVersion): AdapterDriver {
  return {
    name: `${emacs?.name ?? 'Emacs'}'s eglot`,
    skip: emacsSkipReason({ sidecar: true, tmux: true }),
    // The first of each also answers a proposal as it came (Emacs saves a buffer only once it
    // is changed) and an edited one.
    gestures: { accept: [CODE_ACTION.accept, 'C-x C-s'], reject: [CODE_ACTION.reject, 'C-x k'] },
    cannot: {
      // /usr/share/emacs/30.2/lisp/emacs-lisp/eldoc.el:381-383, :948-958.
      endingSelection:
        'eglot asks at point only through eldoc, which asks once per place (buffer, ' +
        'modification tick, point): a region ended with point still sends nothing until point ' +
        'moves, and the region reaches Tandem only through M-x eglot-code-actions',
    },
    async start(sandbox: Sandbox) {
      const bin = tandemOnPath(sandbox);
      const emacs = await EmacsSession.start(sandbox, {
        env: { PATH: `${bin}:${process.env.PATH}` },
      });
      try {
        await emacs.eval(
          `(progn ${configLisp()} (require 'eglot) ${PACE_LISP} ${WATCH_MARKS_LISP})`,
        );
        const started = await emacs.text(START_LISP);
        if (started !== 'started') throw new Error(`eglot did not start: ${started}`);
      } catch (error) {
        await emacs.close();
        throw error;
      }
      return new EglotUnderTest(emacs, sandbox.workspace);
    },
  };
}
