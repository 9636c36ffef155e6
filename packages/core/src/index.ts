export { TANDEM_VERSION } from './version.js';
export { Engine, type EngineOptions } from './engine.js';
export type {
  ConnectedClient,
  CompanionWarning,
  DiffAnswer,
  DiffClosedNotice,
  DiffCloseReason,
  DiffOutcomeNotice,
  DiffRequest,
  EditorEvents,
  EditorInfo,
  EditorPort,
  Diagnostic,
  FileDiagnostics,
  LineRange,
  MentionAnswer,
  TextPosition,
  WarningCode,
} from './editor-port.js';
export { MAX_ANSWER_BYTES, MAX_PROPOSAL_BYTES } from './editor-port.js';
export { MAX_SELECTED_TEXT } from './clients/context-limits.js';
export { selectionLines } from './claude/at-mention.js';
export {
  APPROVAL_MODE_RULES,
  approvalModeOrigin,
  CLI_DISPLAY_NAMES,
  cliSettings,
  ideModeSetting,
  stripJsonComments,
  type ApprovalModeSetting,
  type CliKind,
  type CliSettings,
  type IdeModeSetting,
  type SettingsLayer,
} from './clients/cli-settings.js';
export {
  closingMessages,
  TERMINAL_WRITE_LIMIT_MS,
  terminalOutcome,
  type ClosingMessages,
} from './clients/diff-rules.js';
export {
  claudeSettingsWarnings,
  stopOtherClaudeCompanion,
  type OtherEditor,
} from './clients/companion-warnings.js';
export {
  companionWarnings,
  otherEditors,
  tandemCommandFor,
} from './warnings/companion-warnings.js';
export { initializeRequest, MCP_PROTOCOL_VERSIONS } from './clients/initialize-request.js';
export {
  CONTAINER_LOOPBACK_VARIABLE,
  CONTAINER_LOOPBACK_VARIABLES,
  CONTAINER_MARKERS,
  containerFacts,
  containerTerminalVariables,
  geminiHost,
  type ContainerFacts,
} from './clients/container-rules.js';
export type { DiscoveryOptions } from './discovery/discovery-files.js';
export {
  CLAUDE_CLIENT_NAME,
  CLAUDE_DIFF_ANSWERS,
  CLAUDE_PORT_VARIABLE,
  CLAUDE_SKIP_EXTENSION_INSTALL,
  CLAUDE_SUBPROTOCOL,
  CLAUDE_TOKEN_HEADER,
  claudeConfigDir,
  claudeIdeDir,
  claudeLockPath,
} from './clients/claude-rules.js';
export {
  claudeSettings,
  claudeStateFile,
  type ClaudeSettings,
  type ClaudeSettingsLayer,
} from './clients/claude-settings.js';
export { claudeLockFolders, claudeLocks, type ClaudeLock } from './discovery/claude-locks.js';
export {
  ALL_CLI_VARIABLES,
  CLI_VARIABLES,
  discoveryContent,
  discoveryFilePath,
  discoveryLocations,
  DISCOVERY_KINDS,
  geminiIdePidFromEnv,
  idePidAboveShell,
  mayPointTo,
  terminalVariables,
  TERMINAL_SHELLS,
  type DiscoveryData,
  type DiscoveryKind,
  type DiscoveryLocations,
  type IdeInfo,
  type NameNumbers,
  type TerminalCli,
} from './clients/discovery-rules.js';
export { isProcessAlive, parentPid } from './discovery/processes.js';
export { writeFileAtomic } from './discovery/atomic-file.js';
export { MAX_DISCOVERY_FILE_BYTES, readSmallRegularFile } from './discovery/safe-folder.js';
export { ConnectionCap } from './http/connection-cap.js';
export { newSecret, secretMatches } from './http/secret.js';
export {
  listenOnBothLoopbacks,
  listenOnLoopback,
  loopbackHosts,
  readBodyWithin,
} from './http/loopback.js';
export { stderrLogger, silentLogger, type Logger } from './log.js';
export { clientLabel } from './gemini-qwen/client-name.js';
export {
  invalidity as notificationInvalidity,
  type IdeContext,
  type IdeNotification,
} from './gemini-qwen/ide-notifications.js';
