import type { Readable, Writable } from 'node:stream';
import { Engine, isProcessAlive, type Logger } from '@tandem/core';
import { JSONRPCErrorCode, JSONRPCErrorException } from 'json-rpc-2.0';
import { BridgePort } from './bridge-port.js';
import {
  editorNotifications,
  editorRequests,
  PROTOCOL_VERSION,
  type EditorNotification,
  type InitializeParams,
  type NotificationParams,
} from './bridge-protocol.js';
import { JsonLinesPeer } from './json-lines-peer.js';

const EDITOR_WATCH_MS = 1000;

/**
 * `tandem bridge`: an engine behind bridge protocol v1. Ends, cleaning up, on `shutdown`, when
 * its input closes, or when the editor's process dies.
 */
export class BridgeSidecar {
  private readonly peer: JsonLinesPeer;
  private engine: Engine | undefined;
  private starting: Promise<Engine> | undefined;
  private editorWatch: NodeJS.Timeout | undefined;
  private stopping: Promise<void> | undefined;
  private resolveDone!: (reason: string) => void;
  /** Resolves, with why, once the sidecar has cleaned up and should exit. */
  readonly done = new Promise<string>((resolve) => (this.resolveDone = resolve));

  constructor(
    input: Readable,
    output: Writable,
    private readonly log: Logger,
  ) {
    this.peer = new JsonLinesPeer(input, output, log);
    this.peer.onRequest('initialize', editorRequests.initialize, (params) =>
      this.initialize(params),
    );
    this.peer.onRequest('shutdown', editorRequests.shutdown, async () => {
      await this.stop('shutdown');
      return {};
    });
    this.on('workspace/changed', (engine, { workspaceFolders, isTrusted }) => {
      void engine
        .workspaceChanged(workspaceFolders, isTrusted)
        .then(() => this.peer.notify('env/changed', { env: engine.terminalEnv() }));
    });
    this.on('file/opened', (engine, { path }) => engine.fileOpened(path));
    this.on('file/closed', (engine, { path }) => engine.fileClosed(path));
    this.on('file/focused', (engine, { path }) => engine.fileFocused(path));
    this.on('cursor/changed', (engine, { path, line, character, selectedText }) =>
      engine.cursorChanged(path, line, character, selectedText),
    );
    this.on('diff/accepted', (engine, { id, content }) => engine.diffAccepted(id, content));
    this.on('diff/rejected', (engine, { id }) => engine.diffRejected(id));
    void this.peer.closed.then(() => this.stop('the editor closed the connection'));
    // Writing to an editor that is gone fails (EPIPE): that, too, is the end of the session.
    output.on('error', () => void this.stop('the editor stopped reading'));
  }

  /** Rejects every open diff, removes the discovery files, and ends the sidecar. */
  stop(reason: string): Promise<void> {
    this.stopping ??= (async () => {
      clearInterval(this.editorWatch);
      this.log.info(`stopping: ${reason}`);
      const engine = this.engine ?? (await this.starting?.catch(() => undefined));
      await engine?.stop();
      this.peer.rejectPending('the sidecar is stopping');
      this.resolveDone(reason);
    })();
    return this.stopping;
  }

  private async initialize(params: InitializeParams) {
    if (params.protocol !== PROTOCOL_VERSION) {
      throw new JSONRPCErrorException(
        `unsupported protocol ${params.protocol}: this sidecar speaks protocol ${PROTOCOL_VERSION}`,
        JSONRPCErrorCode.InvalidParams,
      );
    }
    if (this.starting) {
      throw new JSONRPCErrorException('already initialized', JSONRPCErrorCode.InvalidRequest);
    }
    if (this.stopping) throw new Error('the sidecar is stopping');
    this.starting = Engine.start({
      editor: params.editor,
      port: new BridgePort(this.peer),
      workspaceFolders: params.workspaceFolders,
      isTrusted: params.isTrusted,
      discovery: params.discovery,
      allowContainerHost: params.allowContainerHost,
      log: this.log,
    });
    const engine = await this.starting;
    this.engine = engine;
    this.watchEditor(params.editor.pid);
    return {
      protocol: PROTOCOL_VERSION,
      port: engine.port,
      env: engine.terminalEnv(),
      discoveryFiles: [...engine.discoveryFiles],
    };
  }

  private watchEditor(pid: number): void {
    this.editorWatch = setInterval(() => {
      if (!isProcessAlive(pid)) void this.stop(`the editor (PID ${pid}) is gone`);
    }, EDITOR_WATCH_MS);
    this.editorWatch.unref();
  }

  /** Routes an editor notification to the engine once there is one. */
  private on<M extends EditorNotification>(
    method: M,
    handle: (engine: Engine, params: NotificationParams<M>) => void,
  ): void {
    this.peer.onNotification(method, editorNotifications[method], (params) => {
      if (this.engine) handle(this.engine, params as NotificationParams<M>);
      else this.log.warn(`ignored ${method}: send initialize first`);
    });
  }
}
