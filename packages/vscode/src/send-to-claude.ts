import type { LineRange, MentionAnswer } from '@tandem/core';
import * as vscode from 'vscode';

/** What the command asks of the window: the engine's mention (it throws when Tandem is not running). */
export type Mention = (path: string, lines?: LineRange) => MentionAnswer;

/**
 * **Tandem: Send to Claude Code** (command palette and the editor's context menu): the selected
 * lines of the active editor, or its whole file without a selection, put in the prompt of the
 * Claude Code connected to this window (`@file#L12-20`); the user is told whether one received it.
 */
export function registerSendToClaude(mention: Mention): vscode.Disposable {
  return vscode.commands.registerCommand('tandem.sendToClaude', () => send(mention));
}

async function send(mention: Mention): Promise<void> {
  const editor = vscode.window.activeTextEditor;
  if (!editor || editor.document.uri.scheme !== 'file' || editor.document.isUntitled) {
    await vscode.window.showWarningMessage(
      'Tandem: this editor shows no file on disk: save it first.',
    );
    return;
  }
  try {
    const answer = mention(editor.document.uri.fsPath, selectedLines(editor.selection));
    const show = answer.ok
      ? vscode.window.showInformationMessage
      : vscode.window.showWarningMessage;
    await show(`Tandem: ${answer.message}`);
  } catch (error) {
    await vscode.window.showErrorMessage(`Tandem: ${(error as Error).message}`);
  }
}

/** The lines of a selection, 1-based; one that ends at a line's start leaves that line out. */
function selectedLines(selection: vscode.Selection): LineRange | undefined {
  if (selection.isEmpty) return undefined;
  const { start, end } = selection;
  const last = end.character === 0 && end.line > start.line ? end.line : end.line + 1;
  return { start: start.line + 1, end: last };
}
