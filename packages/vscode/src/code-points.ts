/**
 * VS Code counts characters in UTF-16 code units; the CLIs count Unicode code points. A
 * character outside the Basic Multilingual Plane is two units but one code point.
 */

/** The 1-based code point column of the UTF-16 offset `utf16Offset` in `lineText`. */
export function codePointColumn(lineText: string, utf16Offset: number): number {
  let column = 1;
  for (let unit = 0; unit < utf16Offset && unit < lineText.length; column++) {
    const code = lineText.codePointAt(unit)!;
    unit += code > 0xffff ? 2 : 1;
  }
  return column;
}
