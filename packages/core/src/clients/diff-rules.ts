/**
 * What the CLIs do with a diff's answer that a frontend must not have to know (SPEC-NOTES §3).
 */

/**
 * Both CLIs read an accept whose content is empty as "write the proposal". An emptied proposal
 * can therefore not be accepted as such; returns why, or `undefined` when the accept is sound.
 */
export function emptyAcceptRefusal(proposal: string, content: string): string | undefined {
  if (content !== '' || proposal === '') return undefined;
  return (
    'An empty file cannot be accepted: the CLI would write its original proposal instead. ' +
    'Reject the diff, or leave some text in it.'
  );
}
