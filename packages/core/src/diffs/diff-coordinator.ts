import { readFile } from 'node:fs/promises';
import { isAbsolute } from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { ConnectedClient, EditorPort } from '../editor-port.js';
import type { Logger } from '../log.js';
import type { IdeNotification } from '../notifications.js';
import { DiffRegistry, type OpenDiff } from './diff-registry.js';

/** Sends a notification to one CLI session. */
export type NotifySession = (sessionId: string, notification: IdeNotification) => Promise<void>;

/**
 * The diffs between the CLIs and the editor: the `openDiff` and `closeDiff` tools, the user's
 * answers, and the rule that every diff gets exactly one answer — even when its CLI leaves or
 * the engine stops.
 */
export class DiffCoordinator {
  private readonly diffs = new DiffRegistry();
  private closed = false;

  constructor(
    private readonly editor: EditorPort,
    private readonly notify: NotifySession,
    private readonly log: Logger,
  ) {}

  /** The `openDiff` tool: shown in the editor, or an error with the reason. */
  async open(
    client: ConnectedClient,
    filePath: string,
    newContent: string,
  ): Promise<CallToolResult> {
    if (this.closed) return failure('The editor is shutting down.');
    if (!isAbsolute(filePath)) return failure(`filePath must be absolute: ${filePath}`);
    let oldContent: string | null;
    try {
      oldContent = await readFile(filePath, 'utf8');
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT') return failure(`Cannot diff ${filePath}: ${describeFsError(code)}`);
      oldContent = null;
    }
    const replaced = this.diffs.find(client.sessionId, filePath);
    if (replaced) {
      // The client has already dropped its wait on the old diff: close its view silently.
      this.diffs.remove(replaced.id);
      await this.editor.closeDiff(replaced.id).catch(() => undefined);
    }
    const diff = this.diffs.add(client.sessionId, filePath, client);
    try {
      await this.editor.showDiff({ ...diff, oldContent, newContent });
    } catch (error) {
      this.diffs.remove(diff.id);
      // A view that shows up after all (a reply that came too late) must not linger.
      void this.editor.closeDiff(diff.id).catch(() => undefined);
      return failure(`The editor could not show the diff: ${errorMessage(error)}`);
    }
    return { content: [] };
  }

  /** The `closeDiff` tool: closes the view and returns its text, as `{"content": ...}`. */
  async close(
    sessionId: string,
    filePath: string,
    suppressNotification: boolean,
  ): Promise<CallToolResult> {
    const diff = this.diffs.find(sessionId, filePath);
    if (!diff) return closed(null);
    this.diffs.remove(diff.id);
    let content: string;
    try {
      content = await this.editor.closeDiff(diff.id);
    } catch (error) {
      return failure(`The editor could not close the diff: ${errorMessage(error)}`);
    }
    if (!suppressNotification) await this.reject(diff);
    return closed(content);
  }

  accepted(id: string, content: string): void {
    const diff = this.take(id, 'accepted');
    if (diff) {
      void this.notify(diff.sessionId, {
        method: 'ide/diffAccepted',
        params: { filePath: diff.filePath, content },
      });
    }
  }

  rejected(id: string): void {
    const diff = this.take(id, 'rejected');
    if (diff) void this.reject(diff);
  }

  /** A session went away: the diffs it left open are closed in the editor. */
  async abandon(sessionId: string): Promise<void> {
    for (const diff of this.diffs.ofSession(sessionId)) {
      this.diffs.remove(diff.id);
      await this.editor.closeDiff(diff.id).catch(() => undefined);
    }
  }

  /** Stopping: every open diff is rejected (a CLI left waiting could never diff again). */
  async rejectAll(): Promise<void> {
    this.closed = true;
    await Promise.all(
      this.diffs.all().map(async (diff) => {
        this.diffs.remove(diff.id);
        await this.reject(diff);
        await this.editor.closeDiff(diff.id).catch(() => undefined);
      }),
    );
  }

  private reject(diff: OpenDiff): Promise<void> {
    return this.notify(diff.sessionId, {
      method: 'ide/diffRejected',
      params: { filePath: diff.filePath },
    });
  }

  private take(id: string, outcome: string): OpenDiff | undefined {
    const diff = this.diffs.get(id);
    if (!diff || !this.diffs.remove(id)) {
      this.log.warn(`diff ${id} ${outcome}, but it is not open (already answered or closed)`);
      return undefined;
    }
    return diff;
  }
}

function failure(text: string): CallToolResult {
  return { isError: true, content: [{ type: 'text', text }] };
}

/** The clients read `JSON.parse(text).content` (SPEC-NOTES §2). */
function closed(content: string | null): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify({ content }) }] };
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function describeFsError(code: string | undefined): string {
  switch (code) {
    case 'EISDIR':
      return 'it is a directory';
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    default:
      return code ?? 'unreadable';
  }
}
