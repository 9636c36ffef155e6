import type { CodeAction, Command, Range } from 'vscode-languageserver';

/** The commands Tandem's code actions run (`workspace/executeCommand`). */
export const COMMANDS = {
  accept: 'tandem.accept',
  reject: 'tandem.reject',
  openReviewPage: 'tandem.openReviewPage',
  sendSelection: 'tandem.sendSelection',
  sendToClaude: 'tandem.sendToClaude',
} as const;

export type CommandName = (typeof COMMANDS)[keyof typeof COMMANDS];

/**
 * Tandem's code actions at a place: Accept, Reject and Open the review page for each pending
 * diff there (a proposal, or the user's file of a diff on the review page alone); in the user's
 * files "send the selection", for clients that send no position by themselves as the cursor
 * moves (the code action request itself carries the selection), and "send to Claude Code", which
 * puts the selection's lines (the file, for an empty one) in Claude Code's prompt. Its title
 * starts otherwise than "Tandem: send", which editors' bindings pick "send the selection" by.
 */
export function codeActionsAt(
  uri: string,
  range: Range,
  pending: { id: string; client: string }[],
  isProposal: boolean,
): CodeAction[] {
  const answers = pending.flatMap(({ id, client }) => [
    action(`Tandem: accept ${client}'s proposal`, COMMANDS.accept, [id]),
    action(`Tandem: reject ${client}'s proposal`, COMMANDS.reject, [id]),
    action(`Tandem: open ${client}'s proposal on the review page`, COMMANDS.openReviewPage, [id]),
  ]);
  if (isProposal) return answers;
  return [
    ...answers,
    action('Tandem: send the selection to the CLIs', COMMANDS.sendSelection, [uri, range]),
    action('Tandem: Claude Code: send the lines to its prompt', COMMANDS.sendToClaude, [
      uri,
      range,
    ]),
  ];
}

function action(title: string, command: CommandName, args: unknown[]): CodeAction {
  const run: Command = { title, command, arguments: args };
  return { title, command: run };
}
