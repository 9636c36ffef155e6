/** A file path as the page shows it: relative to the workspace folder that holds it. */
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
  return { directory: shown.slice(0, cut), name: shown.slice(cut) };
}
