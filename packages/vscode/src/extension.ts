/**
 * Tandem for VS Code and its family (VSCodium, Cursor, Windsurf, code-server): the engine runs
 * in this extension host and serves Gemini CLI, Qwen Code and Claude Code at once.
 */
import * as vscode from 'vscode';
import { channelLogger } from './log-channel.js';
import { askAboutOfficialCompanions, leaveToOfficialCompanions } from './official-companions.js';
import { registerSendToClaude } from './send-to-claude.js';
import { onTerminationSignal } from './termination.js';
import { WindowCompanion } from './window-companion.js';

// VS Code calls activate() and deactivate() on the module: deactivate needs the companion.
let companion: WindowCompanion | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  const activated = performance.now();
  const channel = vscode.window.createOutputChannel('Tandem', { log: true });
  const log = channelLogger(channel);
  const started = new WindowCompanion(context, log);
  companion = started;
  const removeSignalHandlers = onTerminationSignal(() => deactivate());
  context.subscriptions.push(
    channel,
    vscode.commands.registerCommand('tandem.showLog', () => channel.show()),
    registerSendToClaude((path, lines) => started.mention(path, lines)),
    { dispose: removeSignalHandlers },
  );
  // Before the engine starts, so that it never serves a CLI it leaves to an official companion.
  const left = await leaveToOfficialCompanions().catch((error: unknown) => {
    log.error(`could not leave a CLI to its official companion: ${String(error)}`);
    return [];
  });
  for (const cli of left)
    log.info(`${cli} left to its official companion (tandem.${cli}.serve off)`);
  void askAboutOfficialCompanions(left);
  await started.start().then(
    () => {
      log.info(`ready ${(performance.now() - activated).toFixed(1)} ms after activation`);
    },
    (error: unknown) => {
      log.error(`could not start: ${String(error)}`);
      void vscode.window.showErrorMessage(`Tandem could not start: ${String(error)}`);
    },
  );
}

/** Window reload, quit, or the extension disabled: no CLI is left waiting on a diff. */
export async function deactivate(): Promise<void> {
  const stopping = companion;
  companion = undefined;
  if (!stopping) return;
  try {
    await stopping.stop();
  } finally {
    stopping.dispose();
  }
}
