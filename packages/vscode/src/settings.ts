import * as vscode from 'vscode';

/**
 * The CLIs, as the settings and the commands name them. `companionFirst`: the CLI is left to its
 * official companion when that is in the window, until the user chooses (official-companions.ts).
 */
export const CLIS = {
  geminiCli: {
    label: 'Gemini CLI',
    companionId: 'google.gemini-cli-vscode-ide-companion',
    companionName: 'Gemini CLI Companion',
    engineName: 'gemini',
    command: 'gemini',
    companionFirst: false,
  },
  qwenCode: {
    label: 'Qwen Code',
    companionId: 'qwenlm.qwen-code-vscode-ide-companion',
    companionName: 'Qwen Code Companion',
    engineName: 'qwen',
    command: 'qwen',
    companionFirst: false,
  },
  claudeCode: {
    label: 'Claude Code',
    companionId: 'anthropic.claude-code',
    companionName: 'Claude Code extension',
    engineName: 'claude',
    // The mode that asks before each edit, so that edits open as diffs here.
    command: 'claude --permission-mode default',
    companionFirst: true,
  },
} as const;

export type CliKey = keyof typeof CLIS;
export const CLI_KEYS = Object.keys(CLIS) as CliKey[];

function section(): vscode.WorkspaceConfiguration {
  return vscode.workspace.getConfiguration('tandem');
}

/** Whether the CLI's official companion is installed and enabled in this window. */
export function companionPresent(cli: CliKey): boolean {
  return vscode.extensions.getExtension(CLIS[cli].companionId) !== undefined;
}

/** Whether Tandem serves this CLI (`tandem.<cli>.serve`). */
export function serves(cli: CliKey): boolean {
  return section().get<boolean>(`${cli}.serve`, true);
}

/** Whether the user has decided `tandem.<cli>.serve` anywhere. */
export function serveDecided(cli: CliKey): boolean {
  const inspected = section().inspect<boolean>(`${cli}.serve`);
  return [inspected?.globalValue, inspected?.workspaceValue, inspected?.workspaceFolderValue].some(
    (value) => value !== undefined,
  );
}

export function setServes(cli: CliKey, value: boolean): Thenable<void> {
  return section().update(`${cli}.serve`, value, vscode.ConfigurationTarget.Global);
}

/** The command line that starts the CLI in a terminal (`tandem.<cli>.command`). */
export function cliCommand(cli: CliKey): string {
  return section().get<string>(`${cli}.command`, CLIS[cli].command);
}

/** Whether integrated terminals get the variables (`tandem.terminal.environment`). */
export function terminalEnvironment(): boolean {
  return section().get<boolean>('terminal.environment', true);
}
