/**
 * The URI of a file as each LSP client writes it, from its source: the tests of `tandem lsp`
 * play each spelling.
 */
import { realpathSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

/**
 * A URI as a client writes it: each byte of the path's UTF-8 kept when `kept` matches its
 * (ASCII) character, else `%XX` in the client's case of hex digits.
 */
export function encodedUri(
  prefix: string,
  file: string,
  kept: RegExp,
  hex: 'lower' | 'upper',
): string {
  let uri = prefix;
  for (const char of file) {
    if (char.length === 1 && char.charCodeAt(0) < 0x80 && kept.test(char)) {
      uri += char;
      continue;
    }
    for (const byte of Buffer.from(char, 'utf8')) {
      const digits = byte.toString(16).padStart(2, '0');
      uri += `%${hex === 'lower' ? digits : digits.toUpperCase()}`;
    }
  }
  return uri;
}

/** How each client writes the URI of a file, from its source. */
export const CLIENT_URIS = {
  // node:url: `[`, `]` and `:` kept, upper-case hex.
  Node: (file) => pathToFileURL(file).href,
  // Neovim 0.10–0.12, runtime/lua/vim/uri.lua, uri_from_fname: RFC 3986's reserved and
  // unreserved characters kept (`:` too), every other byte in lower-case hex (bit.tohex).
  Neovim: (file) => encodedUri('file://', file, /[A-Za-z0-9\-._~!$&'()*+,;=:@/]/, 'lower'),
  // Emacs 30 eglot.el, eglot-path-to-uri: the file-truename, url-hexify-string with
  // url-path-allowed-chars less `:` (eglot--uri-path-allowed-chars), upper-case hex.
  eglot: (file) =>
    encodedUri('file://', realpathSync(file), /[A-Za-z0-9\-._~!$&'()*+,;=@/]/, 'upper'),
  // Helix (url's Url::from_file_path): the path-segment set escaped, `[`, `]`, `:` kept.
  Helix: (file) => encodedUri('file://', file, /[^\s"#<>?`{}%]/, 'upper'),
  // VS Code's vscode-uri, URI.file().toString(): all but the unreserved characters and `/`
  // escaped (`:` as `%3A`), upper-case hex.
  'VS Code': (file) => encodedUri('file://', file, /[A-Za-z0-9\-._~/]/, 'upper'),
  // Sublime Text's LSP, plugin/core/url.py filename_to_uri: urljoin('file:', pathname2url()),
  // Python's quote with `/` safe, upper-case hex.
  'Sublime Text': (file) => encodedUri('file://', file, /[A-Za-z0-9\-._~/]/, 'upper'),
  // LSP4IJ: Java's File.toURI().toASCIIString(): `file:/`, the path's legal characters kept
  // (`:` and `@` too), `[`, `]` and every non-ASCII byte escaped, upper-case hex.
  LSP4IJ: (file) => encodedUri('file:', file, /[A-Za-z0-9\-_.!~*'();:@&=+$,/]/, 'upper'),
} satisfies Record<string, (file: string) => string>;
