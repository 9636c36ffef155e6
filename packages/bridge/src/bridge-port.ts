import {
  closingMessages,
  type CompanionWarning,
  type ConnectedClient,
  type DiffClosedNotice,
  type DiffCloseReason,
  type DiffOutcomeNotice,
  type DiffRequest,
  type EditorPort,
} from '@tandem/core';
import { editorReplies, STATUS_CLIENT_LIMIT } from './bridge-protocol.js';
import type { JsonLinesPeer } from './json-lines-peer.js';

/** A diff view may wait on the user's editor (a prompt, a slow plugin): be patient, not forever. */
const OPEN_TIMEOUT_MS = 60_000;
/**
 * The user answered in the terminal and the CLI waits for the view's text, which may hold their
 * edits: wait as long as the CLIs do (10 minutes for `closeDiff`), less a margin to answer.
 */
const CLOSE_TIMEOUT_MS = 9.5 * 60_000;

/** What the editor said it takes beyond protocol 1.0. */
export interface EditorTakes {
  /** It stated `clientChanges`: it hears only what changed, in `clients/changed`. */
  clientChanges?: boolean;
  /** It speaks 1.2: it hears `diff/outcome`. */
  diffOutcomes?: boolean;
  /**
   * It speaks 1.3: `diff/close` says only why, and `diff/closed` follows with what to tell the
   * user. An older editor decides that itself from the messages `diff/close` carries.
   */
  closedNotices?: boolean;
}

/** The engine's `EditorPort`, spoken to an editor adapter over bridge protocol v1. */
export class BridgePort implements EditorPort {
  /** The clients the editor was last told of (`clients/changed` only). */
  private told = new Map<string, ConnectedClient>();

  constructor(
    private readonly peer: JsonLinesPeer,
    private readonly takes: EditorTakes = {},
    /** How long a `diff/open` may wait for the editor's reply. */
    private readonly openTimeoutMs = OPEN_TIMEOUT_MS,
  ) {}

  async showDiff(diff: DiffRequest): Promise<void> {
    const { id, filePath, oldContent, newContent, client } = diff;
    await this.peer.request(
      'diff/open',
      {
        id,
        filePath,
        oldContent,
        newContent,
        client: { name: client.name, version: client.version },
      },
      editorReplies['diff/open'],
      this.openTimeoutMs,
    );
  }

  async closeDiff(id: string, reason: DiffCloseReason, client: ConnectedClient): Promise<string> {
    const legacy = this.takes.closedNotices ? {} : closingMessages(reason, client.name);
    const reply = await this.peer.request(
      'diff/close',
      { id, reason, ...legacy },
      editorReplies['diff/close'],
      CLOSE_TIMEOUT_MS,
    );
    return reply.content;
  }

  diffClosed(id: string, { filePath, reason, message, keptText }: DiffClosedNotice): void {
    if (!this.takes.closedNotices) return;
    this.peer.notify('diff/closed', {
      id,
      filePath,
      reason,
      message,
      ...(keptText !== undefined && { keptText }),
    });
  }

  diffOutcome(id: string, { kind, filePath, message }: DiffOutcomeNotice): void {
    if (this.takes.diffOutcomes) this.peer.notify('diff/outcome', { id, filePath, kind, message });
  }

  warningsChanged(warnings: CompanionWarning[]): void {
    this.peer.notify('warnings', { warnings });
  }

  clientsChanged(clients: ConnectedClient[]): void {
    if (!this.takes.clientChanges) {
      const listed = clients.slice(0, STATUS_CLIENT_LIMIT);
      const omitted = clients.length - listed.length;
      this.peer.notify('status', { clients: listed.map(describe), ...(omitted && { omitted }) });
      return;
    }
    const now = new Map(clients.map((client) => [client.sessionId, client]));
    const connected = clients.filter(({ sessionId }) => !this.told.has(sessionId));
    const disconnected = [...this.told.keys()].filter((sessionId) => !now.has(sessionId));
    this.told = now;
    if (connected.length === 0 && disconnected.length === 0) return;
    this.peer.notify('clients/changed', { connected: connected.map(describe), disconnected });
  }
}

function describe({ name, version, sessionId }: ConnectedClient) {
  return { name, version, sessionId };
}
