import { delimiter } from 'node:path';

/**
 * The variables an editor exports to its terminals so that a CLI started there connects to this
 * engine, for every version in SPEC-NOTES §4. No token travels this way (the discovery files
 * carry it), and `TERM_PROGRAM` is never faked: `ideInfo` in the files names the editor.
 */
export function terminalEnv(port: number, workspaceFolders: string[], geminiIdePid: number) {
  const workspacePath = workspaceFolders.join(delimiter);
  return {
    // Gemini CLI: prefers the file with this port among those matching its folder (≥ 0.36),
    // and orders the file named after this PID first.
    GEMINI_CLI_IDE_SERVER_PORT: String(port),
    GEMINI_CLI_IDE_WORKSPACE_PATH: workspacePath,
    GEMINI_CLI_IDE_PID: String(geminiIdePid),
    // Qwen Code: 0.5–0.10 find the lock file only through the port; later ones read it first.
    QWEN_CODE_IDE_SERVER_PORT: String(port),
    QWEN_CODE_IDE_WORKSPACE_PATH: workspacePath,
  };
}
