import { randomUUID } from 'node:crypto';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { EditorContext } from '../context/context-tracker.js';
import type { DiffOutcome } from '../diffs/diff-coordinator.js';
import type { DiffTools } from '../diffs/diff-tools.js';
import type { ConnectedClient } from '../editor-port.js';
import type { Request, WebResponse } from '../http/fetch-messages.js';
import type { Logger } from '../log.js';
import { describeClient } from './client-name.js';
import {
  contextNotification,
  invalidity,
  outcomeNotification,
  type IdeNotification,
} from './ide-notifications.js';
import { closeDiffResult, openDiffResult } from './tool-results.js';
import { tandemMcpServer } from '../mcp-server.js';

/** What a session reports to the hub. */
export interface SessionHost {
  /** The GET stream opened: the session can now receive notifications. */
  streamOpened(session: ClientSession): void;
  /** The session has an id: requests can be routed to it. */
  sessionInitialized(session: ClientSession): void;
  /** The client finished the handshake and has named itself. */
  sessionReady(session: ClientSession): void;
  /** The transport closed (a DELETE, or the engine closing it). */
  sessionClosed(session: ClientSession): void;
}

/**
 * One CLI connection: its own MCP server and Streamable HTTP transport (one server object per
 * session, so every reply reaches the session that asked).
 */
export class ClientSession {
  /** Whether `body` is the `initialize` request that opens a session. */
  static opensSession(body: unknown): boolean {
    return isInitializeRequest(body);
  }

  readonly server: McpServer;
  private readonly transport: WebStandardStreamableHTTPServerTransport;
  private streamOpen = false;
  /** Diff outcomes wait here while no stream is open, so none is ever lost. */
  private readonly pending: IdeNotification[] = [];
  /** Called once the pending outcomes have been sent on a stream that opened. */
  private pendingSent: (() => void) | undefined;
  private protocolVersion: string | undefined;
  /** What this session last received, so an unchanged context is not sent again. */
  private lastContext: string | undefined;

  /** `diffTools` is absent when the editor shows no diffs: the tools are not offered. */
  constructor(
    private readonly host: SessionHost,
    diffTools: DiffTools | undefined,
    private readonly log: Logger,
  ) {
    this.server = tandemMcpServer({ tools: {}, logging: {} });
    if (diffTools) this.registerDiffTools(diffTools);
    this.transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: randomUUID,
      onsessioninitialized: () => this.host.sessionInitialized(this),
    });
  }

  /** Both tools, or the CLIs turn diffing off (docs/clients.md, "Tools"). */
  private registerDiffTools(tools: DiffTools): void {
    this.server.registerTool(
      'openDiff',
      {
        description: 'Opens a diff view in the editor for a proposed change to a file.',
        inputSchema: { filePath: z.string(), newContent: z.string() },
      },
      async ({ filePath, newContent }) =>
        openDiffResult(await tools.openDiff(this.client, filePath, newContent)),
    );
    this.server.registerTool(
      'closeDiff',
      {
        description: 'Closes the diff view of a file and returns its current proposed content.',
        inputSchema: { filePath: z.string(), suppressNotification: z.boolean().optional() },
      },
      async ({ filePath, suppressNotification }) =>
        closeDiffResult(
          await tools.closeDiff(this.client, filePath, suppressNotification ?? false),
        ),
    );
  }

  get id(): string {
    return this.transport.sessionId ?? '(uninitialized)';
  }

  get client(): ConnectedClient {
    return {
      sessionId: this.id,
      ...describeClient(this.server.server.getClientVersion(), this.protocolVersion),
    };
  }

  get hasStream(): boolean {
    return this.streamOpen;
  }

  async connect(): Promise<void> {
    await this.server.connect(this.transport);
    this.server.server.onclose = () => this.host.sessionClosed(this);
    this.server.server.oninitialized = () => this.host.sessionReady(this);
  }

  /** Answers one of this CLI's requests, whose body the listener has parsed. */
  answer(request: Request, body: unknown): Promise<WebResponse> {
    // The transport reads a request's method, URL and headers, which the engine's Request has.
    const webRequest = request as unknown as globalThis.Request;
    return this.transport.handleRequest(webRequest, { parsedBody: body });
  }

  noteProtocolVersion(version: unknown): void {
    if (typeof version === 'string') this.protocolVersion = version;
  }

  streamStarted(): void {
    this.streamOpen = true;
    this.lastContext = undefined;
    this.host.streamOpened(this);
    const sending = this.pending.splice(0).map((notification) => this.notify(notification));
    void Promise.all(sending).then(() => this.pendingSent?.());
  }

  /** Resolves once no diff outcome waits for a stream, or after `ms`. */
  outcomesSent(ms: number): Promise<void> {
    if (this.pending.length === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.pendingSent = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }

  streamEnded(): void {
    this.streamOpen = false;
  }

  /** Sends the context unless this session already has exactly this one. */
  sendContext(context: EditorContext): void {
    const json = JSON.stringify(context);
    if (!this.streamOpen || json === this.lastContext) return;
    this.lastContext = json;
    void this.notify(contextNotification(context));
  }

  /** Tells the CLI how its diff ended. */
  notifyOutcome(outcome: DiffOutcome): Promise<void> {
    const when = this.streamOpen ? 'now' : 'once its stream is back';
    this.log.info(`${outcome.filePath}: ${outcome.outcome}, told ${this.id} ${when}`);
    return this.notify(outcomeNotification(outcome));
  }

  /**
   * Sends an `ide/*` notification on the GET stream, if it passes the client's schema. Diff
   * outcomes sent while no stream is open are kept until one opens; context updates are not
   * (the current context is sent whenever a stream opens).
   */
  notify(notification: IdeNotification): Promise<void> {
    const problem = invalidity(notification);
    if (problem) {
      this.log.error(`not sent to ${this.id}, it would disconnect the CLI: ${problem}`);
      return Promise.resolve();
    }
    if (!this.streamOpen) {
      if (notification.method !== 'ide/contextUpdate') this.pending.push(notification);
      return Promise.resolve();
    }
    return this.server.server.notification(notification).catch((error: unknown) => {
      this.log.warn(`could not notify ${this.id}: ${String(error)}`);
    });
  }

  async close(): Promise<void> {
    this.streamOpen = false;
    await this.server.close().catch(() => undefined);
  }
}
