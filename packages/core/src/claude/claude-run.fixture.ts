import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import {
  RecordingEditor,
  Sandbox,
  startClaudeCode,
  waitUntil,
  type ClaudeCodeVersion,
} from '@tandem/testkit';
import { startEngine } from '../engine.fixture.js';

export const PROMPT = 'Please change beta in the notes';
export const ORIGINAL = 'alpha\nbeta\ngamma\n';

export interface ClaudeRunOptions {
  /** Claude Code's user settings (`settings.json`), written before it starts. */
  userSettings?: unknown;
  /** `--permission-mode` (default `default`); `null` starts it without, as a user does. */
  permissionMode?: string | null;
  /** The user has selected beta and gamma (2 lines) before Claude Code starts. */
  selectedBeforeStart?: boolean;
}

/**
 * One real Claude Code, connected by `CLAUDE_CODE_SSE_PORT` to a real engine whose editor is the
 * test's; its model changes beta in notes.txt when asked with `PROMPT`.
 */
export async function claudeAgainstEngine(
  version: ClaudeCodeVersion,
  { userSettings, permissionMode, selectedBeforeStart }: ClaudeRunOptions = {},
) {
  const sandbox = new Sandbox();
  const editor = new RecordingEditor();
  const file = path.join(sandbox.workspace, 'notes.txt');
  await writeFile(file, ORIGINAL);
  if (userSettings !== undefined) {
    await mkdir(sandbox.claudeConfigDir, { recursive: true });
    const settings = path.join(sandbox.claudeConfigDir, 'settings.json');
    await writeFile(settings, JSON.stringify(userSettings));
  }
  const engine = await startEngine(sandbox, editor);
  if (selectedBeforeStart) {
    engine.fileFocused(file);
    engine.cursorChanged(file, 3, 5, 'beta\ngamma');
  }
  const run = await startClaudeCode({
    version,
    cwd: sandbox.workspace,
    dir: path.join(sandbox.root, 'claude-run'),
    claudeConfigDir: sandbox.claudeConfigDir,
    ssePort: engine.claudePort,
    script: { prompt: PROMPT, filePath: file, oldString: 'beta', newString: 'BETA' },
    ...(permissionMode !== undefined && { permissionMode }),
  });
  const screen = () => run.pane.capture();
  const connected = () =>
    waitUntil('Claude Code connected', () =>
      engine.clients().some((client) => client.name === 'Claude Code'),
    );
  /** Types `PROMPT` and sends it, Enter apart once the text shows (else it is a paste). */
  const prompt = () => run.pane.submit(PROMPT);
  const stop = async () => {
    await run.stop();
    await engine.stop();
    sandbox.remove();
  };
  return { sandbox, editor, file, engine, run, screen, connected, prompt, stop };
}

export type ClaudeRun = Awaited<ReturnType<typeof claudeAgainstEngine>>;
