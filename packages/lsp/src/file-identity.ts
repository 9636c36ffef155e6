import { realpathSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Which file a URI names, whatever its spelling. Each editor writes the URI of a file its own
 * way: hex digits of either case (Neovim `%c3%a9`, Node `%C3%A9`), its own set of characters
 * left as they are (`[`, `:`: Node and Helix keep them, Neovim, eglot, VS Code, Sublime Text
 * and LSP4IJ escape some), `file:/` or `file://localhost/`, and the real path where Tandem named
 * a linked one (eglot's `file-truename`: macOS's `/var` is `/private/var`). `tandem lsp` compares
 * documents by their key alone, never by the text of their URI.
 */

/** The path a `file:` URI names, every `%XX` decoded; `undefined` for any other URI. */
export function filePath(uri: string): string | undefined {
  if (!/^file:/i.test(uri)) return undefined;
  try {
    return fileURLToPath(uri);
  } catch {
    // An encoded `/` or NUL, a foreign host, a malformed escape: no file of this machine.
    return undefined;
  }
}

/**
 * The key of the file at `filePath`: its real path, links resolved; for a file not there (a new
 * file, one removed), the real path of the nearest folder above it that is there, with the rest
 * as named.
 */
export function fileKey(filePath: string): string {
  const absolute = path.resolve(filePath);
  try {
    return realpathSync.native(absolute);
  } catch {
    const parent = path.dirname(absolute);
    return parent === absolute ? absolute : path.join(fileKey(parent), path.basename(absolute));
  }
}

/**
 * The key of the document `uri` names: the key of its file for a `file:` URI, the URI itself for
 * any other (`untitled:`), which names no file.
 */
export function documentKey(uri: string): string {
  const file = filePath(uri);
  return file === undefined ? uri : fileKey(file);
}
