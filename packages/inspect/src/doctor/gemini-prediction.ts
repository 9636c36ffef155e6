import { geminiHost, geminiIdePidFromEnv, isProcessAlive } from '@tandem/core';
import type { DiscoveryFile } from '../scan/discovery-files.js';
import { processCommand } from '../scan/ide-process.js';
import { geminiWorkspaceCheck, type WorkspaceCheck } from '../scan/workspace-match.js';
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

/**
 * What Gemini CLI 0.61's `IdeClient` does from `ctx.dir`: which discovery file it takes, which
 * editor it detects, whether the workspace check passes, and which connections it tries
 * (`getConnectionConfigFromFile`, `detectIde`, `connect`).
 */
export async function predictGemini(ctx: PredictionContext): Promise<ClientPrediction> {
  const envPid = geminiIdePidFromEnv(ctx.env);
  const idePid =
    envPid === undefined
      ? { pid: ctx.treeIdeProcess.pid, source: describeTreePid(ctx.treeIdeProcess) }
      : { pid: envPid, source: 'GEMINI_CLI_IDE_PID' };
  const ideCommand =
    envPid === undefined ? ctx.treeIdeProcess.command : await processCommand(envPid);
  const lookup = lookUpConfig(ctx, idePid.pid);
  const base = {
    client: 'gemini' as const,
    idePid,
    candidates: lookup.candidates,
    ...(lookup.file && { chosenFile: lookup.file.path }),
    choice: lookup.choice,
    attempts: [] as ConnectionAttempt[],
    connected: false,
    diffing: false,
  };
  if (lookup.crash) return { ...base, status: lookup.crash, crash: lookup.crash };

  const ide = detectIde('gemini', lookup.config, ctx.env, ideCommand);
  if (!ide) {
    return {
      ...base,
      status:
        'IDE integration is not supported in your current environment. To use this feature, run Gemini CLI in one of these supported IDEs: Antigravity, VS Code, or VS Code forks.',
    };
  }
  const config = (lookup.config ?? {}) as Record<string, unknown>;
  const token = config.authToken ?? ctx.env.GEMINI_CLI_IDE_AUTH_TOKEN;
  const fromFile = config.workspacePath !== undefined && config.workspacePath !== null;
  const workspace = {
    ...geminiWorkspaceCheck(
      fromFile ? config.workspacePath : ctx.env.GEMINI_CLI_IDE_WORKSPACE_PATH,
      ctx.dir,
    ),
    source: fromFile ? 'the discovery file' : 'GEMINI_CLI_IDE_WORKSPACE_PATH',
  };
  const withIde = { ...base, detectedIde: ide, workspace };
  if (workspace.outcome !== 'match') {
    const status = workspaceRefusal('gemini', workspace);
    return { ...withIde, status, ...(workspace.outcome === 'invalid' && { crash: status }) };
  }

  const host = geminiHost(ctx.container);
  const ports: [unknown, string][] = [];
  if (lookup.config && config.port) ports.push([config.port, 'the discovery file']);
  if (ctx.env.GEMINI_CLI_IDE_SERVER_PORT) {
    ports.push([ctx.env.GEMINI_CLI_IDE_SERVER_PORT, 'GEMINI_CLI_IDE_SERVER_PORT']);
  }
  const attempts: ConnectionAttempt[] = [];
  for (const [value, via] of ports) {
    const port = parseInt(String(value), 10);
    if (Number.isNaN(port) || port <= 0 || port > 65535) continue;
    const tokenSent = !!token;
    const probe = await ctx.prober.probe({
      host,
      port,
      ...(tokenSent && { token: String(token) }),
    });
    attempts.push({ host, port, via, tokenSent, probe });
    if (probe.outcome === 'ok') {
      return {
        ...withIde,
        attempts,
        connected: true,
        port,
        status: `Connected to ${ide.displayName}`,
        diffing: diffingOf(probe),
      };
    }
  }
  return {
    ...withIde,
    attempts,
    status: `Failed to connect to IDE companion extension in ${ide.displayName}. ${INSTALL_HINT}`,
  };
}

interface Lookup {
  config?: object;
  file?: DiscoveryFile;
  candidates: Candidate[];
  choice: string;
  crash?: string;
}

/** `getConnectionConfigFromFile(idePid)`. */
function lookUpConfig(ctx: PredictionContext, idePid: number): Lookup {
  const named = ctx.files.find((file) => file.kind === 'gemini-pid' && file.namePid === idePid);
  const namedConfig = named && readable(named);
  if (named && namedConfig) {
    return {
      config: namedConfig,
      file: named,
      candidates: [{ path: named.path, rank: 1, note: 'read first: its name is the IDE PID' }],
      choice: `${named.path} is named after the IDE PID ${idePid} (the older naming): read before any other file`,
    };
  }
  const sorted = sortConnectionFiles(
    ctx.files.filter((file) => file.kind === 'gemini'),
    idePid,
  );
  if (sorted.length === 0) {
    return {
      candidates: [],
      choice: `there is no gemini-ide-server-*.json in ${ctx.locations.geminiIdeDir}`,
    };
  }
  const configs = sorted.map(readable);
  const checks: (WorkspaceCheck | undefined)[] = [];
  for (const config of configs) {
    const check =
      config &&
      geminiWorkspaceCheck((config as { workspacePath?: unknown }).workspacePath, ctx.dir);
    checks.push(check);
    if (check?.outcome === 'invalid') {
      const file = sorted[checks.length - 1] as DiscoveryFile;
      return {
        candidates: candidatesOf(sorted, checks, idePid),
        choice: `${file.path}: ${check.why}`,
        crash: `Gemini CLI's IDE client fails on ${file.path}: ${check.why}`,
      };
    }
  }
  const candidates = candidatesOf(sorted, checks, idePid);
  const envPort = ctx.env.GEMINI_CLI_IDE_SERVER_PORT;
  const portMatches = (index: number) => {
    const port = (configs[index] as { port?: unknown } | undefined)?.port;
    return !!envPort && port !== undefined && String(port) === envPort;
  };
  const indices = configs.map((_config, index) => index);
  const valid = indices.filter((index) => checks[index]?.outcome === 'match');
  let index: number | undefined;
  let choice: string;
  if (valid.length === 0) {
    index = indices.find((i) => configs[i] && portMatches(i)) ?? indices.find((i) => configs[i]);
    choice =
      index === undefined
        ? 'no discovery file is readable'
        : `no file's workspace contains this folder; Gemini CLI takes ${
            portMatches(index)
              ? 'the one with GEMINI_CLI_IDE_SERVER_PORT'
              : 'the first in its order'
          } and reports the mismatch`;
  } else if (valid.length === 1) {
    index = valid[0];
    choice = 'the only file whose workspace contains this folder';
  } else {
    const byPort = valid.find(portMatches);
    index = byPort ?? valid[0];
    choice =
      byPort === undefined
        ? `${valid.length} files' workspaces contain this folder; Gemini CLI takes the first in its order (the IDE PID ${idePid} first, then running PIDs, then the highest PID)`
        : `${valid.length} files' workspaces contain this folder; GEMINI_CLI_IDE_SERVER_PORT=${envPort} picks this one`;
  }
  if (index === undefined) return { candidates, choice };
  return { config: configs[index], file: sorted[index], candidates, choice };
}

/** Gemini CLI's order: the IDE PID's files first, then files of running PIDs, then higher PIDs. */
function sortConnectionFiles(files: DiscoveryFile[], idePid: number): DiscoveryFile[] {
  return [...files].sort((a, b) => {
    const aPid = a.namePid ?? 0;
    const bPid = b.namePid ?? 0;
    if (aPid === idePid && bPid !== idePid) return -1;
    if (bPid === idePid && aPid !== idePid) return 1;
    const aAlive = isProcessAlive(aPid);
    const bAlive = isProcessAlive(bPid);
    if (aAlive && !bAlive) return -1;
    if (bAlive && !aAlive) return 1;
    return bPid - aPid;
  });
}

/** The file's JSON when Gemini CLI would use it: the user's own file holding a JSON object. */
function readable(file: DiscoveryFile): object | undefined {
  if (!file.ownedByUser) return undefined;
  return typeof file.content === 'object' && file.content !== null ? file.content : undefined;
}

function candidatesOf(
  sorted: DiscoveryFile[],
  checks: (WorkspaceCheck | undefined)[],
  idePid: number,
): Candidate[] {
  return sorted.map((file, index) => {
    const workspace = checks[index];
    const order =
      file.namePid === idePid
        ? 'named after the IDE PID'
        : isProcessAlive(file.namePid ?? 0)
          ? `PID ${file.namePid} running`
          : `PID ${file.namePid} not running`;
    return {
      path: file.path,
      rank: index + 1,
      ...(workspace && { workspace }),
      note: `${order}; ${workspaceNote(file, workspace)}`,
    };
  });
}

function workspaceNote(file: DiscoveryFile, workspace: WorkspaceCheck | undefined): string {
  if (!workspace) {
    if (!file.ownedByUser && !file.error) return 'skipped: owned by another user';
    return `skipped: ${file.error ?? 'not a JSON object'}`;
  }
  switch (workspace.outcome) {
    case 'match':
      return `its workspace contains this folder (${workspace.matchedRoot})`;
    case 'mismatch':
      return `its workspace does not contain this folder (${workspace.roots.join(', ')})`;
    case 'missing':
      return 'it has no workspacePath';
    case 'no-folder':
      return 'its editor has no folder open';
    case 'invalid':
      return workspace.why;
  }
}
