import type { Prober } from '../scan/companions.js';
import type { DiscoveryFile } from '../scan/discovery-files.js';
import type { IdeProcess } from '../scan/ide-process.js';
import type { ContainerFacts, DiscoveryLocations } from '@tandem/core';
import type { ProbeResult } from '../scan/mcp-probe.js';
import type { WorkspaceCheck } from '../scan/workspace-match.js';

export type ClientKind = 'gemini' | 'qwen';

export const CLIENT_NAMES: Record<ClientKind, string> = {
  gemini: 'Gemini CLI',
  qwen: 'Qwen Code',
};

/** What both models read: the folder, the environment, and the files as the CLIs would find them. */
export interface PredictionContext {
  /** The CLI's working directory. */
  dir: string;
  env: NodeJS.ProcessEnv;
  locations: DiscoveryLocations;
  /** Every discovery file, in the order `readdir` lists them (as the CLIs read them). */
  files: DiscoveryFile[];
  prober: Prober;
  /** The IDE process as both CLIs compute it from this terminal's process tree. */
  treeIdeProcess: IdeProcess;
  container: ContainerFacts;
}

export { containerFacts, type ContainerFacts } from '@tandem/core';

/** One discovery file as a CLI weighed it. */
export interface Candidate {
  path: string;
  /** Its place in the CLI's reading order, from 1. */
  rank: number;
  workspace?: WorkspaceCheck;
  /** What the CLI did with it, in words. */
  note: string;
}

/** One HTTP connection the CLI would try. */
export interface ConnectionAttempt {
  host: string;
  port: number;
  /** Where the port came from. */
  via: string;
  tokenSent: boolean;
  probe: ProbeResult;
}

export interface ClientPrediction {
  client: ClientKind;
  /** The IDE PID the CLI computes, and how. */
  idePid: { pid: number; source: string };
  candidates: Candidate[];
  /** The discovery file the CLI takes its connection data from. */
  chosenFile?: string;
  /** Why that file, or why none. */
  choice: string;
  /** The editor the CLI believes it runs in; absent means "IDE integration is not supported". */
  detectedIde?: { name: string; displayName: string; from: 'ideInfo' | 'environment' };
  /** The workspace check the CLI runs before connecting. */
  workspace?: WorkspaceCheck & { source: string };
  attempts: ConnectionAttempt[];
  connected: boolean;
  /** The port it ends up connected to. */
  port?: number;
  /** What the CLI's `/ide status` would say. */
  status: string;
  /** The companion lists `openDiff` and `closeDiff`: diffs are shown in the editor. */
  diffing: boolean;
  /** Qwen Code deletes these lock files (their editor process is gone). */
  deletes?: string[];
  /** The CLI's own discovery code throws on this data. */
  crash?: string;
}

/** How the process-tree walk found the IDE PID, in words. */
export function describeTreePid(ide: IdeProcess): string {
  if (!ide.shell) return 'the top of the process tree (no shell found above this process)';
  return `the process tree: the terminal's shell is ${ide.shell.name} (PID ${ide.shell.pid})`;
}

/** Both diff tools are listed: the CLI shows its diffs in the editor. */
export function diffingOf(probe: ProbeResult): boolean {
  const tools = probe.tools ?? [];
  return tools.includes('openDiff') && tools.includes('closeDiff');
}

/** How both clients end the "not running" messages. */
export const INSTALL_HINT =
  'Please ensure the extension is running. To install the extension, run /ide install.';

/** The status a client sets when the workspace check fails (its own words), '' on a match. */
export function workspaceRefusal(kind: ClientKind, check: WorkspaceCheck): string {
  const name = CLIENT_NAMES[kind];
  switch (check.outcome) {
    case 'missing':
      return `Failed to connect to IDE companion extension. ${INSTALL_HINT}`;
    case 'no-folder':
      return 'To use this feature, please open a workspace folder in your IDE and try again.';
    case 'mismatch':
      return `Directory mismatch. ${name} is running in a different location than the open workspace in the IDE. Please run the CLI from one of the following directories: ${check.roots.join(', ')}`;
    case 'invalid':
      return `${name}'s IDE client fails while reading the discovery data: ${check.why}`;
    case 'match':
      return '';
  }
}
