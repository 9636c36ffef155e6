import * as vscode from 'vscode';
import {
  CLIS,
  CLI_KEYS,
  companionPresent,
  serveDecided,
  setServes,
  type CliKey,
} from './settings.js';

/** The CLIs whose official companion is in this window while the user has not chosen. */
function undecided(): CliKey[] {
  return CLI_KEYS.filter((cli) => companionPresent(cli) && !serveDecided(cli));
}

/**
 * Before Tandem starts: a CLI left to its official companion first (Claude Code: two companions
 * would each give terminals their own `CLAUDE_CODE_SSE_PORT`) is turned off in
 * `tandem.<cli>.serve`, where the user sees it and can turn it on.
 */
export async function leaveToOfficialCompanions(): Promise<CliKey[]> {
  const left = undecided().filter((cli) => CLIS[cli].companionFirst);
  await Promise.all(left.map((cli) => setServes(cli, false)));
  return left;
}

/**
 * When an official companion serves the same CLI, two companions would answer it: the user is
 * told once and chooses, and the choice is kept in `tandem.<cli>.serve`. `left`: the CLIs
 * Tandem already left to their companions, which it says.
 */
export async function askAboutOfficialCompanions(left: readonly CliKey[]): Promise<void> {
  await Promise.all([...undecided().map(ask), ...left.map(tell)]);
}

async function ask(cli: CliKey): Promise<void> {
  const { label, companionName } = CLIS[cli];
  const tandem = 'Tandem';
  const choice = await vscode.window.showWarningMessage(
    `The ${companionName} is installed too: both would serve ${label}. Which should?`,
    tandem,
    companionName,
  );
  if (choice === undefined) return;
  await setServes(cli, choice === tandem);
  if (choice === tandem) await offerToShow(cli);
}

async function tell(cli: CliKey): Promise<void> {
  const { label, companionName } = CLIS[cli];
  const serve = 'Serve It with Tandem';
  const choice = await vscode.window.showInformationMessage(
    `The ${companionName} is in this window: Tandem leaves ${label} to it (tandem.${cli}.serve is off).`,
    serve,
  );
  if (choice !== serve) return;
  await setServes(cli, true);
  await offerToShow(cli);
}

async function offerToShow(cli: CliKey): Promise<void> {
  const { label, companionName, companionId } = CLIS[cli];
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
