import { selectionLines, type LineRange, type MentionAnswer } from '@tandem/core';
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
    const answer = mention(editor.document.uri.fsPath, selectionLines(editor.selection));
    const text = `Tandem: ${answer.message}`;
    if (answer.ok) await vscode.window.showInformationMessage(text);
    else await vscode.window.showWarningMessage(text);
  } catch (error) {
    await vscode.window.showErrorMessage(`Tandem: ${(error as Error).message}`);
  }
}
