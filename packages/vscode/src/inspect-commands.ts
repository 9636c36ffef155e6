import { PassThrough, Writable } from 'node:stream';
import { doctorCommand, envCommand } from '@tandem/inspect';
import * as vscode from 'vscode';
import type { ReportDocuments } from './report-documents.js';

/** What the commands need of the running window: its terminals' variables and its port. */
export interface InspectedWindow {
  /** The variables an integrated terminal of this window gets. */
  terminalEnvironment(): Record<string, string>;
  /** The engine's port; undefined when Tandem is not running. */
  port(): number | undefined;
}

/**
 * **Tandem: Doctor** and **Tandem: Show Environment**: `tandem doctor` and `tandem env`, run in
 * this extension host, their reports shown in read-only documents.
 */
export class InspectCommands implements vscode.Disposable {
  private readonly subscriptions: vscode.Disposable[];

  constructor(
    private readonly window: InspectedWindow,
    private readonly reports: ReportDocuments,
  ) {
    this.subscriptions = [
      vscode.commands.registerCommand('tandem.doctor', () => this.doctor()),
      vscode.commands.registerCommand('tandem.showEnvironment', () => this.environment()),
    ];
  }

  dispose(): void {
    for (const subscription of this.subscriptions) subscription.dispose();
  }

  /** What a CLI started in an integrated terminal of this window, in a folder of it, would do. */
  private async doctor(): Promise<void> {
    const folder = await chooseFolder();
    if (!folder) return;
    // The environment of an integrated terminal: VS Code names itself, Tandem adds its variables.
    const env = { ...process.env, TERM_PROGRAM: 'vscode', ...this.window.terminalEnvironment() };
    const output = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Window, title: 'Tandem: Doctor' },
      () => run(doctorCommand, ['--cwd', folder], env),
    );
    const intro =
      `What Gemini CLI and Qwen Code would do if started in ${folder} ` +
      `from an integrated terminal of this window (tandem doctor):\n\n`;
    await this.reports.show('Tandem Doctor', intro + output.text, 'plaintext');
  }

  /** The shell code that connects a CLI started outside VS Code to this window. */
  private async environment(): Promise<void> {
    const port = this.window.port();
    if (port === undefined) {
      void vscode.window.showErrorMessage('Tandem is not running (see Tandem: Show the Log).');
      return;
    }
    const folder = await chooseFolder();
    if (!folder) return;
    const output = await run(envCommand, ['--cwd', folder, '--port', String(port)], process.env);
    if (output.status !== 0) {
      void vscode.window.showErrorMessage(output.text.trim());
      return;
    }
    const intro =
      `# Run these lines in a terminal outside VS Code (another terminal window, a tmux pane):\n` +
      `# Gemini CLI or Qwen Code started there in ${folder} then connects to this window.\n` +
      `# Integrated terminals of this window have them already (tandem env).\n\n`;
    await this.reports.show('Tandem Environment', intro + output.text, 'shellscript');
  }
}

/** The folder a CLI would run in: the only one, or the one the user picks. */
async function chooseFolder(): Promise<string | undefined> {
  const folders = (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file');
  if (folders.length === 0) {
    void vscode.window.showErrorMessage('Open a folder first: the CLIs run in a folder.');
    return undefined;
  }
  if (folders.length === 1) return folders[0]!.uri.fsPath;
  const picked = await vscode.window.showWorkspaceFolderPick({
    placeHolder: 'The folder the CLI would run in',
  });
  return picked?.uri.fsPath;
}

/** Runs a `tandem` command in this process; its stdout and stderr, in order, and its status. */
async function run(
  command: typeof doctorCommand,
  argv: string[],
  env: NodeJS.ProcessEnv,
): Promise<{ status: number; text: string }> {
  const chunks: string[] = [];
  const stream = () =>
    new Writable({
      write(chunk: Buffer, _encoding, done) {
        chunks.push(chunk.toString());
        done();
      },
    });
  const io = { stdin: new PassThrough(), stdout: stream(), stderr: stream(), env, cwd: '/' };
  const status = await command(argv, io);
  return { status, text: chunks.join('') };
}
