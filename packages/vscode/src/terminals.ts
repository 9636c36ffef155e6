import type { Engine } from '@tandem/core';
import * as vscode from 'vscode';
import {
  CLIS,
  CLI_KEYS,
  cliCommand,
  serves,
  terminalEnvironment,
  type CliKey,
} from './settings.js';

/**
 * The integrated terminals of this window: the variables that make a CLI started in one of them
 * connect to this window (not to another window with the same folder), and the commands that
 * start a CLI in a new terminal.
 */
export class Terminals implements vscode.Disposable {
  private readonly subscriptions: vscode.Disposable[];

  constructor(private readonly collection: vscode.GlobalEnvironmentVariableCollection) {
    // The port changes with every start: never restore an old one into a new window.
    collection.persistent = false;
    collection.description =
      'Lets Gemini CLI, Qwen Code and Claude Code started here connect to this window';
    this.subscriptions = [
      vscode.commands.registerCommand('tandem.startGeminiCli', () => this.start('geminiCli')),
      vscode.commands.registerCommand('tandem.startQwenCode', () => this.start('qwenCode')),
      vscode.commands.registerCommand('tandem.startClaudeCode', () => this.start('claudeCode')),
    ];
  }

  /** Sets the engine's variables for the CLIs Tandem serves; clears them all without one. */
  update(engine: Pick<Engine, 'terminalEnv'> | undefined): void {
    this.collection.clear();
    if (!engine || !terminalEnvironment()) return;
    const served = CLI_KEYS.filter(serves).map((cli) => CLIS[cli].engineName);
    for (const [name, value] of Object.entries(engine.terminalEnv(served))) {
      this.collection.replace(name, value);
    }
  }

  /** The variables this window's integrated terminals get from Tandem. */
  environment(): Record<string, string> {
    const variables: Record<string, string> = {};
    this.collection.forEach((name, mutator) => {
      variables[name] = mutator.value;
    });
    return variables;
  }

  private start(cli: CliKey): void {
    const folder = vscode.workspace.workspaceFolders?.find((f) => f.uri.scheme === 'file');
    const terminal = vscode.window.createTerminal({ name: CLIS[cli].label, cwd: folder?.uri });
    terminal.show();
    terminal.sendText(cliCommand(cli));
  }

  dispose(): void {
    for (const subscription of this.subscriptions) subscription.dispose();
  }
}
