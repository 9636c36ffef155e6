import * as vscode from 'vscode';
import { CLIS, CLI_KEYS, serveDecided, setServes, type CliKey } from './settings.js';

/**
 * When an official companion serves the same CLI, two companions would answer it: the user is
 * told once and chooses, and the choice is kept in `tandem.<cli>.serve`.
 */
export async function askAboutOfficialCompanions(): Promise<void> {
  const conflicts = CLI_KEYS.filter(
    (cli) => vscode.extensions.getExtension(CLIS[cli].companionId) && !serveDecided(cli),
  );
  await Promise.all(conflicts.map(ask));
}

async function ask(cli: CliKey): Promise<void> {
  const { label, companionName, companionId } = CLIS[cli];
  const tandem = 'Tandem';
  const choice = await vscode.window.showWarningMessage(
    `The ${companionName} is installed too: both would serve ${label}. Which should?`,
    tandem,
    companionName,
  );
  if (choice === undefined) return;
  await setServes(cli, choice === tandem);
  if (choice === tandem) {
    const disable = `Show the ${companionName}`;
    const next = await vscode.window.showInformationMessage(
      `Tandem serves ${label}. Disable the ${companionName} so that it stops serving it too.`,
      disable,
    );
    if (next === disable) {
      // The Extensions view, showing the companion with its Disable button.
      await vscode.commands.executeCommand('workbench.extensions.action.showExtensionsWithIds', [
        companionId,
      ]);
    }
  }
}
