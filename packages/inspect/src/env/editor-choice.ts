import type { CheckedFile, Companion } from '../scan/companions.js';
import type { DiscoveryKind } from '@tandem/core';
import { geminiWorkspaceCheck, qwenWorkspaceCheck } from '../scan/workspace-match.js';

/** A live companion whose workspace contains the folder. */
export interface EditorMatch {
  companion: Companion;
  /** The most specific of its roots that contains the folder (resolved). */
  root: string;
}

/** The files that the variables can point a CLI to. */
const EXPORTABLE = new Set<DiscoveryKind>(['gemini', 'gemini-pid', 'qwen-lock']);

/**
 * The live companions whose workspace contains `dir` as the CLI reading each file decides,
 * best first: the most specific root (the longest), then the newest discovery file.
 */
export function editorsFor(companions: Companion[], dir: string): EditorMatch[] {
  const matches: EditorMatch[] = [];
  for (const companion of companions) {
    const roots = companion.files
      .filter((file) => file.live && EXPORTABLE.has(file.file.kind))
      .flatMap((file) => matchedRoot(file, dir));
    const root = roots.sort((a, b) => b.length - a.length)[0];
    if (root !== undefined) matches.push({ companion, root });
  }
  return matches.sort(
    (a, b) => b.root.length - a.root.length || b.companion.mtimeMs - a.companion.mtimeMs,
  );
}

function matchedRoot(checked: CheckedFile, dir: string): string[] {
  const workspacePath = (checked.file.content as { workspacePath?: unknown }).workspacePath;
  const check =
    checked.file.kind === 'qwen-lock'
      ? qwenWorkspaceCheck(workspacePath, dir)
      : geminiWorkspaceCheck(workspacePath, dir);
  return check.outcome === 'match' ? [check.matchedRoot] : [];
}

/**
 * The variables that make a CLI in this terminal pick `companion` (those of the engine's
 * `terminalEnv`): the Gemini variables when it has a Gemini CLI file, the Qwen ones when it has
 * a Qwen Code lock; the others are unset, so that an earlier choice does not linger.
 */
export function variablesFor(companion: Companion): Record<string, string | undefined> {
  const live = companion.files.filter((file) => file.live);
  // An older companion's `gemini-ide-server-<PID>.json` is read when GEMINI_CLI_IDE_PID names it.
  const gemini =
    live.find((file) => file.file.kind === 'gemini') ??
    live.find((file) => file.file.kind === 'gemini-pid');
  const qwen = live.find((file) => file.file.kind === 'qwen-lock');
  const port = String(companion.port);
  return {
    GEMINI_CLI_IDE_SERVER_PORT: gemini && port,
    GEMINI_CLI_IDE_WORKSPACE_PATH: gemini?.fields.workspacePath,
    GEMINI_CLI_IDE_PID:
      gemini?.file.namePid === undefined ? undefined : String(gemini.file.namePid),
    QWEN_CODE_IDE_SERVER_PORT: qwen && port,
    QWEN_CODE_IDE_WORKSPACE_PATH: qwen?.fields.workspacePath,
  };
}
