import { lookup } from 'node:dns/promises';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { DiscoveryFile } from '../scan/discovery-files.js';
import { qwenWorkspaceCheck, type WorkspaceCheck } from '../scan/workspace-match.js';
import { detectIde } from './ide-detection.js';
import {
  describeTreePid,
  diffingOf,
  type Candidate,
  type ClientPrediction,
  type ConnectionAttempt,
  type PredictionContext,
  INSTALL_HINT,
  workspaceRefusal,
} from './prediction.js';

const CONTAINER_HOST = 'host.docker.internal';

/** A lock file's JSON, read the way Qwen Code reads it (any JSON value). */
type Config = Record<string, unknown> | null;

interface Found {
  config: Config;
  file: DiscoveryFile;
}

/**
 * What Qwen Code 0.24's `IdeClient` does from `ctx.dir`: `getConnectionConfigFromFile` (the
 * port variable's lock, the legacy files, then every lock newest first, after deleting locks
 * whose editor is gone), `detectIde`, and `connect` with its fallback to the other locks.
 * Nothing is deleted here: the locks Qwen Code would delete are reported.
 */
export async function predictQwen(ctx: PredictionContext): Promise<ClientPrediction> {
  const model = new QwenModel(ctx);
  return model.predict();
}

class QwenModel {
  private readonly rejected = new Set<unknown>();
  private readonly candidates: Candidate[] = [];
  private readonly deletes: string[] = [];
  private readonly envPort: string | undefined;

  constructor(private readonly ctx: PredictionContext) {
    this.envPort = portFromEnv(ctx.env.QWEN_CODE_IDE_SERVER_PORT);
  }

  async predict(): Promise<ClientPrediction> {
    const base = {
      client: 'qwen' as const,
      idePid: {
        pid: this.ctx.treeIdeProcess.pid,
        source: describeTreePid(this.ctx.treeIdeProcess),
      },
      candidates: this.candidates,
      attempts: [] as ConnectionAttempt[],
      connected: false,
      diffing: false,
    };
    let found: Found | undefined;
    let choice: string;
    try {
      [found, choice] = this.lookUpConfig();
    } catch (error) {
      const crash = `Qwen Code's IDE client fails while reading the discovery data: ${(error as Error).message}`;
      return { ...base, choice: crash, status: crash, crash, ...this.deletions() };
    }
    const withChoice = {
      ...base,
      ...(found && { chosenFile: found.file.path }),
      choice,
      ...this.deletions(),
    };
    const config = found?.config ?? undefined;
    const ide = detectIde('qwen', config, this.ctx.env, this.ctx.treeIdeProcess.command);
    if (!ide) {
      return {
        ...withChoice,
        status:
          'IDE integration is not supported in your current environment. To use this feature, run Qwen Code in one of these supported IDEs: VS Code or VS Code forks.',
      };
    }
    const fromFile = config?.workspacePath !== undefined && config?.workspacePath !== null;
    const workspace = {
      ...qwenWorkspaceCheck(
        fromFile ? config?.workspacePath : this.ctx.env.QWEN_CODE_IDE_WORKSPACE_PATH,
        this.ctx.dir,
      ),
      source: fromFile ? 'the discovery file' : 'QWEN_CODE_IDE_WORKSPACE_PATH',
    };
    const withIde = { ...withChoice, detectedIde: ide, workspace };
    if (workspace.outcome !== 'match') {
      const status = workspaceRefusal('qwen', workspace);
      return { ...withIde, status, ...(workspace.outcome === 'invalid' && { crash: status }) };
    }

    const connection = new Connection(this.ctx, config?.authToken);
    if (config?.port) {
      if (await connection.tryPort(config.port, 'the discovery file')) {
        return connection.result(withIde, ide.displayName);
      }
      for (const fallback of this.fallbacks(config.port)) {
        connection.useToken(fallback.config?.authToken);
        if (await connection.tryPort(fallback.config?.port, `fallback: ${fallback.file.path}`)) {
          return connection.result(withIde, ide.displayName);
        }
      }
    }
    if (this.envPort && !this.rejected.has(this.envPort)) {
      if (await connection.tryPort(this.envPort, 'QWEN_CODE_IDE_SERVER_PORT')) {
        return connection.result(withIde, ide.displayName);
      }
    }
    return {
      ...withIde,
      attempts: connection.attempts,
      status: this.failure(connection, ide.displayName),
    };
  }

  /**
   * The client listens for transport errors before it connects, so the first failed attempt
   * sets its status (later messages do not replace it).
   */
  private failure(connection: Connection, displayName: string): string {
    const first = connection.attempts[0];
    if (first) {
      return `IDE connection error. The connection was lost unexpectedly. Please try reconnecting by running /ide enable\n${first.host}:${first.port} ${first.probe.detail}`;
    }
    if (this.rejected.size > 0) {
      return 'Found IDE companion extension, but its workspace does not match the current directory. Run Qwen Code from the workspace open in your IDE, or switch the IDE to this project.';
    }
    return `Failed to connect to IDE companion extension in ${displayName}. ${INSTALL_HINT}`;
  }

  private deletions(): { deletes?: string[] } {
    return this.deletes.length > 0 ? { deletes: [...this.deletes] } : {};
  }

  /** `getConnectionConfigFromFile()`; throws where the client throws. */
  private lookUpConfig(): [Found | undefined, string] {
    const { locations } = this.ctx;
    if (this.envPort) {
      const path = join(locations.qwenIdeDir, `${this.envPort}.lock`);
      const file = this.ctx.files.find((candidate) => candidate.path === path);
      if (file && file.content !== undefined) {
        const config = file.content as Config;
        let matches: boolean | undefined;
        try {
          matches = matchesWorkspace(config, this.ctx.dir);
        } catch {
          // The client ignores a lock it cannot read this way and goes on.
        }
        this.consider(file, config, 'named by QWEN_CODE_IDE_SERVER_PORT', matches);
        if (matches)
          return [{ config, file }, `QWEN_CODE_IDE_SERVER_PORT=${this.envPort} names it`];
        if (matches === false) this.rejected.add(config?.port ?? this.envPort);
      }
    }

    const legacy = this.legacyConfig();
    if (legacy) {
      const { config, file, source } = legacy;
      const matches = matchesWorkspace(config, this.ctx.dir);
      this.consider(file, config, `legacy file found by ${source}`, matches);
      if (matches) return [{ config, file }, `the legacy file found by ${source}`];
      if (config?.port) this.rejected.add(config.port);
      if (source === 'QWEN_CODE_IDE_SERVER_PORT') this.rejected.add(this.envPort);
    }

    for (const found of this.liveLocks(true)) {
      const { config, file } = found;
      if (config === null) throw new Error(`${file.path} holds null`);
      if (config.workspacePath === undefined) {
        this.consider(file, config, 'newest-first scan: skipped, it has no workspacePath');
        continue;
      }
      const check = qwenWorkspaceCheck(config.workspacePath, this.ctx.dir);
      if (check.outcome === 'invalid') throw new Error(`${file.path}: ${check.why}`);
      this.consider(file, config, 'newest-first scan', check.outcome === 'match', check);
      if (check.outcome === 'match') {
        return [found, 'the newest lock file whose workspace contains this folder'];
      }
      if (config.port) this.rejected.add(config.port);
    }
    const none =
      this.rejected.size > 0
        ? "no lock file's workspace contains this folder"
        : `there is no usable lock file in ${locations.qwenIdeDir}`;
    return [undefined, none];
  }

  /** `<tmp>/qwen-code-ide-server-<IDE PID>.json`, else `-<QWEN_CODE_IDE_SERVER_PORT>.json`. */
  private legacyConfig(): (Found & { source: string }) | undefined {
    const names: [string | undefined, string][] = [
      [String(this.ctx.treeIdeProcess.pid), 'the IDE PID'],
      [this.envPort, 'QWEN_CODE_IDE_SERVER_PORT'],
    ];
    for (const [number, source] of names) {
      if (number === undefined) continue;
      const path = join(this.ctx.locations.tmpDir, `qwen-code-ide-server-${number}.json`);
      const file = this.ctx.files.find((candidate) => candidate.path === path);
      if (file && file.content !== undefined)
        return { config: file.content as Config, file, source };
    }
    return undefined;
  }

  /**
   * `getAllConnectionConfigs()`: every readable lock, minus those the client deletes as stale,
   * newest first. Records the deletions once.
   */
  private liveLocks(record: boolean): Found[] {
    const locks = this.ctx.files.filter(
      (file) => file.kind === 'qwen-lock' && file.content !== undefined,
    );
    const kept: Found[] = [];
    for (const file of locks) {
      const config = file.content as Config;
      const stale = staleReason(config);
      if (stale) {
        if (record) {
          this.deletes.push(file.path);
          this.consider(file, config, `deleted by Qwen Code: ${stale}`);
        }
        continue;
      }
      kept.push({ config, file });
    }
    return kept.sort((a, b) => b.file.mtimeMs - a.file.mtimeMs);
  }

  /** `tryFallbackPorts()`: the other locks, those matching the folder first. */
  private fallbacks(currentPort: unknown): Found[] {
    const matching: Found[] = [];
    const others: Found[] = [];
    for (const found of this.liveLocks(false)) {
      const port = found.config?.port;
      if (!port || port === currentPort) continue;
      const workspacePath = found.config?.workspacePath;
      if (workspacePath === undefined) others.push(found);
      else if (qwenWorkspaceCheck(workspacePath, this.ctx.dir).outcome === 'match')
        matching.push(found);
    }
    return [...matching, ...others];
  }

  private consider(
    file: DiscoveryFile,
    config: Config,
    how: string,
    matches?: boolean,
    check?: WorkspaceCheck,
  ): void {
    const workspace =
      check ?? (matches === undefined ? undefined : safeCheck(config, this.ctx.dir));
    const verdict =
      matches === undefined
        ? ''
        : matches
          ? '; its workspace contains this folder'
          : '; its workspace does not contain this folder';
    this.candidates.push({
      path: file.path,
      rank: this.candidates.length + 1,
      ...(workspace && { workspace }),
      note: `${how}${verdict}`,
    });
  }
}

/** The HTTP attempts of one `connect()`, with the token the client holds at each step. */
class Connection {
  readonly attempts: ConnectionAttempt[] = [];
  private token: unknown;
  private connectedPort: number | undefined;
  private hostPromise: Promise<boolean> | undefined;

  constructor(
    private readonly ctx: PredictionContext,
    token: unknown,
  ) {
    this.token = token || undefined;
  }

  /** The client keeps the last non-empty token it saw. */
  useToken(token: unknown): void {
    if (token) this.token = token;
  }

  /** `establishHttpConnection()`: 127.0.0.1, then host.docker.internal in a container. */
  async tryPort(value: unknown, via: string): Promise<boolean> {
    const port = portOf(value);
    if (port === undefined) return false;
    if (await this.tryHost('127.0.0.1', port, via)) return true;
    if (this.ctx.container.marker && (await this.containerHostResolves())) {
      return this.tryHost(CONTAINER_HOST, port, via);
    }
    return false;
  }

  result(base: Omit<ClientPrediction, 'status'>, displayName: string): ClientPrediction {
    const last = this.attempts[this.attempts.length - 1];
    return {
      ...base,
      attempts: this.attempts,
      connected: true,
      ...(this.connectedPort !== undefined && { port: this.connectedPort }),
      status: `Connected to ${displayName}`,
      diffing: last ? diffingOf(last.probe) : false,
    };
  }

  private async tryHost(host: string, port: number, via: string): Promise<boolean> {
    const tokenSent = !!this.token;
    const probe = await this.ctx.prober.probe({
      host,
      port,
      ...(tokenSent && { token: String(this.token) }),
    });
    this.attempts.push({ host, port, via, tokenSent, probe });
    if (probe.outcome !== 'ok') return false;
    this.connectedPort = port;
    return true;
  }

  private containerHostResolves(): Promise<boolean> {
    this.hostPromise ??= lookup(CONTAINER_HOST).then(
      () => true,
      () => false,
    );
    return this.hostPromise;
  }
}

/** `QWEN_CODE_IDE_SERVER_PORT` when it is a port number. */
function portFromEnv(value: string | undefined): string | undefined {
  if (!value || !/^\d+$/.test(value)) return undefined;
  const port = Number(value);
  return port >= 1 && port <= 65535 ? value : undefined;
}

/** A port as `new URL('http://host:<port>/mcp')` accepts it. */
function portOf(value: unknown): number | undefined {
  const text = String(value);
  if (!/^\d+$/.test(text)) return undefined;
  const port = Number(text);
  return port >= 1 && port <= 65535 ? port : undefined;
}

/** `matchesCurrentWorkspace()`: no workspacePath matches anything. Throws where the client throws. */
function matchesWorkspace(config: Config, dir: string): boolean {
  if (config === null) throw new TypeError('the file holds null');
  if (config.workspacePath === undefined) return true;
  const check = qwenWorkspaceCheck(config.workspacePath, dir);
  if (check.outcome === 'invalid') throw new TypeError(check.why);
  return check.outcome === 'match';
}

function safeCheck(config: Config, dir: string): WorkspaceCheck | undefined {
  return config?.workspacePath === undefined
    ? undefined
    : qwenWorkspaceCheck(config.workspacePath, dir);
}

/** `cleanupStaleLockFile()`: why Qwen Code deletes this lock, or undefined when it keeps it. */
function staleReason(config: Config): string | undefined {
  if (config === null || typeof config !== 'object') return undefined;
  if (config.ppid) {
    try {
      process.kill(config.ppid as number, 0);
      return undefined;
    } catch {
      return `its editor process ${String(config.ppid)} is gone`;
    }
  }
  const workspacePath = config.workspacePath;
  if (workspacePath) {
    return typeof workspacePath === 'string' && existsSync(workspacePath)
      ? undefined
      : `it has no ppid and its workspacePath ${JSON.stringify(workspacePath)} does not exist`;
  }
  return undefined;
}
