import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult, JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { WebSocketServer, type WebSocket } from 'ws';
import { z } from 'zod';
import {
  CLAUDE_CLIENT_NAME,
  CLAUDE_DIFF_ANSWERS,
  CLAUDE_SUBPROTOCOL,
} from '../clients/claude-rules.js';
import type { EditorContext } from '../context/context-tracker.js';
import type { DiffOutcome } from '../diffs/diff-coordinator.js';
import type { DiffTools } from '../diffs/diff-tools.js';
import type { ConnectedClient, FileDiagnostics } from '../editor-port.js';
import { tandemMcpServer } from '../mcp-server.js';
import type { Logger } from '../log.js';
import type { ClaudeMention } from './at-mention.js';
import { claudeSelection } from './selection.js';
import { WebSocketTransport } from './websocket-transport.js';

export interface ClaudeSessionOptions {
  /** Absent when the editor shows no diffs: the diff tools are not offered. */
  diffTools?: DiffTools;
  /** The editor's diagnostics, of one file or of all; absent when the editor offers none. */
  diagnostics?(path: string | undefined): Promise<FileDiagnostics[]>;
  log: Logger;
}

/** What a session reports to the binding. */
export interface ClaudeSessionHost {
  sessionReady(session: ClaudeSession): void;
  /** The session wants the current selection again (Claude Code may hear it only now). */
  selectionWanted(session: ClaudeSession): void;
  sessionClosed(session: ClaudeSession): void;
}

/** Turns authenticated upgrade requests into sessions; one for the binding's life. */
export class ClaudeUpgrader {
  private readonly server: WebSocketServer;

  constructor(maxPayloadBytes: number) {
    this.server = new WebSocketServer({
      noServer: true,
      clientTracking: false,
      perMessageDeflate: false,
      maxPayload: maxPayloadBytes,
      handleProtocols: (offered) => (offered.has(CLAUDE_SUBPROTOCOL) ? CLAUDE_SUBPROTOCOL : false),
    });
  }

  /** Completes the upgrade (the listener has checked it): the session, not yet connected. */
  accept(
    request: IncomingMessage,
    socket: Duplex,
    head: Buffer,
    host: ClaudeSessionHost,
    options: ClaudeSessionOptions,
  ): Promise<ClaudeSession> {
    return new Promise((resolve) => {
      this.server.handleUpgrade(request, socket, head, (webSocket) =>
        resolve(new ClaudeSession(webSocket, host, options)),
      );
    });
  }
}

/**
 * Claude Code hears the selection only once it has shown the server with its tools, a render
 * after their list is answered: one sent with the answer is lost, and no message marks the
 * moment. So after the answer the selection is sent again, at these delays (ms).
 */
const SELECTION_AFTER_TOOLS_LIST_MS = [100, 500, 2_000, 8_000];

interface PendingDiff {
  tabName: string;
  answer(outcome: DiffOutcome): void;
}

/**
 * One Claude Code connection: its MCP server on its WebSocket, the tools it calls, the
 * selection it is sent. `openDiff` answers only once the user has: its calls wait here, one a
 * file, each answered exactly once (accepted, rejected, closed, replaced, or the engine gone).
 */
export class ClaudeSession {
  readonly id = `claude-${randomUUID()}`;
  private readonly server: McpServer;
  private readonly transport: WebSocketTransport;
  /** The `openDiff` calls waiting for the user, by file. */
  private readonly pending = new Map<string, PendingDiff>();
  private lastSelection: string | undefined;
  private ready = false;
  /** Whether Claude Code hears mentions: a moment after the `tools/list` answer (docs/clients.md). */
  private listening = false;
  private readonly selectionResends: NodeJS.Timeout[] = [];
  /** Mentions made before Claude Code listens. */
  private readonly heldMentions: ClaudeMention[] = [];
  private readonly log: Logger;

  constructor(
    private readonly webSocket: WebSocket,
    private readonly host: ClaudeSessionHost,
    options: ClaudeSessionOptions,
  ) {
    this.log = options.log;
    this.server = tandemMcpServer({ tools: {} });
    this.transport = new WebSocketTransport(webSocket);
    // The `tools/list` answer is the last message before Claude Code hears the selection.
    const send = this.transport.send.bind(this.transport);
    this.transport.send = async (message) => {
      await send(message);
      if (answersToolsList(message)) this.resendSelectionAfterToolsList();
    };
    if (options.diffTools) this.registerDiffTools(options.diffTools);
    this.registerDiagnostics(options.diagnostics);
  }

  get client(): ConnectedClient {
    return {
      sessionId: this.id,
      name: CLAUDE_CLIENT_NAME,
      version: this.server.server.getClientVersion()?.version ?? '',
    };
  }

  /** Starts the MCP server on the WebSocket; `sessionClosed` follows even if it closed already. */
  async connect(): Promise<void> {
    this.server.server.oninitialized = () => {
      this.ready = true;
      this.host.sessionReady(this);
    };
    this.server.server.onclose = () => {
      this.ready = false;
      this.listening = false;
      this.host.sessionClosed(this);
    };
    await this.server.connect(this.transport);
  }

  /** Sends the active file's selection unless this session already has exactly this one. */
  sendSelection(context: EditorContext): void {
    const selection = claudeSelection(context);
    const json = selection && JSON.stringify(selection);
    if (!this.ready || !selection || json === this.lastSelection) return;
    this.lastSelection = json;
    this.server.server
      .notification({ method: 'selection_changed', params: { ...selection } })
      .catch((error: unknown) => this.log.warn(`could not notify ${this.id}: ${String(error)}`));
  }

  /**
   * Puts `@file#Lstart-end` in Claude Code's prompt; whether it goes (this session is set up).
   * Made before Claude Code listens, it waits until it does.
   */
  mention(mention: ClaudeMention): boolean {
    if (!this.ready) return false;
    if (this.listening) this.sendMention(mention);
    else this.heldMentions.push(mention);
    return true;
  }

  /** The user answered the diff of `outcome.filePath` (or the engine did for them). */
  answer(outcome: DiffOutcome): void {
    const pending = this.pending.get(outcome.filePath);
    if (!pending) return;
    this.pending.delete(outcome.filePath);
    pending.answer(outcome);
  }

  async close(): Promise<void> {
    for (const timer of this.selectionResends) clearTimeout(timer);
    await this.server.close().catch(() => undefined);
    if (this.webSocket.readyState !== this.webSocket.CLOSED) this.webSocket.terminate();
  }

  private startListening(): void {
    if (!this.ready || this.listening) return;
    this.listening = true;
    for (const held of this.heldMentions.splice(0)) this.sendMention(held);
  }

  private sendMention(mention: ClaudeMention): void {
    this.server.server
      .notification({ method: 'at_mentioned', params: { ...mention } })
      .catch((error: unknown) => this.log.warn(`could not notify ${this.id}: ${String(error)}`));
  }

  private resendSelectionAfterToolsList(): void {
    for (const delay of SELECTION_AFTER_TOOLS_LIST_MS) {
      const timer = setTimeout(() => {
        this.startListening();
        this.lastSelection = undefined;
        this.host.selectionWanted(this);
      }, delay);
      timer.unref();
      this.selectionResends.push(timer);
    }
  }

  private registerDiffTools(tools: DiffTools): void {
    this.server.registerTool(
      'openDiff',
      {
        description:
          'Shows a proposed change to a file in the editor and waits until the user accepts or rejects it.',
        inputSchema: {
          old_file_path: z.string(),
          new_file_path: z.string(),
          new_file_contents: z.string(),
          tab_name: z.string(),
        },
      },
      ({ new_file_path, new_file_contents, tab_name }) =>
        this.openDiff(tools, new_file_path, new_file_contents, tab_name),
    );
    this.server.registerTool(
      'close_tab',
      {
        description: 'Closes the diff view of a change the user answered in the terminal.',
        inputSchema: { tab_name: z.string() },
      },
      async ({ tab_name }) => {
        const entry = [...this.pending].find(([, pending]) => pending.tabName === tab_name);
        if (entry) {
          const [filePath, pending] = entry;
          this.pending.delete(filePath);
          await tools.closeDiff(this.client, filePath, true);
          // Claude Code has stopped waiting on it; its call still gets an answer.
          pending.answer({ outcome: 'rejected', filePath });
        }
        return textResult('TAB_CLOSED');
      },
    );
    this.server.registerTool(
      'closeAllDiffTabs',
      { description: 'Closes every diff view this session opened.', inputSchema: {} },
      async () => {
        const files = [...this.pending.keys()];
        // Each closed diff is rejected, which answers its waiting call.
        await Promise.all(files.map((filePath) => tools.closeDiff(this.client, filePath, false)));
        return textResult(`CLOSED_${files.length}_DIFF_TABS`);
      },
    );
  }

  private async openDiff(
    tools: DiffTools,
    filePath: string,
    newContent: string,
    tabName: string,
  ): Promise<CallToolResult> {
    // A second proposal for the same file replaces the first: the first call gets its answer.
    this.answer({ outcome: 'rejected', filePath });
    const answered = new Promise<DiffOutcome>((answer) =>
      this.pending.set(filePath, { tabName, answer }),
    );
    const shown = await tools.openDiff(this.client, filePath, newContent);
    if (!shown.ok) {
      this.pending.delete(filePath);
      return { ...textResult(shown.reason), isError: true };
    }
    const outcome = await answered;
    if (outcome.outcome === 'accepted') {
      return textResult(CLAUDE_DIFF_ANSWERS.accepted, outcome.content);
    }
    return textResult(CLAUDE_DIFF_ANSWERS.rejected, tabName);
  }

  private registerDiagnostics(diagnostics: ClaudeSessionOptions['diagnostics']): void {
    this.server.registerTool(
      'getDiagnostics',
      {
        description:
          'Gets the language diagnostics (errors, warnings) the editor shows, of one file (its file:// URI) or of every open file.',
        inputSchema: { uri: z.string().optional() },
      },
      async ({ uri }) => {
        const path = uri?.startsWith('file://') ? uri.slice('file://'.length) : uri;
        const files = (await diagnostics?.(path)) ?? [];
        // Claude Code asks with `file://` + the path as it is, and compares what comes back.
        const list = files.map((file) => ({
          uri: `file://${file.path}`,
          diagnostics: file.diagnostics,
        }));
        return textResult(JSON.stringify(list));
      },
    );
  }
}

function answersToolsList(message: JSONRPCMessage): boolean {
  return 'result' in message && Array.isArray(message.result.tools);
}

function textResult(...texts: string[]): CallToolResult {
  return { content: texts.map((text) => ({ type: 'text', text })) };
}
