export type { Command, CommandIO } from './command-io.js';
export {
  existingDirectory,
  folderCommand,
  parseCommandArgs,
  portNumber,
  UsageError,
  withUsage,
} from './command-args.js';
export { ProcessHost } from './process-host.js';
export { runAsProcess } from './run-as-process.js';
export { sidecarEnvironment } from './sidecar-environment.js';
export { quotingShellOf, shellQuote, type QuotingShell } from './shell-quote.js';
export { printable } from './terminal-text.js';
export { makePrivateFolder, privateFolderProblem } from './private-folder.js';
