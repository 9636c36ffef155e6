import * as vscode from 'vscode';
import type { EditorEvents } from '@tandem/core';
import { codePointColumn } from './code-points.js';

type ContextEvents = Pick<
  EditorEvents,
  'fileOpened' | 'fileClosed' | 'fileFocused' | 'cursorChanged'
>;

/**
 * What the user looks at, as plain facts for the engine: the files open in tabs, the active
 * editor, its cursor (1-based line and code point) and its selection. Only `file:` documents:
 * the CLIs know nothing of other schemes.
 */
export class ContextFeed implements vscode.Disposable {
  private readonly subscriptions: vscode.Disposable[];

  constructor(private readonly events: ContextEvents) {
    this.subscriptions = [
      vscode.window.tabGroups.onDidChangeTabs((event) => {
        for (const tab of event.opened) this.withFile(tab, (path) => events.fileOpened(path));
        for (const tab of event.closed) {
          // Still open in another group: still open.
          this.withFile(tab, (path) => this.openPaths().has(path) || events.fileClosed(path));
        }
      }),
      vscode.window.onDidChangeActiveTextEditor((editor) => {
        if (editor) this.focused(editor);
      }),
      vscode.window.onDidChangeTextEditorSelection((event) => {
        if (event.textEditor === vscode.window.activeTextEditor) this.cursor(event.textEditor);
      }),
    ];
    for (const tab of vscode.window.tabGroups.all.flatMap((group) => group.tabs)) {
      this.withFile(tab, (path) => events.fileOpened(path));
    }
    if (vscode.window.activeTextEditor) this.focused(vscode.window.activeTextEditor);
  }

  dispose(): void {
    for (const subscription of this.subscriptions) subscription.dispose();
  }

  private focused(editor: vscode.TextEditor): void {
    if (editor.document.uri.scheme !== 'file') return;
    this.events.fileFocused(editor.document.uri.fsPath);
    this.cursor(editor);
  }

  private cursor(editor: vscode.TextEditor): void {
    const { document, selection } = editor;
    if (document.uri.scheme !== 'file') return;
    const at = ({ line, character }: vscode.Position) => ({
      line: line + 1,
      character: codePointColumn(document.lineAt(line).text, character),
    });
    const cursor = at(selection.active);
    const path = document.uri.fsPath;
    if (selection.isEmpty) {
      this.events.cursorChanged(path, cursor.line, cursor.character);
      return;
    }
    const selected = document.getText(selection);
    this.events.cursorChanged(path, cursor.line, cursor.character, selected, at(selection.anchor));
  }

  private openPaths(): Set<string> {
    const paths = new Set<string>();
    for (const tab of vscode.window.tabGroups.all.flatMap((group) => group.tabs)) {
      this.withFile(tab, (path) => paths.add(path));
    }
    return paths;
  }

  private withFile(tab: vscode.Tab, use: (path: string) => void): void {
    if (tab.input instanceof vscode.TabInputText && tab.input.uri.scheme === 'file') {
      use(tab.input.uri.fsPath);
    }
  }
}
