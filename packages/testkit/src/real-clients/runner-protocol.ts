/**
 * The JSON-lines protocol between `real-client.ts` (the test process) and `client-runner.mjs`
 * (one real IdeClient in its own process): one JSON object per line, requests on the runner's
 * stdin, replies and events on its stdout.
 */

export type ClientKind = 'gemini' | 'qwen';

export type ConnectionStatus = 'connected' | 'disconnected' | 'connecting';

/** The client's `getConnectionStatus()` together with its `isDiffingEnabled()`. */
export interface ConnectionState {
  status: ConnectionStatus;
  details?: string;
  diffingEnabled: boolean;
}

/** `{name, displayName}`: the IDE a client detected when it started. */
export interface IdeInfo {
  name: string;
  displayName: string;
}

export interface IdeFile {
  path: string;
  timestamp: number;
  isActive?: boolean;
  cursor?: { line: number; character: number };
  selectedText?: string;
}

/** The client's `ideContextStore` value, after its own sorting and trimming. */
export interface IdeContext {
  workspaceState?: { openFiles?: IdeFile[]; isTrusted?: boolean };
}

export type DiffOutcome = 'accepted' | 'rejected';

/** What the client's `openDiff()` resolves with. */
export interface DiffResult {
  status: DiffOutcome;
  content?: string;
}

/** A request without its id. */
export type RunnerRequest =
  | { command: 'connect' }
  | { command: 'status' }
  | { command: 'openDiff'; filePath: string; newContent: string }
  | { command: 'closeDiff'; filePath: string; suppressNotification?: boolean }
  | { command: 'resolveDiffFromCli'; filePath: string; outcome: DiffOutcome }
  | { command: 'disconnect' };

export type RunnerCommand = RunnerRequest & { id: number };

/** What a `reply` carries, per command. */
export interface CommandResults {
  connect: ConnectionState;
  status: ConnectionState;
  /** The final outcome of the diff (replied when the client's `openDiff()` settles). */
  openDiff: DiffResult;
  /** What the client's `closeDiff()` returned. */
  closeDiff: { content?: string };
  resolveDiffFromCli: Record<string, never>;
  disconnect: ConnectionState;
}

export type RunnerMessage =
  /** The client module is loaded and `IdeClient.getInstance()` has run (discovery, IDE detection). */
  | { type: 'ready'; ide: IdeInfo | null; state: ConnectionState }
  /** Every status change of the client. */
  | { type: 'status'; state: ConnectionState }
  /** Every change of the client's context store (`null` once cleared). */
  | { type: 'context'; context: IdeContext | null }
  /** The openDiff tool call of request `id` returned: successfully, or with `error`. */
  | { type: 'diffOpened'; id: number; error?: string }
  | { type: 'reply'; id: number; result: unknown }
  | { type: 'failure'; id: number; error: string };
