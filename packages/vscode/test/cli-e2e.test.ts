/**
 * End to end: the whole Gemini CLI (fake model) in an integrated terminal of real VS Code
 * (code-server). The model proposes an edit; it opens in VS Code's diff editor; the user changes
 * it and saves; the CLI writes the changed text to the file.
 */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import {
  cliInSandbox,
  CodeServer,
  codeServerSkipReason,
  editPrompt,
  finalText,
  inputPattern,
  prepareCliLaunch,
  Sandbox,
  waitUntil,
} from '@tandem/testkit';

const skip = codeServerSkipReason();

const original = 'first line\nsecond line\n';
const proposed = 'first line\n\tindented "quoted" line\nünïcödé ✓\n';

test(
  'Gemini CLI in the integrated terminal: an edit in the diff editor, Ctrl+S, and the CLI writes it',
  { skip, timeout: 300_000 },
  async (t) => {
    const sandbox = new Sandbox('tandem-vscode-e2e-');
    const file = path.join(sandbox.workspace, 'notes.txt');
    await writeFile(file, original);
    const edit = { filePath: file, content: proposed };
    // Asked for before the CLI has connected, the edit would be confirmed in the terminal.
    const launch = await prepareCliLaunch(cliInSandbox(sandbox, 'gemini', edit));
    const vscode = await CodeServer.start(sandbox);
    t.after(async () => {
      await vscode.stop();
      await launch.close();
      sandbox.remove();
    });
    await vscode.waitForDiscovery();
    // Sourced, so that the CLI's parent is the terminal's own shell, as when a user types it.
    const script = path.join(sandbox.root, 'start-gemini.sh');
    await writeFile(script, `${launch.command.shellLine}\n`);
    await vscode.runInTerminal(`. ${script}`);
    await vscode.waitForClient('Gemini CLI');
    let screen = '';
    const terminalShows = (pattern: RegExp) => async () =>
      pattern.test((screen = await vscode.terminalText()));
    // In a VS Code terminal, Gemini CLI first offers to set up its keybindings: no.
    const keybindingOffer = /terminal keybindings\?/;
    const ready = new RegExp(`${inputPattern.source}|${keybindingOffer.source}`);
    await waitUntil('the CLI to start', terminalShows(ready), 120_000, () => screen);
    if (keybindingOffer.test(screen)) await vscode.typeInTerminal('2');
    await waitUntil(
      'the CLI to wait for input',
      terminalShows(inputPattern),
      120_000,
      () => screen,
    );
    await vscode.typeInTerminal(editPrompt(edit));
    await vscode.waitForDiff('Gemini CLI');
    await vscode.typeInProposal('edited in VS Code\n');
    await vscode.page.keyboard.press('Control+S');
    const edited = `${proposed}edited in VS Code\n`;
    let written = '';
    await waitUntil(
      'the CLI to write the edited file',
      async () => {
        screen = await vscode.terminalText();
        return (written = await readFile(file, 'utf8')) === edited;
      },
      120_000,
      () => `the file holds ${JSON.stringify(written)}; the terminal shows:\n${screen}`,
    );
    await waitUntil(
      'the CLI to finish its turn',
      terminalShows(new RegExp(finalText)),
      120_000,
      () => screen,
    );
  },
);
