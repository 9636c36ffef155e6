import * as vscode from 'vscode';
import type { Engine } from '@tandem/core';

type Warning = ReturnType<Engine['warnings']>[number];

/**
 * The engine's warnings (IDE mode off, another companion on the folder…), each told once, and
 * those that come together in one notification: VS Code shows at most three toasts at once and
 * none past three in 800 ms, so a notification per warning would hide the others, a question
 * of Tandem's among them.
 */
export class WarningNotices {
  private readonly told = new Set<string>();

  show(warnings: readonly Warning[]): void {
    const fresh = warnings.filter((warning) => !this.told.has(keyOf(warning)));
    if (fresh.length === 0) return;
    for (const warning of fresh) this.told.add(keyOf(warning));
    const text = fresh.map((warning) => `${warning.message} ${warning.fix}`).join(' ');
    void vscode.window.showWarningMessage(`Tandem: ${text}`);
  }
}

function keyOf(warning: Warning): string {
  return `${warning.code} ${warning.cli ?? ''} ${warning.message}`;
}
