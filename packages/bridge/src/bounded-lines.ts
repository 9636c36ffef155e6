import type { Readable } from 'node:stream';

/** What a reader of bounded lines hears. */
export interface BoundedLineEvents {
  /** A whole line, without its `\n` (or `\r\n`), decoded as UTF-8. */
  line(text: string): void;
  /**
   * A line longer than the limit: its first bytes (to find out whose it was), the rest dropped
   * unread into memory, so that no line can exhaust it.
   */
  tooLong(head: string): void;
  /** The input ended (its last line, if unterminated, came first). */
  end(): void;
}

/** How much of an over-long line is kept to answer it. */
const HEAD_BYTES = 4096;
const NEWLINE = 0x0a;

/**
 * Splits a byte stream into lines of at most `maxLineBytes` bytes. Lines are cut on bytes
 * (`\n` never occurs inside a UTF-8 character), and only a line that fits is ever turned into a
 * string.
 */
export function readBoundedLines(
  input: Readable,
  maxLineBytes: number,
  on: BoundedLineEvents,
): void {
  let pieces: Buffer[] = [];
  let size = 0;
  let head: Buffer | undefined;

  const finish = () => {
    if (head) on.tooLong(head.toString('utf8'));
    else if (size > 0) on.line(decode(Buffer.concat(pieces, size)));
    pieces = [];
    size = 0;
    head = undefined;
  };
  const take = (piece: Buffer) => {
    if (head) return;
    if (size + piece.length <= maxLineBytes) {
      pieces.push(piece);
      size += piece.length;
      return;
    }
    head = firstBytes([...pieces, piece], HEAD_BYTES);
    pieces = [];
    size = 0;
  };

  input.on('data', (chunk: Buffer) => {
    let start = 0;
    for (;;) {
      const newline = chunk.indexOf(NEWLINE, start);
      if (newline === -1) break;
      take(chunk.subarray(start, newline));
      finish();
      start = newline + 1;
    }
    // Copied: a kept view would hold the whole chunk in memory.
    if (start < chunk.length) take(Buffer.from(chunk.subarray(start)));
  });
  let ended = false;
  const end = () => {
    if (ended) return;
    ended = true;
    finish();
    on.end();
  };
  input.once('end', end);
  input.once('close', end);
  input.once('error', end);
}

function firstBytes(pieces: Buffer[], count: number): Buffer {
  const first: Buffer[] = [];
  let size = 0;
  for (const piece of pieces) {
    if (size >= count) break;
    first.push(piece);
    size += piece.length;
  }
  return Buffer.concat(first).subarray(0, count);
}

function decode(bytes: Buffer): string {
  const text = bytes.toString('utf8');
  return text.endsWith('\r') ? text.slice(0, -1) : text;
}
