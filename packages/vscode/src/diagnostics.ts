import type { Diagnostic, FileDiagnostics } from '@tandem/core';
import * as vscode from 'vscode';

const SEVERITIES: Record<vscode.DiagnosticSeverity, Diagnostic['severity']> = {
  [vscode.DiagnosticSeverity.Error]: 'Error',
  [vscode.DiagnosticSeverity.Warning]: 'Warning',
  [vscode.DiagnosticSeverity.Information]: 'Information',
  [vscode.DiagnosticSeverity.Hint]: 'Hint',
};

/**
 * The diagnostics VS Code shows (its languages API), of the file at `path` or of every file on
 * disk that has some, as the engine takes them. Positions are VS Code's own (UTF-16 characters),
 * as Anthropic's extension gives them to Claude Code.
 */
export function editorDiagnostics(path?: string): Promise<FileDiagnostics[]> {
  const entries: [vscode.Uri, readonly vscode.Diagnostic[]][] =
    path === undefined
      ? vscode.languages.getDiagnostics()
      : [[vscode.Uri.file(path), vscode.languages.getDiagnostics(vscode.Uri.file(path))]];
  return Promise.resolve(
    entries
      .filter(([uri, diagnostics]) => uri.scheme === 'file' && diagnostics.length > 0)
      .map(([uri, diagnostics]) => ({
        path: uri.fsPath,
        diagnostics: diagnostics.map(toEngine),
      })),
  );
}

function toEngine(diagnostic: vscode.Diagnostic): Diagnostic {
  const { start, end } = diagnostic.range;
  const code = typeof diagnostic.code === 'object' ? diagnostic.code.value : diagnostic.code;
  return {
    message: diagnostic.message,
    severity: SEVERITIES[diagnostic.severity],
    range: {
      start: { line: start.line, character: start.character },
      end: { line: end.line, character: end.character },
    },
    ...(diagnostic.source !== undefined && { source: diagnostic.source }),
    ...(code !== undefined && { code: String(code) }),
  };
}
