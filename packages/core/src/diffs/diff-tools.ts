import type { ConnectedClient } from '../editor-port.js';
import type { Refusal } from './diff-coordinator.js';

/**
 * The diff tools, as the engine answers them for a session's client, in every binding:
 * `answeredInTerminal` when the CLI closes a diff because the user answered in its terminal.
 */
export interface DiffTools {
  openDiff(
    client: ConnectedClient,
    filePath: string,
    newContent: string,
  ): Promise<{ ok: true } | Refusal>;
  closeDiff(
    client: ConnectedClient,
    filePath: string,
    answeredInTerminal: boolean,
  ): Promise<{ ok: true; content: string | null } | Refusal>;
}
