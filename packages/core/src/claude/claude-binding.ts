import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { EditorContext } from '../context/context-tracker.js';
import type { DiffOutcome } from '../diffs/diff-coordinator.js';
import type { ConnectedClient } from '../editor-port.js';
import type { ClaudeMention } from './at-mention.js';
import type {
  ClaudeSession,
  ClaudeSessionHost,
  ClaudeSessionOptions,
  ClaudeUpgrader,
} from './claude-session.js';

type SessionModule = typeof import('./claude-session.js');

export interface ClaudeBindingOptions extends ClaudeSessionOptions {
  /** A session ended; its diffs must be closed in the editor. */
  sessionEnded(sessionId: string): Promise<void>;
  clientsChanged(): void;
  /** The context whose selection a session that just connected is sent. */
  currentContext(): EditorContext;
  /** The largest WebSocket message accepted. */
  maxPayloadBytes: number;
}

/**
 * The Claude Code binding's sessions: one a WebSocket, ended when it closes, all closed on stop.
 * Loads `claude-session.ts` (the MCP SDK and `ws`) with the first upgrade that passed the
 * listener's checks: a sidecar that no Claude Code reaches never holds them.
 */
export class ClaudeBinding implements ClaudeSessionHost {
  private readonly sessions = new Map<string, ClaudeSession>();
  private upgrader?: Promise<ClaudeUpgrader>;
  private closing = false;

  constructor(private readonly options: ClaudeBindingOptions) {}

  clients(): ConnectedClient[] {
    return [...this.sessions.values()].map((session) => session.client);
  }

  has(sessionId: string): boolean {
    return this.sessions.has(sessionId);
  }

  /** Takes over an authenticated upgrade request. */
  upgrade(request: IncomingMessage, socket: Duplex, head: Buffer): void {
    if (this.closing) return void socket.destroy();
    this.upgrader ??= this.loadSessionModule().then(
      ({ ClaudeUpgrader }) => new ClaudeUpgrader(this.options.maxPayloadBytes),
    );
    this.upgrader
      .then((upgrader) => upgrader.accept(request, socket, head, this, this.options))
      .then((session) => {
        if (this.closing) return session.close();
        // Known before it connects: a close at any moment from now on ends it.
        this.sessions.set(session.id, session);
        return session.connect();
      })
      .catch((error: unknown) => {
        this.options.log.error(`could not open a Claude Code session: ${String(error)}`);
        socket.destroy();
      });
  }

  /** Sends every session the selection (each gets it only if it changed for it). */
  broadcast(context: EditorContext): void {
    for (const session of this.sessions.values()) session.sendSelection(context);
  }

  /** Mentions a file to every session listening; how many were sent it. */
  mention(mention: ClaudeMention): number {
    let reached = 0;
    for (const session of this.sessions.values()) if (session.mention(mention)) reached += 1;
    return reached;
  }

  /** Answers the waiting `openDiff` of the session that opened the diff. */
  sendOutcome(sessionId: string, outcome: DiffOutcome): Promise<void> {
    this.sessions.get(sessionId)?.answer(outcome);
    return Promise.resolve();
  }

  async closeAll(): Promise<void> {
    this.closing = true;
    await Promise.all([...this.sessions.values()].map((session) => this.end(session)));
  }

  private loadSessionModule(): Promise<SessionModule> {
    return import('./claude-session.js');
  }

  // ClaudeSessionHost: what a session reports.

  sessionReady(session: ClaudeSession): void {
    const { name, version } = session.client;
    this.options.log.info(`${name} ${version} connected (${session.id})`);
    session.sendSelection(this.options.currentContext());
    if (!this.closing) this.options.clientsChanged();
  }

  selectionWanted(session: ClaudeSession): void {
    session.sendSelection(this.options.currentContext());
  }

  sessionClosed(session: ClaudeSession): void {
    void this.end(session);
  }

  private async end(session: ClaudeSession): Promise<void> {
    if (!this.sessions.delete(session.id)) return;
    this.options.log.info(`${session.client.name} left (${session.id})`);
    await this.options.sessionEnded(session.id);
    await session.close();
    if (!this.closing) this.options.clientsChanged();
  }
}
