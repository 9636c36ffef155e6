import * as vscode from 'vscode';
import type { Engine } from '@tandem/core';
import type { ReportDocuments } from './report-documents.js';

type Warning = ReturnType<Engine['warnings']>[number];

/** VS Code cuts a notification's text past this many characters (its `MAX_MESSAGE_LENGTH`). */
const NOTIFICATION_LENGTH = 1000;
const SHOW_ALL = 'Show All Warnings';

/**
 * The engine's warnings (IDE mode off, another companion on the folder…), each told once, and
 * those that come together in one notification: VS Code shows at most three toasts at once and
 * none past three in 800 ms, so a notification per warning would hide the others, a question
 * of Tandem's among them. Too long for one notification (Claude Code's three with their
 * folders), those that fit are told there and the rest in a document one button away: a cut
 * text would lose the last fix.
 */
export class WarningNotices {
  private readonly told = new Set<string>();

  constructor(private readonly reports: Pick<ReportDocuments, 'show'>) {}

  show(warnings: readonly Warning[]): void {
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
    // Each warning on a line, its fix on the next.
    const all = fresh.map((warning) => `${warning.message}\n${warning.fix}\n`).join('\n');
    void vscode.window.showWarningMessage(notice(count), SHOW_ALL).then((choice) => {
      if (choice === SHOW_ALL) void this.reports.show('Tandem Warnings', all, 'plaintext');
    });
  }
}

function keyOf(warning: Warning): string {
  return `${warning.code} ${warning.cli ?? ''} ${warning.message}`;
}
