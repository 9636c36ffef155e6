import { userInfo } from 'node:os';
import { join } from 'node:path';

/**
 * How Claude Code finds and speaks to a companion (docs/clients.md, "Claude Code"), as its
 * binary does it (2.1.110 and 2.1.332): the lock file, the WebSocket upgrade, the answers of
 * `openDiff`. The writer, the binding and the tests take these rules from here.
 */

/** `$CLAUDE_CONFIG_DIR`, else `~/.claude`: where Claude Code keeps its state. */
export function claudeConfigDir(env: NodeJS.ProcessEnv = process.env): string {
  return env.CLAUDE_CONFIG_DIR || join(env.HOME || userInfo().homedir, '.claude');
}

/** The folder of the lock files Claude Code lists. */
export function claudeIdeDir(configDir: string): string {
  return join(configDir, 'ide');
}

/** A lock file: `<config dir>/ide/<port>.lock`, the port being its name. */
export function claudeLockPath(configDir: string, port: number): string {
  return join(claudeIdeDir(configDir), `${port}.lock`);
}

/** What a lock file holds; Claude Code deletes one whose `pid` is not alive. */
export function claudeLockContent(data: {
  editorPid: number;
  workspaceFolders: string[];
  ideName: string;
  authToken: string;
}): Record<string, unknown> {
  return {
    pid: data.editorPid,
    workspaceFolders: data.workspaceFolders,
    ideName: data.ideName,
    transport: 'ws',
    authToken: data.authToken,
    runningInWindows: false,
  };
}

/** The variable that makes Claude Code connect to the companion on this port, by itself. */
export const CLAUDE_PORT_VARIABLE = 'CLAUDE_CODE_SSE_PORT';

/** The WebSocket subprotocol Claude Code asks for, and the header that carries the token. */
export const CLAUDE_SUBPROTOCOL = 'mcp';
export const CLAUDE_TOKEN_HEADER = 'x-claude-code-ide-authorization';

/**
 * The first text of `openDiff`'s result, which Claude Code reads as the user's answer:
 * `FILE_SAVED` (then the final text: it writes that), `DIFF_REJECTED` (it writes nothing).
 * Its third answer, `TAB_CLOSED`, means "write the proposal unchanged", so a view the user
 * closes is `DIFF_REJECTED`, never `TAB_CLOSED`.
 */
export const CLAUDE_DIFF_ANSWERS = { accepted: 'FILE_SAVED', rejected: 'DIFF_REJECTED' } as const;

/** The label Tandem gives a Claude Code connection, for people. */
export const CLAUDE_CLIENT_NAME = 'Claude Code';

/**
 * What keeps Claude Code from installing Anthropic's own extension into the editor whose
 * terminal it runs in, which would then serve it instead of Tandem (docs/clients.md, "Claude
 * Code"). Its binary reads the variable as a flag: "1", "true", "yes" or "on".
 */
export const CLAUDE_SKIP_EXTENSION_INSTALL = {
  name: 'CLAUDE_CODE_IDE_SKIP_AUTO_INSTALL',
  value: '1',
} as const;
