import * as vscode from 'vscode';
import type { Engine } from '@tandem/core';
import type { ReportDocuments } from './report-documents.js';

type Warning = ReturnType<Engine['warnings']>[number];

/** VS Code cuts a notification's text past this many characters (its `MAX_MESSAGE_LENGTH`). */
const NOTIFICATION_LENGTH = 1000;
/** A link in the text, not a button: a notification with buttons opens tall and hides others. */
const SHOW_ALL = '[Show All Warnings](command:tandem.showWarnings)';

/**
 * The engine's warnings (IDE mode off, another companion on the folder…), each told once, and
 * those that come together in one notification: VS Code shows at most three toasts at once and
 * none past three in 800 ms, so a notification per warning would hide the others, a question
 * of Tandem's among them. Too long for one notification (Claude Code's three with their
 * folders), those that fit are told there and the rest are a link away, in **Tandem: Show
 * Warnings**: a cut text would lose the last fix.
 */
export class WarningNotices implements vscode.Disposable {
  private readonly told = new Set<string>();
  private current: readonly Warning[] = [];
  private readonly command: vscode.Disposable;

  constructor(private readonly reports: Pick<ReportDocuments, 'show'>) {
    this.command = vscode.commands.registerCommand('tandem.showWarnings', () => this.showAll());
  }

  show(warnings: readonly Warning[]): void {
    this.current = warnings;
    const fresh = warnings.filter((warning) => !this.told.has(keyOf(warning)));
    if (fresh.length === 0) return;
    for (const warning of fresh) this.told.add(keyOf(warning));
    const texts = fresh.map((warning) => `${warning.message} ${warning.fix}`);
    const whole = `Tandem: ${texts.join(' ')}`;
    if (whole.length <= NOTIFICATION_LENGTH) {
      void vscode.window.showWarningMessage(whole);
      return;
    }
    const notice = (count: number) => {
      const rest = texts.length - count;
      const plural = rest === 1 ? '' : 's';
      const pointer = count ? `And ${rest} more warning${plural}` : `${rest} warning${plural}`;
      return `Tandem: ${[...texts.slice(0, count), `${pointer}: ${SHOW_ALL}.`].join(' ')}`;
    };
    let count = texts.length - 1;
    while (count > 0 && notice(count).length > NOTIFICATION_LENGTH) count--;
    void vscode.window.showWarningMessage(notice(count));
  }

  dispose(): void {
    this.command.dispose();
  }

  /** Every warning that applies now, each on a line and its fix on the next. */
  private async showAll(): Promise<void> {
    const text = this.current.length
      ? this.current.map((warning) => `${warning.message}\n${warning.fix}\n`).join('\n')
      : 'Tandem has no warning for this window.\n';
    await this.reports.show('Tandem Warnings', text, 'plaintext');
  }
}

function keyOf(warning: Warning): string {
  return `${warning.code} ${warning.cli ?? ''} ${warning.message}`;
}
