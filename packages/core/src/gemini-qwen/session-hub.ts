import type { EditorContext } from '../context/context-tracker.js';
import { UpdatePacer } from '../context/update-pacer.js';
import type { DiffOutcome } from '../diffs/diff-coordinator.js';
import type { ConnectedClient } from '../editor-port.js';
import { Response, type Request, type WebResponse } from '../http/fetch-messages.js';
import type { Logger } from '../log.js';
import { clientLabel } from './client-name.js';
import type { DiffTools } from '../diffs/diff-tools.js';
import type { ClientSession, SessionHost } from './client-session.js';

type SessionModule = typeof import('./client-session.js');

/** What the hub needs from the rest of the engine: the diff tools' answers among it. */
export interface SessionHubOptions extends DiffTools {
  /** A session ended; its diffs must be closed in the editor. */
  sessionEnded(sessionId: string): Promise<void>;
  clientsChanged(clients: ConnectedClient[]): void;
  /** The context to send a session whose stream just opened. */
  currentContext(): EditorContext;
  /** How long a session whose stream closed may take to reopen it before it is ended. */
  graceMs: number;
  /** How long a session that never opens its stream lives (a probe, a client that gave up). */
  streamlessMs: number;
  /** Whether the diff tools are offered at all. */
  showsDiffs: boolean;
  log: Logger;
}

/**
 * The editor hears of connects and leaves at most once per this window (the first at once): a
 * burst of sessions makes a few messages, not one per session.
 */
const CLIENTS_WINDOW_MS = 100;

/**
 * Every CLI session: created on `initialize`, found by `mcp-session-id`, ended when its stream
 * is gone for good (the clients never send DELETE), all closed when the engine stops.
 */
export class SessionHub implements SessionHost {
  private readonly sessions = new Map<string, ClientSession>();
  private readonly reapers = new Map<ClientSession, NodeJS.Timeout>();
  /**
   * The sessions logged as connected: only they are logged as leaving (a probe, as `tandem
   * doctor` and `tandem env` make, never finishes connecting, and is not news).
   */
  private readonly announced = new WeakSet<ClientSession>();
  private closing = false;
  private readonly clientsPacer: UpdatePacer;
  /**
   * The MCP SDK and the schemas, loaded when the first CLI connects: an editor window's sidecar
   * that no CLI ever reaches never holds them.
   */
  private sessionModule?: Promise<SessionModule>;

  constructor(private readonly options: SessionHubOptions) {
    this.clientsPacer = new UpdatePacer(
      () => options.clientsChanged(this.clients()),
      CLIENTS_WINDOW_MS,
    );
  }

  clients(): ConnectedClient[] {
    return [...this.sessions.values()].map((session) => session.client);
  }

  /** Handles one authenticated MCP request. */
  async route(
    request: Request,
    body: unknown,
    reply: (response: WebResponse) => Promise<void>,
  ): Promise<void> {
    const sessionId = request.headers.get('mcp-session-id');
    let session = sessionId ? this.sessions.get(sessionId) : undefined;
    if (sessionId && !session) {
      return reply(jsonRpcError(404, 'Session not found: reconnect to start a new one'));
    }
    const mayInitialize = !session && request.method === 'POST' && isMethod(body, 'initialize');
    const { ClientSession } = mayInitialize ? await this.loadSessionModule() : {};
    const isNew = ClientSession?.opensSession(body) ?? false;
    if (ClientSession && isNew) {
      if (this.closing) return reply(jsonRpcError(503, 'The editor is shutting down'));
      const diffTools = this.options.showsDiffs ? this.options : undefined;
      session = new ClientSession(this, diffTools, this.options.log);
      session.noteProtocolVersion(
        (body as { params: { protocolVersion?: unknown } }).params.protocolVersion,
      );
      await session.connect();
    }
    if (!session) {
      return reply(jsonRpcError(400, 'Bad Request: initialize first, then send mcp-session-id'));
    }
    const response = await session.answer(request, body);
    if (isNew && !this.sessions.has(session.id)) await session.close();
    const isStream =
      request.method === 'GET' &&
      response.ok &&
      response.headers.get('content-type')?.startsWith('text/event-stream');
    if (!isStream) return reply(response);
    const streaming = reply(response);
    session.streamStarted();
    await streaming;
    session.streamEnded();
    this.options.log.info(`${session.client.name}'s stream ended (${session.id})`);
    this.reapUnlessStreaming(session, this.options.graceMs);
  }

  /** Sends every session the context (each gets it only if it changed for it). */
  broadcast(context: EditorContext): void {
    for (const session of this.sessions.values()) session.sendContext(context);
  }

  /** Tells the session that opened a diff how it ended, as an `ide/*` notification. */
  sendOutcome(sessionId: string, outcome: DiffOutcome): Promise<void> {
    const session = this.sessions.get(sessionId);
    if (session) return session.notifyOutcome(outcome);
    this.options.log.warn(`diff ${outcome.outcome} dropped: its CLI session ${sessionId} is gone`);
    return Promise.resolve();
  }

  async closeAll(): Promise<void> {
    this.closing = true;
    this.clientsPacer.stop();
    // A CLI whose stream is away for a moment (its client reopens it) still gets the outcomes
    // of its diffs: it would wait on them for ever.
    const sessions = [...this.sessions.values()];
    await Promise.all(sessions.map((session) => session.outcomesSent(this.options.graceMs)));
    for (const session of [...this.sessions.values()]) await this.end(session);
  }

  private loadSessionModule(): Promise<SessionModule> {
    this.sessionModule ??= import('./client-session.js');
    return this.sessionModule;
  }

  // SessionHost: what a session reports.

  sessionInitialized(session: ClientSession): void {
    this.sessions.set(session.id, session);
    this.reapUnlessStreaming(session, this.options.streamlessMs);
  }

  sessionReady(session: ClientSession): void {
    this.options.log.info(`${clientLabel(session.client)} connected (${session.id})`);
    this.announced.add(session);
    this.clientsChanged();
  }

  sessionClosed(session: ClientSession): void {
    void this.end(session);
  }

  streamOpened(session: ClientSession): void {
    clearTimeout(this.reapers.get(session));
    session.sendContext(this.options.currentContext());
  }

  /** Ends the session unless it (re)opens a stream within `ms`. */
  private reapUnlessStreaming(session: ClientSession, ms: number): void {
    clearTimeout(this.reapers.get(session));
    const timer = setTimeout(() => {
      if (!session.hasStream) void this.end(session);
    }, ms);
    timer.unref();
    this.reapers.set(session, timer);
  }

  private async end(session: ClientSession): Promise<void> {
    clearTimeout(this.reapers.get(session));
    this.reapers.delete(session);
    if (!this.sessions.delete(session.id)) return;
    if (this.announced.has(session)) {
      this.options.log.info(`${session.client.name} left (${session.id})`);
    }
    await this.options.sessionEnded(session.id);
    await session.close();
    this.clientsChanged();
  }

  private clientsChanged(): void {
    if (!this.closing) this.clientsPacer.changed();
  }
}

/** Whether `body` is a JSON-RPC message calling `method` (the full check comes with the SDK). */
function isMethod(body: unknown, method: string): boolean {
  return (
    typeof body === 'object' && body !== null && (body as { method?: unknown }).method === method
  );
}

function jsonRpcError(status: number, message: string): Response {
  return Response.json({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }, { status });
}
