import { shellQuote } from '@tandem/command';
import type { CliSession } from '../real-clients/cli-session.js';
import { TmuxPane } from '../real-clients/tmux.js';
import type { Sandbox } from '../sandbox.js';

/** The terminal an editor runs in: a tmux pane of its own, or the pane of a CLI session. */
export interface EditorScreen {
  /** tmux key names (`Enter`, `Escape`, `C-w`) or single characters. */
  sendKeys(...keys: string[]): Promise<void>;
  /** Types text literally. */
  type(text: string): Promise<void>;
  capture(): Promise<string>;
  /** How the editor ended, or undefined while it runs. */
  ending(): Promise<string | undefined>;
  stop(): Promise<void>;
}

export interface EditorPaneOptions {
  /** A private folder for the pane's tmux server. */
  dir: string;
  /** The editor's command line. */
  argv: string[];
  env: Record<string, string>;
  width?: number | undefined;
  height?: number | undefined;
}

/** An editor's environment in `sandbox`: a 256-colour terminal, as most people's are. */
export function terminalEnv(sandbox: Sandbox, extra: Record<string, string> = {}) {
  return sandbox.env({ TERM: 'xterm-256color', ...extra });
}

/** The editor in a tmux pane of its own, in `sandbox.workspace`, 160×45 unless told. */
export function startEditorPane(sandbox: Sandbox, options: EditorPaneOptions): Promise<TmuxPane> {
  return TmuxPane.start({
    dir: options.dir,
    cwd: sandbox.workspace,
    shellLine: options.argv.map((word) => shellQuote(word)).join(' '),
    env: options.env,
    width: options.width ?? 160,
    height: options.height ?? 45,
  });
}

/**
 * The screen of a CLI session whose pane runs the editor (and the CLI in the editor's
 * terminal). The editor lives as long as the session.
 */
export function cliSessionScreen(session: CliSession): EditorScreen {
  return {
    sendKeys: (...keys) => session.sendKeys(...keys),
    type: (text) => session.type(text),
    capture: () => session.screen(),
    ending: async () => undefined,
    stop: () => session.stop(),
  };
}
