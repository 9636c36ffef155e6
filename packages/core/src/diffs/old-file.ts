import { MAX_PROPOSAL_BYTES } from '../editor-port.js';
import { readRegularFile, type FileRead } from '../files/regular-file.js';

/**
 * The file a CLI proposes to change, as the editor is shown it: a regular file (a link to one
 * is followed: workspaces hold them) of at most the size of a proposal. A FIFO, a device, a
 * folder, a file the kernel makes up (`/proc/self/environ`) or a larger file is refused with
 * the reason. Where it lies is the CLI's choice (docs/security.md).
 */
export function readOldFile(path: string): Promise<FileRead> {
  return readRegularFile(path, { maxBytes: MAX_PROPOSAL_BYTES, followLinks: true });
}
