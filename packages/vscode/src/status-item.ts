import * as vscode from 'vscode';
import type { ConnectedClient } from '@tandem/core';

/** The status bar item: which CLIs are connected to this window. */
export class StatusItem implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem(
    'tandem.status',
    vscode.StatusBarAlignment.Right,
    100,
  );

  constructor() {
    this.item.name = 'Tandem';
    this.item.command = 'tandem.showLog';
    this.show([], undefined);
    this.item.show();
  }

  /** `clients` connected to the engine on `port` (undefined: not running). */
  show(clients: readonly ConnectedClient[], port: number | undefined): void {
    const names = [...new Set(clients.map((client) => client.name))];
    this.item.text = names.length ? `$(plug) ${names.join(', ')}` : '$(debug-disconnect) Tandem';
    this.item.tooltip =
      port === undefined
        ? 'Tandem is not running'
        : `Tandem on 127.0.0.1:${port}: ${names.length ? `${names.join(', ')} connected` : 'no CLI connected'}`;
  }

  dispose(): void {
    this.item.dispose();
  }
}
