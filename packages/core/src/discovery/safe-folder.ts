import { readRegularFile } from '../files/regular-file.js';

/** A discovery file is a few hundred bytes: anything much larger is not one. */
export const MAX_DISCOVERY_FILE_BYTES = 64 * 1024;

/**
 * The text of a regular file of this user of at most `maxBytes`, or `undefined` for anything
 * else: a FIFO, a device or a link is never opened for reading.
 */
export async function readSmallRegularFile(
  path: string,
  maxBytes = MAX_DISCOVERY_FILE_BYTES,
): Promise<string | undefined> {
  const read = await readRegularFile(path, { maxBytes, ownerUid: process.getuid?.() });
  return read.status === 'text' ? read.text : undefined;
}
