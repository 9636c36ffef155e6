import * as vscode from 'vscode';
import type { Engine } from '@tandem/core';

type Warning = ReturnType<Engine['warnings']>[number];

/** The engine's warnings (IDE mode off, another companion on the folder…), each told once. */
export class WarningNotices {
  private readonly told = new Set<string>();

  show(warnings: readonly Warning[]): void {
    for (const warning of warnings) {
      const key = `${warning.code} ${warning.cli ?? ''} ${warning.message}`;
      if (this.told.has(key)) continue;
      this.told.add(key);
      void vscode.window.showWarningMessage(`Tandem: ${warning.message} ${warning.fix}`);
    }
  }
}
