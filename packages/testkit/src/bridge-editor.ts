import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { createRequire } from 'node:module';
import path from 'node:path';

/** The bundled `tandem` command, as editors run it. */
export const TANDEM = path.join(
  path.dirname(createRequire(import.meta.url).resolve('@tandem/cli/package.json')),
  'dist/tandem.js',
);

export interface BridgeMessage {
  jsonrpc: '2.0';
  id?: number | string | null;
  method?: string;
  params?: Record<string, unknown>;
  result?: unknown;
  error?: { code: number; message: string };
}

type Handler = (params: Record<string, unknown>) => unknown | Promise<unknown>;

/**
 * A test program that speaks bridge protocol v1 to a real `tandem bridge`, the way an editor
 * adapter does: it answers `diff/open` and `diff/close` with the handlers it is given and keeps
 * every message it receives.
 */
export class BridgeEditor {
  readonly process: ChildProcessWithoutNullStreams;
  readonly received: BridgeMessage[] = [];
  readonly stderr: string[] = [];
  readonly exited: Promise<number | null>;
  private readonly handlers = new Map<string, Handler>();
  private readonly replies = new Map<number, (message: BridgeMessage) => void>();
  private nextId = 1;

  /**
   * `tandem`: the bundled command to start (a benchmark compares another build's); `node`: the
   * program that runs it (a benchmark compares Node versions).
   */
  constructor(env: NodeJS.ProcessEnv, tandem = TANDEM, node = process.execPath) {
    if (!existsSync(tandem)) throw new Error(`${tandem} is missing: run \`npm run build\` first`);
    this.process = spawn(node, [tandem, 'bridge'], { env, stdio: 'pipe' });
    createInterface({ input: this.process.stdout }).on('line', (line) => this.receive(line));
    createInterface({ input: this.process.stderr }).on('line', (line) => this.stderr.push(line));
    this.exited = new Promise((resolve) => this.process.once('exit', (code) => resolve(code)));
  }

  handle(method: string, handler: Handler): void {
    this.handlers.set(method, handler);
  }

  request(method: string, params: object = {}): Promise<BridgeMessage> {
    const id = this.nextId++;
    const reply = new Promise<BridgeMessage>((resolve) => this.replies.set(id, resolve));
    this.sendLine(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
    return reply;
  }

  /**
   * `initialize` as `editor` with `workspace` open, speaking protocol `min` to `max`; throws the
   * bridge's error when it refuses.
   */
  async initialize(
    workspace: string,
    editor: { name: string; displayName: string },
    { min = '1.0', max = '1.3' } = {},
  ): Promise<void> {
    const reply = await this.request('initialize', {
      protocol: { min, max },
      editor: { ...editor, pid: process.pid },
      workspaceFolders: [workspace],
    });
    if (reply.error) throw new Error(`initialize: ${reply.error.message}`);
  }

  notify(method: string, params: object): void {
    this.sendLine(JSON.stringify({ jsonrpc: '2.0', method, params }));
  }

  sendLine(line: string): void {
    this.process.stdin.write(`${line}\n`);
  }

  /** Resolves with the first received message that matches, waiting up to `ms`. */
  async waitFor(
    predicate: (message: BridgeMessage) => boolean,
    what: string,
  ): Promise<BridgeMessage> {
    await this.waitUntil(() => this.received.some(predicate), what);
    return this.received.find(predicate)!;
  }

  /** Waits until the sidecar's log has a line containing `text`. */
  waitForLog(text: string): Promise<void> {
    return this.waitUntil(() => this.stderr.some((line) => line.includes(text)), `log: ${text}`);
  }

  private async waitUntil(condition: () => boolean, what: string, ms = 10_000): Promise<void> {
    const end = Date.now() + ms;
    for (;;) {
      if (condition()) return;
      if (Date.now() > end) {
        throw new Error(
          `timed out waiting for ${what}; stderr:\n${this.stderr.slice(-20).join('\n')}`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  async kill(): Promise<void> {
    if (this.process.exitCode === null && this.process.signalCode === null) {
      this.process.kill('SIGKILL');
      await this.exited;
    }
  }

  private receive(line: string): void {
    const message = JSON.parse(line) as BridgeMessage;
    this.received.push(message);
    if (message.method && message.id !== undefined) return void this.answer(message);
    if (typeof message.id === 'number' && !message.method) this.replies.get(message.id)?.(message);
  }

  private async answer(message: BridgeMessage): Promise<void> {
    const handler = this.handlers.get(message.method!);
    try {
      if (!handler) throw new Error(`no handler for ${message.method}`);
      const result = await handler(message.params ?? {});
      this.sendLine(JSON.stringify({ jsonrpc: '2.0', id: message.id, result }));
    } catch (error) {
      const text = error instanceof Error ? error.message : String(error);
      this.sendLine(
        JSON.stringify({ jsonrpc: '2.0', id: message.id, error: { code: -32000, message: text } }),
      );
    }
  }
}
