/**
 * Control characters and the marks that reorder bidirectional text: in a file name they would
 * make `rtl-\u202egnp.js` read as `rtl-sj.png`.
 */
// eslint-disable-next-line no-control-regex -- finding control characters is its job
const UNSEEN = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/** `text` with each of the characters above shown as its escape (`\u202e`), as names read. */
export function visibleText(text: string): string {
  return text.replace(UNSEEN, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/**
 * A file path as the page shows it: relative to the workspace folder that holds it, every
 * character of it visible as what it is.
 */
export function displayPath(
  filePath: string,
  workspaceFolders: string[],
): { directory: string; name: string } {
  let shown = filePath;
  for (const folder of workspaceFolders) {
    const root = folder.replace(/[\\/]+$/, '');
    const rest = filePath.slice(root.length);
    if (filePath.startsWith(root) && /^[\\/]/.test(rest)) {
      shown = rest.slice(1);
      break;
    }
  }
  const cut = Math.max(shown.lastIndexOf('/'), shown.lastIndexOf('\\')) + 1;
  return { directory: visibleText(shown.slice(0, cut)), name: visibleText(shown.slice(cut)) };
}
