import type {
  ApprovalModeSetting,
  DiscoveryKind,
  DiscoveryLocations,
  IdeModeSetting,
} from '@tandem/core';
import type { NamedProcess } from '../scan/companions.js';
import type { ProbeResult } from '../scan/mcp-probe.js';
import type { WorkspaceCheck } from '../scan/workspace-match.js';
import type { ClaudePrediction } from './claude-prediction.js';
import type { ClientKind, ClientPrediction } from './prediction.js';

/**
 * What `tandem doctor` reports: the types of its report, shared by the diagnosis that builds it,
 * the problems found in it and the text that shows it.
 */

/** The `--json` output of `tandem doctor` (documented in its help text). */
export interface DoctorReport {
  version: 1;
  dir: string;
  realDir: string;
  locations: Omit<DiscoveryLocations, 'home'>;
  environment: EnvironmentReport;
  files: FileReport[];
  clients: ClientReport[];
  /** Claude Code's prediction, when it is checked. */
  claude?: ClaudePrediction;
  problems: Problem[];
  /** Every CLI checked would connect (Claude Code: at least through /ide). */
  ok: boolean;
}

export interface EnvironmentReport {
  /** The discovery-related variables that are set. */
  variables: Record<string, string>;
  termProgram?: string;
  container?: { marker: string; localOverride?: string; geminiHost: string };
}

export interface FileReport {
  path: string;
  kind: DiscoveryKind;
  readBy: string;
  port?: number;
  workspacePath?: string;
  ideInfo?: { name: string; displayName: string };
  hasToken: boolean;
  /** Written by Tandem. */
  tandem: boolean;
  processes: NamedProcess[];
  probe?: ProbeResult;
  live: boolean;
  staleBecause?: string;
  /** Whether the folder is in its workspace, as the CLI that reads it decides. */
  workspace?: WorkspaceCheck;
}

export interface ClientReport extends ClientPrediction {
  name: string;
  ideMode: IdeModeSetting;
  /** The approval mode it starts in: only `default` shows diffs in the editor. */
  approvalMode: ApprovalModeSetting;
  /** IDE mode is on and the connection succeeds. */
  connects: boolean;
}

export interface Problem {
  /** `error`: a CLI would not connect because of it; `warning`: it may bite; `info`: good to know. */
  severity: 'error' | 'warning' | 'info';
  /** A stable name for scripts, e.g. `directory-mismatch`. */
  code: string;
  /** The CLI concerned; absent when it concerns every one or none. */
  client?: ClientKind | 'claude';
  message: string;
  fix?: string;
}
