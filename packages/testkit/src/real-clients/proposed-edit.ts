/** What the fake model asks the CLI to do: write `content` to `filePath` (absolute). */
export interface ProposedEdit {
  filePath: string;
  content: string;
}

/** The model's last words after the write, so a test can see the turn is over. */
export const finalText = 'The proposed edit is done.';

/** The model's answer to anything it has no script for. */
export const idleText = 'Nothing else to do.';
