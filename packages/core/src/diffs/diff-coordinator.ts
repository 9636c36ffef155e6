import { isAbsolute } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  closedNotice,
  emptyAcceptRefusal,
  isTerminalApprovalWrite,
  TERMINAL_WRITE_LIMIT_MS,
  terminalOutcome,
} from '../clients/diff-rules.js';
import type { ConnectedClient, DiffAnswer, DiffCloseReason, EditorPort } from '../editor-port.js';
import type { Logger } from '../log.js';
import { DiffRegistry, type OpenDiff } from './diff-registry.js';
import { readOldFile } from './old-file.js';
import { fileStamp, watchForWrite, type FileStamp } from './write-watch.js';

/**
 * How long a stop waits for the editor to confirm that it closed a view: well within the 5 s
 * that every stop of a `tandem` process has (docs/commands.md).
 */
const STOP_CLOSE_WAIT_MS = 2_000;

/** What a CLI session is told, later, about a diff it opened. */
export type DiffOutcome =
  | { outcome: 'accepted'; filePath: string; content: string }
  | { outcome: 'rejected'; filePath: string };

/** Tells one CLI session the outcome of its diff (the protocol binding knows how). */
export type SendOutcome = (sessionId: string, outcome: DiffOutcome) => Promise<void>;

/** A request that could not be carried out, with the reason for the CLI. */
export type Refusal = { ok: false; reason: string };

/**
 * The diffs between the CLIs and the editor: opening and closing them, the user's answers, and
 * the rule that every diff gets exactly one answer — even when its CLI leaves or the engine
 * stops. It knows nothing of the protocol the CLIs speak.
 */
export class DiffCoordinator {
  private readonly diffs = new DiffRegistry();
  private closed = false;
  /** Ends the watches for what the CLIs wrote after an answer in the terminal. */
  private readonly watches = new AbortController();

  constructor(
    private readonly editor: EditorPort,
    private readonly send: SendOutcome,
    private readonly log: Logger,
  ) {}

  /** Shows the proposal in the editor; resolves once shown. The outcome is sent later. */
  async open(
    client: ConnectedClient,
    filePath: string,
    newContent: string,
  ): Promise<{ ok: true } | Refusal> {
    if (this.closed) return refusal('The editor is shutting down.');
    if (!isAbsolute(filePath)) return refusal(`filePath must be absolute: ${filePath}`);
    // Before the read: a change in between shows as a change later, not as none.
    const openedStamp = await fileStamp(filePath);
    const old = await readOldFile(filePath);
    if (old.status === 'refused') return refusal(`Cannot diff ${filePath}: it ${old.reason}.`);
    const oldContent = old.status === 'text' ? old.text : null;
    const replaced = this.diffs.find(client.sessionId, filePath);
    if (replaced) {
      // The client has already dropped its wait on the old diff: close its view silently.
      this.diffs.remove(replaced.id);
      await this.closeView(replaced, 'replaced').catch(() => undefined);
    }
    const diff = this.diffs.add({
      sessionId: client.sessionId,
      filePath,
      newContent,
      client,
      openedStamp,
    });
    this.log.info(`${diff.id}: ${client.name} proposes ${filePath}`);
    try {
      await this.editor.showDiff({ ...diff, oldContent, newContent });
    } catch (error) {
      this.diffs.remove(diff.id);
      // A view that shows up after all (a reply that came too late) must not linger.
      void this.closeView(diff, 'withdrawn').catch(() => undefined);
      return refusal(`The editor could not show the diff: ${errorMessage(error)}`);
    }
    return { ok: true };
  }

  /**
   * The CLI closes its diff: the view closes and its text is returned (`null` when no such diff
   * is open). `silent` (the user answered in the terminal): no outcome is sent to the CLI, and
   * the editor hears later whether the CLI wrote the file.
   */
  async close(
    sessionId: string,
    filePath: string,
    silent: boolean,
  ): Promise<{ ok: true; content: string | null } | Refusal> {
    const diff = this.diffs.find(sessionId, filePath);
    if (!diff) return { ok: true, content: null };
    this.diffs.remove(diff.id);
    // Qwen Code writes after an approval without waiting for its closeDiff to end: what the file
    // was before the user answered is the stamp of the diff's opening, or of now (the user may
    // have saved the file meanwhile).
    const closedStamp = silent ? await fileStamp(diff.filePath) : null;
    let content: string;
    try {
      // Both CLIs suppress the notification exactly when the user answered in the terminal.
      content = await this.closeView(diff, silent ? 'terminal' : 'withdrawn');
    } catch (error) {
      if (!silent) await this.reject(diff);
      return refusal(`The editor could not close the diff: ${errorMessage(error)}`);
    }
    if (silent) this.watchTerminalAnswer(diff, content, [diff.openedStamp, closedStamp]);
    else await this.reject(diff);
    return { ok: true, content };
  }

  /**
   * The CLIs do not say whether the user approved or cancelled in the terminal, but an approval
   * writes the file at once: watch it (`unwritten`: its stamps when the diff opened and when the
   * CLI closed it) and tell the editor what became of it.
   */
  private watchTerminalAnswer(diff: OpenDiff, viewText: string, unwritten: FileStamp[]): void {
    if (!this.editor.diffOutcome) return;
    const { id, filePath, newContent: proposal, client } = diff;
    watchForWrite(filePath, unwritten, {
      limitMs: TERMINAL_WRITE_LIMIT_MS,
      awaited: (content) => isTerminalApprovalWrite(client.name, content, viewText, proposal),
      signal: this.watches.signal,
    }).then(
      (after) => {
        // A look that ended after the stop says nothing either.
        if (!after || this.closed) return;
        const outcome = terminalOutcome(client.name, filePath, after, viewText, proposal);
        this.log.info(`${id}: ${outcome.message}`);
        this.editor.diffOutcome?.(id, outcome);
      },
      (error: unknown) =>
        this.log.warn(`${id}: could not watch ${filePath}: ${errorMessage(error)}`),
    );
  }

  accepted(id: string, content: string): DiffAnswer {
    const diff = this.diffs.get(id);
    if (!diff) return this.notOpen(id, 'accepted');
    const refused = emptyAcceptRefusal(diff.newContent, content);
    if (refused) return { ok: false, code: 'empty-accept', message: refused };
    this.diffs.remove(id);
    this.log.info(`${id}: accepted in the editor`);
    void this.send(diff.sessionId, { outcome: 'accepted', filePath: diff.filePath, content });
    return { ok: true };
  }

  rejected(id: string): DiffAnswer {
    const diff = this.diffs.get(id);
    if (!diff) return this.notOpen(id, 'rejected');
    this.diffs.remove(id);
    this.log.info(`${id}: rejected in the editor`);
    void this.reject(diff);
    return { ok: true };
  }

  /** A session went away: the diffs it left open are closed in the editor. */
  async abandon(sessionId: string): Promise<void> {
    for (const diff of this.diffs.ofSession(sessionId)) {
      this.diffs.remove(diff.id);
      await this.closeView(diff, 'client-left').catch(() => undefined);
    }
  }

  /**
   * Stopping: every open diff is rejected (a CLI left waiting could never diff again), and the
   * editor hears no more outcomes. Its views are closed, but an editor that does not confirm
   * within `STOP_CLOSE_WAIT_MS` holds up the stop no longer.
   */
  async rejectAll(): Promise<void> {
    this.closed = true;
    this.watches.abort();
    await Promise.all(
      this.diffs.all().map(async (diff) => {
        this.diffs.remove(diff.id);
        await this.reject(diff);
        const closed = this.closeView(diff, 'stopping');
        const waited = sleep(STOP_CLOSE_WAIT_MS, undefined, { ref: false });
        await Promise.race([closed.catch(() => undefined), waited]);
      }),
    );
  }

  /**
   * Closes the view of `diff` without an answer, for `reason`; then tells the user why, and
   * what becomes of their edits. Resolves with the view's text.
   */
  private async closeView(diff: OpenDiff, reason: DiffCloseReason): Promise<string> {
    const text = await this.editor.closeDiff(diff.id, reason, diff.client);
    const { filePath, newContent, client } = diff;
    this.editor.diffClosed?.(
      diff.id,
      closedNotice(reason, client.name, filePath, newContent, text),
    );
    return text;
  }

  private reject(diff: OpenDiff): Promise<void> {
    return this.send(diff.sessionId, { outcome: 'rejected', filePath: diff.filePath });
  }

  private notOpen(id: string, outcome: string): DiffAnswer {
    const message = `diff ${id} is not open (already answered or closed)`;
    this.log.warn(`${outcome}: ${message}`);
    return { ok: false, code: 'not-open', message };
  }
}

function refusal(reason: string): Refusal {
  return { ok: false, reason };
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
