import * as vscode from 'vscode';
import {
  clientLabel,
  Engine,
  type ConnectedClient,
  type EngineOptions,
  type LineRange,
  type Logger,
  type MentionAnswer,
} from '@tandem/core';
import { ContextFeed } from './context-feed.js';
import { editorDiagnostics } from './diagnostics.js';
import { DiffViews } from './diff-views.js';
import { InspectCommands } from './inspect-commands.js';
import { ReportDocuments } from './report-documents.js';
import { CLI_KEYS, serves } from './settings.js';
import { StatusItem } from './status-item.js';
import { Terminals } from './terminals.js';
import { WarningNotices } from './warning-notices.js';

/**
 * Tandem in one window: the engine, hosted in this extension host, and the parts of the window
 * that feed it and show what it says. Restarted when the set of served CLIs changes.
 */
export class WindowCompanion implements vscode.Disposable {
  private engine: Engine | undefined;
  private feed: ContextFeed | undefined;
  private readonly diffs: DiffViews;
  private readonly status = new StatusItem();
  private readonly reports = new ReportDocuments();
  private readonly notices = new WarningNotices(this.reports);
  private readonly terminals: Terminals;
  private readonly subscriptions: vscode.Disposable[];
  /** The CLIs served when the engine started (see servedClis); undefined before the first start. */
  private served: string | undefined;
  /** Starts and stops run one after the other. */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    context: vscode.ExtensionContext,
    private readonly log: Logger,
  ) {
    this.diffs = new DiffViews(
      {
        accepted: (id, content) => this.running().diffAccepted(id, content),
        rejected: (id) => this.running().diffRejected(id),
      },
      log,
    );
    this.terminals = new Terminals(context.environmentVariableCollection);
    this.subscriptions = [
      this.reports,
      this.notices,
      new InspectCommands(
        {
          terminalEnvironment: () => this.terminals.environment(),
          port: () => this.engine?.port,
        },
        this.reports,
      ),
      vscode.workspace.onDidChangeWorkspaceFolders(() => this.workspaceChanged()),
      vscode.workspace.onDidGrantWorkspaceTrust(() => this.workspaceChanged()),
      vscode.workspace.onDidChangeConfiguration((event) => {
        // Only a change of the CLIs served needs a new engine: a restart drops every session.
        // Before the first start, the start reads the settings itself.
        if (this.served !== undefined && servedClis() !== this.served) {
          void this.restart();
        } else if (event.affectsConfiguration('tandem.terminal.environment')) {
          this.terminals.update(this.engine);
        }
      }),
    ];
  }

  start(): Promise<void> {
    return this.enqueue(async () => {
      this.served = servedClis();
      if (!this.served) {
        this.log.info('serving no CLI (settings tandem.*.serve)');
        this.terminals.update(undefined);
        return;
      }
      const engine = await Engine.start(this.engineOptions());
      this.engine = engine;
      this.feed = new ContextFeed(engine);
      this.terminals.update(engine);
      this.status.show(engine.clients(), engine.port);
      this.notices.show(engine.warnings());
      this.log.info(`discovery files: ${engine.discoveryFiles.join(', ')}`);
    });
  }

  /**
   * Every open diff is rejected and the discovery files removed, without waiting on the window:
   * on reload or quit it may already be gone.
   */
  stop(): Promise<void> {
    return this.enqueue(() => this.stopEngine(true));
  }

  dispose(): void {
    for (const subscription of this.subscriptions) subscription.dispose();
    this.diffs.dispose();
    this.terminals.dispose();
    this.status.dispose();
  }

  private restart(): Promise<void> {
    return this.enqueue(() => this.stopEngine(false)).then(() => this.start());
  }

  /** `windowGone`: the window is going away, so the diff views are not closed in it. */
  private async stopEngine(windowGone: boolean): Promise<void> {
    const engine = this.engine;
    this.engine = undefined;
    this.feed?.dispose();
    this.feed = undefined;
    if (windowGone) this.diffs.windowGone();
    await engine?.stop();
    this.status.show([], undefined);
  }

  private engineOptions(): EngineOptions {
    const qwen = serves('qwenCode');
    return {
      // The extension host lives exactly as long as this window's engine: Qwen Code keeps the
      // lock file while it is alive.
      editor: {
        name: 'vscode',
        displayName: vscode.env.appName,
        version: vscode.version,
        pid: process.pid,
      },
      frontend: {
        showDiff: (diff) => this.diffs.showDiff(diff),
        closeDiff: (id, reason) => this.diffs.closeDiff(id, reason),
        diffClosed: (id, notice) => this.diffs.diffClosed(id, notice),
        diffOutcome: (id, outcome) => this.diffs.diffOutcome(id, outcome),
        clientsChanged: (clients) => this.clientsChanged(clients),
        warningsChanged: (warnings) => this.notices.show(warnings),
        diagnostics: editorDiagnostics,
      },
      workspaceFolders: workspaceFolders(),
      isTrusted: vscode.workspace.isTrusted,
      discovery: {
        gemini: serves('geminiCli'),
        qwenLock: qwen,
        qwenLegacy: qwen,
        claude: serves('claudeCode'),
      },
      log: this.log,
    };
  }

  private clientsChanged(clients: ConnectedClient[]): void {
    this.status.show(clients, this.engine?.port);
    this.log.info(`connected: ${clients.map(clientLabel).join(', ') || 'none'}`);
  }

  private workspaceChanged(): void {
    void this.enqueue(async () => {
      if (!this.engine) return;
      await this.engine.workspaceChanged(workspaceFolders(), vscode.workspace.isTrusted);
      this.terminals.update(this.engine);
    });
  }

  /** Puts a file, or lines of it, in the prompt of the CLIs that take mentions (Claude Code). */
  mention(path: string, lines?: LineRange): MentionAnswer {
    return this.running().mention(path, lines);
  }

  private running(): Engine {
    if (!this.engine) throw new Error('Tandem is not running');
    return this.engine;
  }

  private enqueue(step: () => Promise<void>): Promise<void> {
    const next = this.queue.then(step);
    this.queue = next.catch((error: unknown) => this.log.error(String(error)));
    return next;
  }
}

/** Which CLIs the settings say Tandem serves, as one comparable value. */
function servedClis(): string {
  return CLI_KEYS.filter(serves).join(',');
}

/** The window's folders on disk (multi-root); the CLIs know nothing of remote schemes. */
function workspaceFolders(): string[] {
  return (vscode.workspace.workspaceFolders ?? [])
    .filter((folder) => folder.uri.scheme === 'file')
    .map((folder) => folder.uri.fsPath);
}
