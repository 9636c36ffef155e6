/**
 * Test-only: everything Tandem's tests share. The real Gemini CLI and Qwen Code (their
 * `IdeClient`s in child processes, the whole CLIs in tmux against fake models), private
 * sandboxes, waiting, skipping when a program is missing, and fake editors.
 */
import type { ClientKind, RealClient } from './real-clients/real-client.js';
import { startRealClient } from './real-clients/real-client.js';
import type { Sandbox } from './sandbox.js';

export { inOwnSandbox, Sandbox, suiteInSandbox, type SuiteScene } from './sandbox.js';
export { waitFor, waitUntil } from './wait.js';
export { fuzzSeed, seededRandom, type SeededRandom } from './seeded-random.js';
export { installed, missing, needsProgram } from './needs.js';
export { needsRoot } from './needs-root.js';
export {
  callMcpTool,
  idleSockets,
  mcpHeaders,
  openMcpSession,
  rawRequest,
  type RawReply,
  type RawRequest,
} from './raw-http.js';
export {
  RecordingEditor,
  memoryLogger,
  startEngine,
  engineForBlock,
  type BlockEngine,
  type EngineFolders,
} from './recording-editor.js';
export * from './claude-wire.js';
export { BridgeEditor, TANDEM, type BridgeMessage } from './bridge-editor.js';
export * from './lsp/client-uris.js';
export * from './lsp/lsp-editor.js';
export * from './lsp/replay-driver.js';
export { ReviewPage, type PageReview } from './review-page-api.js';
export { chromiumMissing, launchChromium } from './chromium.js';
export { pngSize } from './png.js';
export * from './screenshots/diff-screenshot.js';
export * from './screenshots/terminal-screenshot.js';
export { PYTHON_TEMPERATURE_EDIT } from './screenshots/python-edit.js';
export { evaluate, needShell, type ShellProgram } from './shells.js';
export {
  defaultEditor,
  editorRoots,
  editorVersions,
  findEditor,
  forEachVersion,
  type EditorVersion,
} from './editors/editor-version.js';
export { EDITORS, type EditorName } from './editors/registry.js';
export * from './editors/neovim-session.js';
export * from './editors/vim-session.js';
export * from './editors/emacs-session.js';
export * from './editors/code-server.js';
export * from './editors/helix-session.js';
export * from './editors/editor-needs.js';
export * from './editors/tmux-editor.js';
export * from './editors/neovim-driver.js';
export * from './editors/vim-driver.js';
export * from './editors/emacs-driver.js';
export * from './editors/code-server-driver.js';
export * from './editors/helix-driver.js';
export * from './editors/neovim-lsp-driver.js';
export * from './editors/eglot-driver.js';
export { REPO_ROOT } from './repo-root.js';
export * from './release.js';
export * from './real-clients/real-client.js';
export * from './real-clients/installed-clients.js';
export * from './real-clients/cli-launch.js';
export * from './real-clients/cli-session.js';
export * from './real-clients/claude-code.js';
export * from './real-clients/fake-anthropic-model.js';
export * from './real-clients/proposed-edit.js';
export * from './conformance/adapter-conformance.js';
export * from './conformance/cli-scenarios.js';
export { olderVersionCli, runCliMatrix } from './conformance/cli-matrix.js';
export * from './conformance/hostile-paths.js';
export * from './conformance/proposal-names.js';
export {
  TmuxPane,
  processGroupAlive,
  type ScreenCondition,
  type TmuxPaneOptions,
} from './real-clients/tmux.js';
export { processEnvironment, processesWhere } from './process-environment.js';
export { shellQuote } from '@tandem/command';

/** A real client of `kind` in the sandbox: its workspace as the cwd, its private folders. */
export function realClientIn(sandbox: Sandbox, kind: ClientKind): Promise<RealClient> {
  const { workspace: cwd, tmpDir, qwenHome, home } = sandbox;
  return startRealClient({ kind, cwd, tmpDir, qwenHome, home });
}
export { connectedClientIn } from './connected-client.js';
export { childOutput, type ChildOutput } from './child-output.js';
