import * as vscode from 'vscode';

const SCHEME = 'tandem-report';

/**
 * Tandem's reports (Doctor, the environment, the warnings) as read-only documents, one per
 * title: shown again, a report is replaced in place.
 */
export class ReportDocuments implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly reports = new Map<string, string>();
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;
  private readonly registration = vscode.workspace.registerTextDocumentContentProvider(
    SCHEME,
    this,
  );

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.reports.get(uri.path) ?? '';
  }

  async show(title: string, text: string, language: string): Promise<void> {
    const uri = vscode.Uri.from({ scheme: SCHEME, path: `/${title}` });
    this.reports.set(uri.path, text);
    this.changed.fire(uri);
    const document = await vscode.languages.setTextDocumentLanguage(
      await vscode.workspace.openTextDocument(uri),
      language,
    );
    await vscode.window.showTextDocument(document, { preview: false });
  }

  dispose(): void {
    this.registration.dispose();
    this.changed.dispose();
  }
}
