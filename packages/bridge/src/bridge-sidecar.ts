import type { Readable, Writable } from 'node:stream';
import {
  Engine,
  isProcessAlive,
  tandemCommandFor,
  type DiffAnswer,
  type Logger,
} from '@tandem/core';
import { JSONRPCErrorCode, JSONRPCErrorException } from 'json-rpc-2.0';
import { BridgePort } from './bridge-port.js';
import {
  chooseVersion,
  DIFF_ANSWER_ERRORS,
  editorNotifications,
  editorRequests,
  isAtLeast,
  PROTOCOL_VERSIONS,
  LINE_LIMITS,
  SIDECAR_CAPABILITIES,
  CONTEXT_LIMITS,
  type EditorNotification,
  type InitializeParams,
  type NotificationParams,
} from './bridge-protocol.js';
import { JsonLinesPeer } from './json-lines-peer.js';

const EDITOR_WATCH_MS = 1000;
/**
 * How long a stop waits for a start still under way, so that an engine that is about to have
 * written its files also removes them. A start that hangs past this never blocks a stop.
 */
const START_WAIT_MS = 2000;

export interface SidecarOptions {
  /** How long a `diff/open` waits for the editor's reply (default 60 s). */
  diffOpenTimeoutMs?: number;
}

/**
 * `tandem bridge`: an engine behind the bridge protocol. Ends, cleaning up, on `shutdown`, when
 * its input closes, or when the editor's process dies.
 */
export class BridgeSidecar {
  private readonly peer: JsonLinesPeer;
  private engine: Engine | undefined;
  private starting: Promise<Engine> | undefined;
  private editorWatch: NodeJS.Timeout | undefined;
  private stopping: Promise<void> | undefined;
  private resolveDone!: (reason: string) => void;
  private resolveStopStarted!: (reason: string) => void;
  /** Resolves, with why, once the sidecar begins to stop (for whatever reason). */
  readonly stopStarted = new Promise<string>((resolve) => (this.resolveStopStarted = resolve));
  /** Resolves, with why, once the sidecar has cleaned up and should exit. */
  readonly done = new Promise<string>((resolve) => (this.resolveDone = resolve));
  /**
   * How the user runs Tandem, for the commands the warnings print: looked up as the sidecar
   * starts, while the editor's `initialize` is on its way.
   */
  private readonly tandemCommand = tandemCommandFor(process.argv[1], process.env);

  constructor(
    input: Readable,
    output: Writable,
    private readonly log: Logger,
    private readonly options: SidecarOptions = {},
  ) {
    this.peer = new JsonLinesPeer(input, output, log, LINE_LIMITS);
    this.peer.onRequest('initialize', editorRequests.initialize, (params) =>
      this.initialize(params),
    );
    this.peer.onRequest('shutdown', editorRequests.shutdown, async () => {
      await this.stop('shutdown');
      return {};
    });
    this.peer.onRequest('mention', editorRequests.mention, async ({ path, lines }) =>
      this.initialized('mention').mention(path, lines),
    );
    this.on('workspace/changed', (engine, { workspaceFolders, isTrusted }) => {
      void engine
        .workspaceChanged(workspaceFolders, isTrusted)
        .then(() => this.peer.notify('env/changed', { env: engine.terminalEnv() }));
    });
    this.on('file/opened', (engine, { path }) => engine.fileOpened(path));
    this.on('file/closed', (engine, { path }) => engine.fileClosed(path));
    this.on('file/focused', (engine, { path }) => engine.fileFocused(path));
    this.on('cursor/changed', (engine, { path, line, character, selectedText, anchor }) =>
      engine.cursorChanged(path, line, character, selectedText, anchor),
    );
    this.answerDiffs();
    void this.peer.closed.then(() => this.stop('the editor closed the connection'));
    // Writing to an editor that is gone fails (EPIPE): that, too, is the end of the session.
    output.on('error', () => void this.stop('the editor stopped reading'));
  }

  /** Rejects every open diff, removes the discovery files, and ends the sidecar. */
  stop(reason: string): Promise<void> {
    this.stopping ??= (async () => {
      this.resolveStopStarted(reason);
      clearInterval(this.editorWatch);
      this.log.info(`stopping: ${reason}`);
      const engine = this.engine ?? (await startedWithin(this.starting, START_WAIT_MS));
      await engine?.stop();
      this.peer.rejectPending('the sidecar is stopping');
      this.resolveDone(reason);
    })();
    return this.stopping;
  }

  private async initialize(params: InitializeParams) {
    const version = chooseVersion(params.protocol);
    if (!version) {
      throw new JSONRPCErrorException(
        `unsupported protocol ${JSON.stringify(params.protocol)}: this sidecar speaks ` +
          `versions ${PROTOCOL_VERSIONS.join(', ')}`,
        JSONRPCErrorCode.InvalidParams,
      );
    }
    if (this.starting) {
      throw new JSONRPCErrorException('already initialized', JSONRPCErrorCode.InvalidRequest);
    }
    if (this.stopping) throw new Error('the sidecar is stopping');
    this.starting = this.tandemCommand.then((tandem) =>
      Engine.start({
        editor: params.editor,
        frontend: new BridgePort(
          this.peer,
          {
            clientChanges: params.capabilities?.clientChanges === true,
            diffOutcomes: isAtLeast(version, '1.2'),
            closedNotices: isAtLeast(version, '1.3'),
          },
          this.options.diffOpenTimeoutMs,
        ),
        workspaceFolders: params.workspaceFolders,
        isTrusted: params.isTrusted,
        discovery: params.discovery,
        allowContainerHost: params.allowContainerHost,
        showsDiffs: params.capabilities?.diffs ?? true,
        tandemCommand: tandem,
        log: this.log,
      }),
    );
    const engine = await this.starting;
    this.engine = engine;
    this.watchEditor(params.editor.pid);
    return {
      // An adapter that sent `1` expects `1` back; a range gets the chosen version's name.
      protocol: typeof params.protocol === 'number' ? 1 : version,
      ...(version === '1.0' ? {} : { capabilities: SIDECAR_CAPABILITIES }),
      port: engine.port,
      env: engine.terminalEnv(),
      discoveryFiles: [...engine.discoveryFiles],
      warnings: engine.warnings(),
      ...(isAtLeast(version, '1.3') && { limits: CONTEXT_LIMITS }),
    };
  }

  /**
   * `diff/accepted` and `diff/rejected`: as requests (1.1) the editor hears what the engine
   * says; as notifications (1.0) a refused accept becomes a rejection, so that the CLI is never
   * left waiting on a view the editor has already closed.
   */
  private answerDiffs(): void {
    const answers = {
      'diff/accepted': (engine: Engine, { id, content }: { id: string; content: string }) =>
        engine.diffAccepted(id, content),
      'diff/rejected': (engine: Engine, { id }: { id: string }) => engine.diffRejected(id),
    };
    for (const method of ['diff/accepted', 'diff/rejected'] as const) {
      const answer = answers[method] as (engine: Engine, params: object) => DiffAnswer;
      this.peer.onRequest(method, editorNotifications[method], async (params) => {
        const result = answer(this.initialized(method), params);
        if (result.ok) return {};
        throw new JSONRPCErrorException(result.message, DIFF_ANSWER_ERRORS[result.code]);
      });
      this.on(method, (engine, params) => {
        const result = answer(engine, params);
        if (!result.ok && result.code === 'empty-accept') {
          this.log.warn(`${result.message} Sent as a notification, it is taken as a rejection.`);
          engine.diffRejected((params as { id: string }).id);
        }
      });
    }
  }

  private initialized(method: string): Engine {
    if (this.engine) return this.engine;
    throw new JSONRPCErrorException(
      `${method}: send initialize first`,
      JSONRPCErrorCode.InvalidRequest,
    );
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

/** The engine of a start under way, if it comes within `ms`; a start that fails gives none. */
async function startedWithin(
  starting: Promise<Engine> | undefined,
  ms: number,
): Promise<Engine | undefined> {
  if (!starting) return undefined;
  let gaveUp = false;
  let timer: NodeJS.Timeout | undefined;
  const started = starting.then(
    (engine) => {
      // Started after the stop gave up on it: it still must not outlive the stop.
      if (gaveUp) void engine.stop();
      return engine;
    },
    () => undefined,
  );
  const timeout = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => {
      gaveUp = true;
      resolve(undefined);
    }, ms);
  });
  try {
    return await Promise.race([started, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
