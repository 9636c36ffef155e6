/**
 * Test-side handle on one real IdeClient (Gemini CLI's or Qwen Code's) running in its own child
 * process (client-runner.mjs): the judge of what a companion really does for these clients.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { clientNode } from './client-node.js';
import { CLIENTS_DIR } from './installed-clients.js';
import type {
  ClientKind,
  CommandResults,
  ConnectionState,
  ConnectionStatus,
  DiffOutcome,
  DiffResult,
  IdeContext,
  IdeInfo,
  RunnerMessage,
  RunnerRequest,
} from './runner-protocol.js';

export type {
  ClientKind,
  ConnectionState,
  ConnectionStatus,
  DiffOutcome,
  DiffResult,
  IdeContext,
  IdeFile,
  IdeInfo,
} from './runner-protocol.js';

export interface RealClientOptions {
  kind: ClientKind;
  /** The client's working directory: the workspace it looks for a companion of. */
  cwd: string;
  /** The client's TMPDIR: Gemini reads its discovery files from `<tmpDir>/gemini/ide/`. */
  tmpDir: string;
  /** The client's QWEN_HOME: Qwen reads its lock files from `<qwenHome>/ide/`. */
  qwenHome: string;
  /** The client's HOME (created if missing); `<tmpDir>/home` by default. */
  home?: string;
  /** Applied last; `undefined` removes a variable. */
  env?: Record<string, string | undefined>;
  /** The default bound of every wait, in ms. */
  timeoutMs?: number;
}

/** One `openDiff()` call of the client. */
export interface DiffHandle {
  /** Resolves when the companion answered the openDiff tool call; rejects with its error. */
  opened: Promise<void>;
  /** What the client's `openDiff()` resolved with: the user's decision. */
  result: Promise<DiffResult>;
}

const RUNNER = fileURLToPath(new URL('./client-runner.mjs', import.meta.url));
const DEFAULT_TIMEOUT_MS = 30_000;
const KILL_GRACE_MS = 5_000;
const EVENTS_IN_ERRORS = 12;
const STDERR_LINES_IN_ERRORS = 30;

/** Removed from the inherited environment: discovery must work without them (tests add them). */
const INHERITED_VARIABLES_REMOVED = [
  /^GEMINI_CLI_IDE_/,
  /^QWEN_CODE_IDE_/,
  /^XDG_/,
  /^TERM_PROGRAM$/,
];

/**
 * Starts a real client in its own process and waits until it has created its IdeClient instance
 * (which reads the discovery data: write it before calling this).
 */
export async function startRealClient(options: RealClientOptions): Promise<RealClient> {
  if (!existsSync(options.cwd)) {
    throw new Error(`real ${options.kind} client: its cwd ${options.cwd} does not exist`);
  }
  const client = new RealClient(options);
  try {
    await client.ready;
  } catch (error) {
    await client.kill();
    throw error;
  }
  return client;
}

/** What a pending wait makes of the current state (no message) or of one incoming message. */
type Check<T> = (
  message: RunnerMessage | undefined,
) => { value: T } | { error: string } | undefined;

interface Waiter {
  check: Check<unknown>;
  resolve(value: unknown): void;
  reject(error: Error): void;
}

export type { RealClient };

/** Made by `startRealClient`. */
class RealClient {
  readonly kind: ClientKind;
  /** Resolves once the client is ready for commands. */
  readonly ready: Promise<void>;
  private readonly child: ChildProcessWithoutNullStreams;
  private readonly timeoutMs: number;
  private readonly waiters = new Set<Waiter>();
  private readonly recentEvents: string[] = [];
  private readonly stderrTail: string[] = [];
  private readonly closed: Promise<void>;
  private ide: IdeInfo | undefined;
  private state: ConnectionState | undefined;
  private context: IdeContext | undefined;
  private exitReason: string | undefined;
  private stopping: Promise<void> | undefined;
  private nextId = 1;

  constructor(options: RealClientOptions) {
    this.kind = options.kind;
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    // The client's own module runs on a Node its CLI supports.
    this.child = spawn(clientNode(options.kind), [RUNNER, options.kind, CLIENTS_DIR], {
      cwd: options.cwd,
      env: clientEnvironment(options),
      stdio: 'pipe',
    });
    this.child.stdin.on('error', () => {
      // The runner is gone; its exit is reported through 'close'.
    });
    createInterface({ input: this.child.stdout }).on('line', (line) => this.receive(line));
    createInterface({ input: this.child.stderr }).on('line', (line) => {
      this.stderrTail.push(line);
      if (this.stderrTail.length > STDERR_LINES_IN_ERRORS) this.stderrTail.shift();
    });
    this.closed = new Promise((resolve) => {
      const end = (reason: string) => {
        this.exitReason ??= reason;
        for (const waiter of this.waiters) waiter.reject(this.failure(`it ${this.exitReason}`));
        this.waiters.clear();
        resolve();
      };
      this.child.on('close', (code, signal) => end(`exited (code ${code}, signal ${signal})`));
      this.child.on('error', (error) => end(`could not run: ${error.message}`));
    });
    this.ready = this.expect('the client to start', this.timeoutMs, (message) =>
      message?.type === 'ready' ? { value: undefined } : undefined,
    );
  }

  /** The IDE the client detected when it started (from the discovery data's `ideInfo`). */
  get detectedIde(): IdeInfo | undefined {
    return this.ide;
  }

  /** The process id of the client's process. */
  get pid(): number | undefined {
    return this.child.pid;
  }

  /** Runs the client's `connect()`; resolves with its state afterwards. */
  connect(timeoutMs = this.timeoutMs): Promise<ConnectionState> {
    return this.request({ command: 'connect' }, timeoutMs);
  }

  /** The client's current `getConnectionStatus()` and `isDiffingEnabled()`. */
  status(timeoutMs = this.timeoutMs): Promise<ConnectionState> {
    return this.request({ command: 'status' }, timeoutMs);
  }

  /** Resolves with the state once the client's status is (or becomes) `status`. */
  waitForStatus(status: ConnectionStatus, timeoutMs = this.timeoutMs): Promise<ConnectionState> {
    return this.expect(`status "${status}"`, timeoutMs, (message) => {
      const state = message === undefined ? this.state : message.type === 'status' && message.state;
      return state && state.status === status ? { value: state } : undefined;
    });
  }

  /** The client's context store as last reported (undefined before the first update). */
  latestContext(): IdeContext | undefined {
    return this.context;
  }

  /** Resolves with the first context (the current one, or one reported later) that matches. */
  waitForContext(
    predicate: (context: IdeContext | undefined) => boolean,
    timeoutMs = this.timeoutMs,
  ): Promise<IdeContext | undefined> {
    return this.expect('a matching context', timeoutMs, (message) => {
      if (message !== undefined && message.type !== 'context') return undefined;
      const context = message === undefined ? this.context : (message.context ?? undefined);
      return predicate(context) ? { value: context } : undefined;
    });
  }

  /**
   * Calls the client's `openDiff()`. Both promises are bounded by `timeoutMs`; a test that
   * ignores one of them leaves no unhandled rejection behind.
   */
  openDiff(filePath: string, newContent: string, timeoutMs = this.timeoutMs): DiffHandle {
    const id = this.send({ command: 'openDiff', filePath, newContent });
    const opened = this.expect<void>(`openDiff of ${filePath} to return`, timeoutMs, (message) => {
      if (message?.type !== 'diffOpened' || message.id !== id) return undefined;
      return message.error === undefined ? { value: undefined } : { error: message.error };
    });
    const result = this.reply<'openDiff'>(id, `the outcome of the diff of ${filePath}`, timeoutMs);
    opened.catch(() => undefined);
    result.catch(() => undefined);
    return { opened, result };
  }

  /**
   * Calls the client's `closeDiff()` (what it does when a diff is closed for it); resolves with
   * the content the client read from the reply, undefined when it found none.
   */
  async closeDiff(
    filePath: string,
    options: { suppressNotification?: boolean } = {},
    timeoutMs = this.timeoutMs,
  ): Promise<string | undefined> {
    const { suppressNotification } = options;
    const reply = await this.request(
      { command: 'closeDiff', filePath, suppressNotification },
      timeoutMs,
    );
    return reply.content;
  }

  /**
   * Calls the client's `resolveDiffFromCli()`: the user decided in the terminal. The client
   * sends closeDiff with `suppressNotification: true` and resolves the open diff itself.
   */
  async resolveDiffFromCli(
    filePath: string,
    outcome: DiffOutcome,
    timeoutMs = this.timeoutMs,
  ): Promise<void> {
    await this.request({ command: 'resolveDiffFromCli', filePath, outcome }, timeoutMs);
  }

  /** Runs the client's `disconnect()` (closes its open diffs first); resolves with its state. */
  disconnect(timeoutMs = this.timeoutMs): Promise<ConnectionState> {
    return this.request({ command: 'disconnect' }, timeoutMs);
  }

  /** Ends the client's process, like closing the CLI. Safe to call more than once. */
  kill(): Promise<void> {
    this.stopping ??= this.stop();
    return this.stopping;
  }

  private async stop(): Promise<void> {
    if (this.exitReason === undefined) {
      this.child.stdin.end();
      const timer = setTimeout(() => this.child.kill('SIGKILL'), KILL_GRACE_MS);
      await this.closed;
      clearTimeout(timer);
    }
  }

  private request<R extends RunnerRequest>(
    request: R,
    timeoutMs: number,
  ): Promise<CommandResults[R['command']]> {
    const id = this.send(request);
    return this.reply(id, `the reply to ${request.command}`, timeoutMs);
  }

  private reply<C extends keyof CommandResults>(
    id: number,
    what: string,
    timeoutMs: number,
  ): Promise<CommandResults[C]> {
    return this.expect<CommandResults[C]>(what, timeoutMs, (message) => {
      if (message?.type === 'reply' && message.id === id) {
        return { value: message.result as CommandResults[C] };
      }
      if (message?.type === 'failure' && message.id === id) return { error: message.error };
      return undefined;
    });
  }

  private send(request: RunnerRequest): number {
    const id = this.nextId++;
    if (this.exitReason === undefined)
      this.child.stdin.write(JSON.stringify({ ...request, id }) + '\n');
    return id;
  }

  /** Waits, at most `timeoutMs`, until `check` gives a value or an error. */
  private expect<T>(what: string, timeoutMs: number, check: Check<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const now = check(undefined);
      if (now !== undefined) {
        if ('value' in now) resolve(now.value);
        else reject(this.failure(now.error));
        return;
      }
      if (this.exitReason !== undefined) {
        reject(this.failure(`cannot wait for ${what}: it ${this.exitReason}`));
        return;
      }
      const timer = setTimeout(() => {
        this.waiters.delete(waiter);
        reject(this.failure(`timed out after ${timeoutMs} ms waiting for ${what}`));
      }, timeoutMs);
      const settle = () => {
        clearTimeout(timer);
        this.waiters.delete(waiter);
      };
      const waiter: Waiter = {
        check,
        resolve: (value) => {
          settle();
          resolve(value as T);
        },
        reject: (error) => {
          settle();
          reject(error);
        },
      };
      this.waiters.add(waiter);
    });
  }

  private receive(line: string): void {
    let message: RunnerMessage;
    try {
      message = JSON.parse(line) as RunnerMessage;
    } catch {
      this.remember(`(not JSON) ${line}`);
      return;
    }
    this.remember(line);
    if (message.type === 'ready') {
      this.ide = message.ide ?? undefined;
      this.state = message.state;
    } else if (message.type === 'status') {
      this.state = message.state;
    } else if (message.type === 'context') {
      this.context = message.context ?? undefined;
    }
    for (const waiter of [...this.waiters]) {
      const outcome = waiter.check(message);
      if (outcome === undefined) continue;
      if ('value' in outcome) waiter.resolve(outcome.value);
      else waiter.reject(this.failure(outcome.error));
    }
  }

  private remember(event: string): void {
    this.recentEvents.push(event.length > 400 ? `${event.slice(0, 400)}…` : event);
    if (this.recentEvents.length > EVENTS_IN_ERRORS) this.recentEvents.shift();
  }

  /** An error naming this client, with what it reported last. */
  private failure(problem: string): Error {
    const events = this.recentEvents.map((event) => `\n    ${event}`).join('') || ' none';
    const stderr = this.stderrTail.map((line) => `\n    ${line}`).join('') || ' empty';
    return new Error(
      `real ${this.kind} client (pid ${this.child.pid}): ${problem}` +
        `\n  last events:${events}\n  stderr:${stderr}`,
    );
  }
}

/** The environment a real client runs in (exported for tests that predict what it sees). */
export function clientEnvironment(options: RealClientOptions): NodeJS.ProcessEnv {
  const home = options.home ?? path.join(options.tmpDir, 'home');
  mkdirSync(home, { recursive: true });
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (!INHERITED_VARIABLES_REMOVED.some((pattern) => pattern.test(name))) env[name] = value;
  }
  Object.assign(env, { TMPDIR: options.tmpDir, HOME: home, QWEN_HOME: options.qwenHome });
  // In a container Gemini would dial host.docker.internal; this makes it use 127.0.0.1. (Qwen
  // always tries 127.0.0.1 first.)
  if (options.kind === 'gemini') env['REMOTE_CONTAINERS'] = 'true';
  for (const [name, value] of Object.entries(options.env ?? {})) {
    if (value === undefined) delete env[name];
    else env[name] = value;
  }
  return env;
}
