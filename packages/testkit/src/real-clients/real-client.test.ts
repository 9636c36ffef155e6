/**
 * Proves the harness: each real client, driven through RealClient, against the smallest
 * companion that keeps the contract (a real MCP server over real HTTP, one per session).
 * This companion exists only for these tests; the product's engine lives in packages/core.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readlinkSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, afterEach, before, describe, test } from 'node:test';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { listenOnLoopback } from '@tandem/core';
import { runsOn, supportedNodeMajor } from './supported-node.fixture.js';
import {
  startRealClient,
  type ClientKind,
  type IdeContext,
  type IdeFile,
  type RealClient,
} from './real-client.js';

const IDE_INFO = { name: 'tandem-harness-test', displayName: 'Tandem harness test' };

interface Session {
  transport: StreamableHTTPServerTransport;
  server: McpServer;
  streamOpen: boolean;
}

interface OpenDiff {
  session: Session;
  /** The proposed side as the user left it. */
  content: string;
}

class TestCompanion {
  readonly openDiffs = new Map<string, OpenDiff>();
  readonly closeDiffCalls: { filePath: string; suppressNotification?: boolean }[] = [];
  private readonly sessions = new Map<string, Session>();
  private readonly token = randomBytes(16).toString('hex');
  private context: IdeContext | undefined;

  private constructor(private readonly http: Server) {}

  static async start(): Promise<TestCompanion> {
    const http = createServer();
    const companion = new TestCompanion(http);
    http.on('request', (req, res) => {
      companion.handle(req, res).catch((error: unknown) => {
        if (!res.headersSent) res.writeHead(500).end(String(error));
      });
    });
    await listenOnLoopback(http);
    return companion;
  }

  get port(): number {
    return (this.http.address() as AddressInfo).port;
  }

  /** Gemini's discovery file and Qwen's lock file, in the clients' private directories. */
  writeDiscovery(workspace: string, tmpDir: string, qwenHome: string): void {
    const common = { port: this.port, workspacePath: workspace, authToken: this.token };
    const geminiDir = path.join(tmpDir, 'gemini', 'ide');
    mkdirSync(geminiDir, { recursive: true });
    writeFileSync(
      path.join(geminiDir, `gemini-ide-server-${process.pid}-${this.port}.json`),
      JSON.stringify({ ...common, ideInfo: IDE_INFO }),
    );
    const qwenDir = path.join(qwenHome, 'ide');
    mkdirSync(qwenDir, { recursive: true });
    writeFileSync(
      path.join(qwenDir, `${this.port}.lock`),
      JSON.stringify({
        ...common,
        ppid: process.pid,
        ideInfo: IDE_INFO,
        ideName: IDE_INFO.displayName,
      }),
    );
  }

  setContext(context: IdeContext): void {
    this.context = context;
    for (const session of this.sessions.values()) this.sendContext(session);
  }

  edit(filePath: string, content: string): void {
    this.diff(filePath).content = content;
  }

  async accept(filePath: string, content: string): Promise<void> {
    const { session } = this.diff(filePath);
    this.openDiffs.delete(filePath);
    await notify(session, 'ide/diffAccepted', { filePath, content });
  }

  async reject(filePath: string): Promise<void> {
    const { session } = this.diff(filePath);
    this.openDiffs.delete(filePath);
    await notify(session, 'ide/diffRejected', { filePath });
  }

  async stop(): Promise<void> {
    await Promise.all([...this.sessions.values()].map((session) => session.server.close()));
    this.http.closeAllConnections();
    await new Promise((resolve) => this.http.close(resolve));
  }

  private diff(filePath: string): OpenDiff {
    const diff = this.openDiffs.get(filePath);
    assert.ok(diff, `no diff open for ${filePath}`);
    return diff;
  }

  private sendContext(session: Session): void {
    if (session.streamOpen && this.context) {
      void notify(session, 'ide/contextUpdate', { ...this.context });
    }
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (req.headers.authorization !== `Bearer ${this.token}` || req.url !== '/mcp') {
      res.writeHead(401).end();
      return;
    }
    const sessionId = req.headers['mcp-session-id'];
    const session = typeof sessionId === 'string' ? this.sessions.get(sessionId) : undefined;
    if (session && req.method === 'GET') {
      // This promise ends with the stream: notifications may flow once its headers are out.
      void session.transport.handleRequest(req, res);
      await until(() => res.headersSent);
      session.streamOpen = true;
      this.sendContext(session);
    } else if (session) {
      await session.transport.handleRequest(req, res);
    } else if (req.method === 'POST' && sessionId === undefined) {
      const created = this.createSession();
      await created.server.connect(created.transport);
      await created.transport.handleRequest(req, res);
    } else {
      res.writeHead(404).end();
    }
  }

  private createSession(): Session {
    const session: Session = {
      server: new McpServer({ name: 'tandem-harness-test', version: '0.0.0' }),
      transport: new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomBytes(16).toString('hex'),
        onsessioninitialized: (id) => {
          this.sessions.set(id, session);
        },
      }),
      streamOpen: false,
    };
    session.server.registerTool(
      'openDiff',
      { inputSchema: { filePath: z.string(), newContent: z.string() } },
      ({ filePath, newContent }): CallToolResult => {
        if (!path.isAbsolute(filePath)) {
          return { isError: true, content: [{ type: 'text', text: 'filePath must be absolute' }] };
        }
        this.openDiffs.set(filePath, { session, content: newContent });
        return { content: [] };
      },
    );
    session.server.registerTool(
      'closeDiff',
      { inputSchema: { filePath: z.string(), suppressNotification: z.boolean().optional() } },
      ({ filePath, suppressNotification }): CallToolResult => {
        this.closeDiffCalls.push({ filePath, suppressNotification });
        const diff = this.openDiffs.get(filePath);
        this.openDiffs.delete(filePath);
        if (diff && !suppressNotification) void notify(session, 'ide/diffRejected', { filePath });
        const text = JSON.stringify({ content: diff?.content ?? null });
        return { content: [{ type: 'text', text }] };
      },
    );
    return session;
  }
}

function notify(session: Session, method: string, params: Record<string, unknown>): Promise<void> {
  assert.ok(session.streamOpen, `no stream open to send ${method} on`);
  return session.transport.send({ jsonrpc: '2.0', method, params });
}

async function until(condition: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

for (const kind of ['gemini', 'qwen'] as const satisfies readonly ClientKind[]) {
  describe(`the real ${kind} client`, () => {
    let root: string;
    let workspace: string;
    let tmpDir: string;
    let qwenHome: string;
    let companion: TestCompanion;
    let client: RealClient | undefined;

    before(async () => {
      root = realpathSync(mkdtempSync(path.join(os.tmpdir(), `tandem-real-${kind}-`)));
      workspace = path.join(root, 'workspace');
      tmpDir = path.join(root, 'tmp');
      qwenHome = path.join(root, 'qwen-home');
      for (const dir of [workspace, tmpDir, qwenHome]) mkdirSync(dir);
      companion = await TestCompanion.start();
      companion.writeDiscovery(workspace, tmpDir, qwenHome);
    });

    afterEach(async () => {
      await client?.kill();
      client = undefined;
    });

    after(async () => {
      await companion.stop();
      rmSync(root, { recursive: true, force: true });
    });

    async function connected(): Promise<RealClient> {
      client = await startRealClient({ kind, cwd: workspace, tmpDir, qwenHome });
      const state = await client.connect();
      assert.equal(state.status, 'connected', state.details);
      return client;
    }

    test('connects with diffing enabled, then disconnects', async () => {
      const real = await connected();
      assert.deepEqual(real.detectedIde, IDE_INFO);
      // Its client module runs on a Node its CLI supports (Qwen Code: 22 or newer).
      const node = readlinkSync(`/proc/${real.pid}/exe`);
      assert.ok(runsOn(node, await supportedNodeMajor(kind)), `${kind} runs on ${node}`);
      assert.deepEqual(await real.status(), { status: 'connected', diffingEnabled: true });
      await real.disconnect();
      const state = await real.waitForStatus('disconnected');
      assert.equal(state.diffingEnabled, false);
      await real.kill();
      await real.kill();
    });

    test('receives the context, trimmed to the newest 10 files', async () => {
      const real = await connected();
      const openFiles: IdeFile[] = Array.from({ length: 12 }, (_, index) => ({
        path: path.join(workspace, `file-${index}.txt`),
        timestamp: 1_000 + index,
        isActive: true,
        cursor: { line: index + 1, character: 1 },
      }));
      companion.setContext({ workspaceState: { openFiles } });
      const context = await real.waitForContext((c) => c?.workspaceState?.openFiles !== undefined);
      const files = context?.workspaceState?.openFiles ?? [];
      assert.deepEqual(
        files.map((file) => path.basename(file.path)),
        [11, 10, 9, 8, 7, 6, 5, 4, 3, 2].map((index) => `file-${index}.txt`),
      );
      assert.deepEqual(files[0]?.cursor, { line: 12, character: 1 });
      assert.ok(files.slice(1).every((file) => file.isActive === false && !file.cursor));
      assert.deepEqual(real.latestContext(), context);
    });

    test('an accepted diff resolves with the content the companion sent', async () => {
      const real = await connected();
      const filePath = path.join(workspace, 'accepted.txt');
      const diff = real.openDiff(filePath, 'proposed\n');
      await diff.opened;
      assert.equal(companion.openDiffs.get(filePath)?.content, 'proposed\n');
      await companion.accept(filePath, 'edited by the user\n');
      assert.deepEqual(await diff.result, { status: 'accepted', content: 'edited by the user\n' });
    });

    test('a rejected diff resolves as rejected', async () => {
      const real = await connected();
      const filePath = path.join(workspace, 'rejected.txt');
      const diff = real.openDiff(filePath, 'proposed\n');
      await diff.opened;
      await companion.reject(filePath);
      assert.deepEqual(await diff.result, { status: 'rejected' });
    });

    test('resolveDiffFromCli closes the diff without a notification and keeps its content', async () => {
      const real = await connected();
      const filePath = path.join(workspace, 'terminal.txt');
      const diff = real.openDiff(filePath, 'proposed\n');
      await diff.opened;
      companion.edit(filePath, 'edited in the editor\n');
      await real.resolveDiffFromCli(filePath, 'accepted');
      assert.deepEqual(companion.closeDiffCalls.at(-1), { filePath, suppressNotification: true });
      assert.deepEqual(await diff.result, {
        status: 'accepted',
        content: 'edited in the editor\n',
      });
    });

    test('closeDiff returns the proposed side; without suppression the diff is rejected', async () => {
      const real = await connected();
      const filePath = path.join(workspace, 'closed.txt');
      const diff = real.openDiff(filePath, 'proposed\n');
      await diff.opened;
      assert.equal(await real.closeDiff(filePath, { suppressNotification: false }), 'proposed\n');
      assert.deepEqual(await diff.result, { status: 'rejected' });
    });

    test('an openDiff the companion refuses fails both promises with its reason', async () => {
      const real = await connected();
      const diff = real.openDiff('relative.txt', 'proposed\n');
      await assert.rejects(diff.opened, /filePath must be absolute/);
      await assert.rejects(diff.result, /filePath must be absolute/);
    });
  });
}
