import { existsSync, realpathSync } from 'node:fs';
import { checkFiles, Prober, type CheckedFile } from '../scan/companions.js';
import { scanDiscoveryFiles } from '../scan/discovery-files.js';
import { ideProcessFromTree } from '../scan/ide-process.js';
import {
  ALL_CLI_VARIABLES,
  cliSettings,
  DISCOVERY_KINDS,
  geminiHost,
  tandemCommandFor,
  discoveryLocations,
  type DiscoveryLocations,
} from '@tandem/core';
import { privateFolderProblem } from '@tandem/command';
import { geminiWorkspaceCheck, qwenWorkspaceCheck } from '../scan/workspace-match.js';
import { predictClaude } from './claude-prediction.js';
import { predictGemini } from './gemini-prediction.js';
import {
  CLIENT_NAMES,
  containerFacts,
  type ClientKind,
  type ContainerFacts,
  type PredictionContext,
} from './prediction.js';
import type { ClientReport, DoctorReport, EnvironmentReport, FileReport } from './doctor-report.js';
import { findProblems } from './problems.js';
import { predictQwen } from './qwen-prediction.js';

export interface DoctorOptions {
  dir: string;
  env: NodeJS.ProcessEnv;
  clients: ClientKind[];
  /** Predict Claude Code too: always, or only when the user has it (`'if-installed'`). */
  claude?: boolean | 'if-installed';
  /** What Gemini CLI decides about containers (default: from `env` and this machine's files). */
  container?: ContainerFacts;
}

const VARIABLES = [...ALL_CLI_VARIABLES, 'TMPDIR', 'QWEN_HOME', 'GEMINI_CLI_HOME'];

/** Everything `tandem doctor` knows about `dir`: read-only, except for short MCP handshakes. */
export async function diagnose(options: DoctorOptions): Promise<DoctorReport> {
  const { dir, env } = options;
  const locations = discoveryLocations(env, dir);
  const files = await scanDiscoveryFiles(locations);
  const prober = new Prober();
  const [checked, treeIdeProcess] = await Promise.all([
    checkFiles(files, prober),
    ideProcessFromTree(),
  ]);
  const ctx: PredictionContext = {
    dir,
    env,
    locations,
    files,
    prober,
    treeIdeProcess,
    container: options.container ?? containerFacts(env),
  };
  const [clients, claudePrediction] = await Promise.all([
    Promise.all(options.clients.map((client) => clientReport(client, ctx))),
    options.claude ? predictClaude(dir, env) : undefined,
  ]);
  const claude =
    claudePrediction && (options.claude === true || claudePrediction.installed)
      ? claudePrediction
      : undefined;
  const environment = environmentReport(ctx);
  const fileReports = checked.map((file) => fileReport(file, dir));
  const tandem = await tandemCommandFor(process.argv[1], env);
  const unsafeFolders = await unsafeDiscoveryFolders(locations);
  const problems = findProblems({
    dir,
    env,
    files: fileReports,
    clients,
    environment,
    tandem,
    unsafeFolders,
    ...(claude && { claude }),
  });
  return {
    version: 1,
    dir,
    realDir: realPathOr(dir),
    locations: {
      tmpDir: locations.tmpDir,
      geminiIdeDir: locations.geminiIdeDir,
      qwenHome: locations.qwenHome,
      qwenIdeDir: locations.qwenIdeDir,
      geminiHome: locations.geminiHome,
    },
    environment,
    files: fileReports,
    clients,
    ...(claude && { claude }),
    problems,
    ok: clients.every((client) => client.connects) && claude?.connection !== 'none',
  };
}

async function clientReport(client: ClientKind, ctx: PredictionContext): Promise<ClientReport> {
  const [prediction, settings] = await Promise.all([
    client === 'gemini' ? predictGemini(ctx) : predictQwen(ctx),
    cliSettings(client, ctx.locations, ctx.dir, ctx.env),
  ]);
  const { ideMode, approvalMode } = settings;
  return {
    name: CLIENT_NAMES[client],
    ...prediction,
    ideMode,
    approvalMode,
    connects: ideMode.enabled && prediction.connected,
  };
}

function environmentReport(ctx: PredictionContext): EnvironmentReport {
  const variables = Object.fromEntries(
    VARIABLES.filter((name) => ctx.env[name] !== undefined).map((name) => [
      name,
      ctx.env[name] as string,
    ]),
  );
  const { marker, localOverride } = ctx.container;
  return {
    variables,
    ...(ctx.env.TERM_PROGRAM && { termProgram: ctx.env.TERM_PROGRAM }),
    ...(marker && {
      container: {
        marker,
        ...(localOverride && { localOverride }),
        geminiHost: geminiHost(ctx.container),
      },
    }),
  };
}

function fileReport(checked: CheckedFile, dir: string): FileReport {
  const { file, fields } = checked;
  const data = file.content as { workspacePath?: unknown } | null | undefined;
  const readsLikeGemini = file.kind === 'gemini' || file.kind === 'gemini-pid';
  const workspace =
    typeof data === 'object' && data !== null
      ? (readsLikeGemini ? geminiWorkspaceCheck : qwenWorkspaceCheck)(data.workspacePath, dir)
      : undefined;
  return {
    path: file.path,
    kind: file.kind,
    readBy: DISCOVERY_KINDS[file.kind].readBy,
    ...(fields.port !== undefined && { port: fields.port }),
    ...(fields.workspacePath !== undefined && { workspacePath: fields.workspacePath }),
    ...(fields.ideInfo && { ideInfo: fields.ideInfo }),
    hasToken: fields.authToken !== undefined,
    tandem: fields.tandemPid !== undefined,
    processes: checked.processes,
    ...(checked.probe && { probe: checked.probe }),
    live: checked.live,
    ...(checked.staleBecause !== undefined && { staleBecause: checked.staleBecause }),
    ...(workspace && { workspace }),
  };
}

function realPathOr(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/**
 * The discovery folders that exist but another user could change: Tandem writes nothing there
 * (the CLIs would read what that user put there, and it would read the token).
 */
async function unsafeDiscoveryFolders(
  locations: DiscoveryLocations,
): Promise<{ dir: string; why: string }[]> {
  const found = [];
  for (const dir of new Set([locations.geminiIdeDir, locations.qwenIdeDir])) {
    if (!existsSync(dir)) continue;
    const why = privateFolderProblem(dir);
    if (why) found.push({ dir, why });
  }
  return found;
}
