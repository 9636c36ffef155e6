/**
 * Control characters (C0, DEL, C1) and the marks that reorder bidirectional text: on a terminal
 * they move the cursor, erase lines, set the title or the clipboard (OSC 0, OSC 52), or show a
 * name other than the one it is.
 */
// eslint-disable-next-line no-control-regex -- finding control characters is its job
const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/**
 * One line of text safe to print on a terminal: what it holds of the characters above is written
 * as an escape (`\u001b`), a newline included. Everything printed that comes from a file or a
 * client goes through it.
 */
export function printable(text: string): string {
  return text.replace(UNPRINTABLE, (char) => {
    return `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`;
  });
}
