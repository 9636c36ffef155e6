/**
 * LSP positions count characters in the encoding negotiated at `initialize` (UTF-16 when the
 * client offers none); the engine counts Unicode code points. Lines are 0-based in LSP and
 * 1-based in the engine.
 */
export type PositionEncoding = 'utf-8' | 'utf-16' | 'utf-32';

/** Code points first: they are the engine's own unit, so nothing is converted. */
const PREFERENCE: PositionEncoding[] = ['utf-32', 'utf-16', 'utf-8'];

/** The encoding to use among those the client offers; UTF-16, which every client speaks, else. */
export function chooseEncoding(offered: readonly string[] | undefined): PositionEncoding {
  return PREFERENCE.find((encoding) => offered?.includes(encoding)) ?? 'utf-16';
}

/** The units one code point takes in `encoding`. */
export function unitsOf(codePoint: number, encoding: PositionEncoding): number {
  if (encoding === 'utf-32') return 1;
  if (encoding === 'utf-16') return codePoint > 0xffff ? 2 : 1;
  return codePoint < 0x80 ? 1 : codePoint < 0x800 ? 2 : codePoint < 0x10000 ? 3 : 4;
}

/** How many units of `encoding` the first `points` code points of `line` take. */
export function unitsIn(line: string, points: number, encoding: PositionEncoding): number {
  let units = 0;
  let seen = 0;
  for (const char of line) {
    if (seen === points) break;
    units += unitsOf(char.codePointAt(0) as number, encoding);
    seen += 1;
  }
  return units;
}
