import type { CodeAction, Command, Range } from 'vscode-languageserver';

/** The commands Tandem's code actions run (`workspace/executeCommand`). */
export const COMMANDS = {
  accept: 'tandem.accept',
  reject: 'tandem.reject',
  sendSelection: 'tandem.sendSelection',
} as const;

export type CommandName = (typeof COMMANDS)[keyof typeof COMMANDS];

/**
 * Tandem's code actions at a place: Accept and Reject on a pending proposal; elsewhere "send
 * the selection", for clients that send no position by themselves as the cursor moves (the
 * code action request itself carries the selection).
 */
export function codeActionsAt(
  uri: string,
  range: Range,
  pendingProposal: { id: string; client: string } | undefined,
): CodeAction[] {
  if (pendingProposal) {
    const { id, client } = pendingProposal;
    return [
      action(`Tandem: accept ${client}'s proposal`, COMMANDS.accept, [id]),
      action(`Tandem: reject ${client}'s proposal`, COMMANDS.reject, [id]),
    ];
  }
  return [action('Tandem: send the selection to the CLIs', COMMANDS.sendSelection, [uri, range])];
}

function action(title: string, command: CommandName, args: unknown[]): CodeAction {
  const run: Command = { title, command, arguments: args };
  return { title, command: run };
}
