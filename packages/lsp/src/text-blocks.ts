import { unitsOf, type PositionEncoding } from './positions.js';

/**
 * The most UTF-16 code units in a block: small enough that a keystroke's walk and splice stay
 * short on a minified line of megabytes, large enough that a long document has few blocks.
 */
const BLOCK_SIZE = 4096;

const CR = 0x0d;
const LF = 0x0a;

interface Block {
  text: string;
  /** Where a line starts inside `text`, in UTF-16 units: after each `\r\n`, `\r` or `\n`. */
  lineStarts: number[];
  /** The units `text` takes in UTF-32 (code points) and UTF-8; UTF-16 is `text.length`. */
  points: number;
  bytes: number;
}

/** A place in the text: the block, the offset in it, and the text's offset where it starts. */
interface Place {
  index: number;
  offset: number;
  blockStart: number;
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

function blockOf(text: string): Block {
  const lineStarts: number[] = [];
  let points = 0;
  let bytes = 0;
  for (let i = 0; i < text.length;) {
    const code = text.charCodeAt(i);
    if (code === CR && text.charCodeAt(i + 1) !== LF) lineStarts.push(i + 1);
    else if (code === LF) lineStarts.push(i + 1);
    // As `for…of` sees it: a surrogate pair, else the lone unit.
    const point = text.codePointAt(i) as number;
    points += 1;
    bytes += unitsOf(point, 'utf-8');
    i += point > 0xffff ? 2 : 1;
  }
  return { text, lineStarts, points, bytes };
}

/**
 * `text` cut into blocks of at most `size` units, never inside a surrogate pair or a
 * `\r\n`: each block then counts its characters and lines exactly as the whole text would.
 */
function blocksOf(text: string, size: number): Block[] {
  const blocks: Block[] = [];
  for (let start = 0; start < text.length;) {
    let end = Math.min(start + size, text.length);
    if (end < text.length) {
      const before = text.charCodeAt(end - 1);
      const after = text.charCodeAt(end);
      if ((before === CR && after === LF) || (isHighSurrogate(before) && isLowSurrogate(after)))
        end -= 1;
    }
    blocks.push(blockOf(text.slice(start, end)));
    start = end;
  }
  return blocks;
}

function unitsOfBlock(block: Block, encoding: PositionEncoding): number {
  return encoding === 'utf-16'
    ? block.text.length
    : encoding === 'utf-32'
      ? block.points
      : block.bytes;
}

/**
 * A document's text in blocks, with the line starts and character counts of each, so that an
 * edit splices only the blocks it touches and a position walks at most two blocks of its line,
 * however long the line: a keystroke on a minified line of megabytes costs what it costs on a
 * short one. Positions follow `vscode-languageserver-textdocument` exactly: lines past the end
 * mean the end of the text, a character past the end of its line means the line's end.
 */
export class BlockText {
  private blocks: Block[] = [];
  private length = 0;
  /** The whole text, joined when asked and kept until the next edit. */
  private joined: string | undefined;

  /** `blockSize` (at least 2) is for tests, to put block boundaries everywhere. */
  constructor(
    text: string,
    private readonly blockSize = BLOCK_SIZE,
  ) {
    this.replace(text);
  }

  replace(text: string): void {
    this.blocks = blocksOf(text, this.blockSize);
    if (this.blocks.length === 0) this.blocks.push(blockOf(''));
    this.length = text.length;
    this.joined = text;
  }

  text(): string {
    this.joined ??= this.blocks.map((block) => block.text).join('');
    return this.joined;
  }

  /** The text between two UTF-16 offsets, in either order. */
  slice(from: number, to: number): string {
    const start = Math.min(from, to);
    const end = Math.max(from, to);
    if (start === end) return '';
    const place = this.placeOfOffset(start);
    const parts: string[] = [];
    let blockStart = place.blockStart;
    for (let index = place.index; index < this.blocks.length && blockStart < end; index++) {
      const { text } = this.blocks[index] as Block;
      parts.push(text.slice(Math.max(start - blockStart, 0), end - blockStart));
      blockStart += text.length;
    }
    return parts.join('');
  }

  /** Puts `text` between two UTF-16 offsets, in either order. */
  splice(from: number, to: number, text: string): void {
    const start = Math.min(from, to);
    const end = Math.max(from, to);
    const first = this.placeOfOffset(start);
    const last = this.placeOfOffset(end);
    // The block after joins in, so that no new boundary can split a pair or a `\r\n`; the one
    // before needs not: an offset at a boundary is in the block it ends.
    const low = first.index;
    const high = Math.min(last.index + 1, this.blocks.length - 1);
    const lowStart = first.blockStart;
    const region = this.blocks
      .slice(low, high + 1)
      .map((block) => block.text)
      .join('');
    const merged = region.slice(0, start - lowStart) + text + region.slice(end - lowStart);
    const blocks = blocksOf(merged, this.blockSize);
    // A paste of megabytes makes too many blocks to pass as arguments.
    if (blocks.length < 10_000) this.blocks.splice(low, high - low + 1, ...blocks);
    else this.blocks = [...this.blocks.slice(0, low), ...blocks, ...this.blocks.slice(high + 1)];
    if (this.blocks.length === 0) this.blocks.push(blockOf(''));
    this.length += text.length - (end - start);
    this.joined = undefined;
  }

  /** The UTF-16 offset of `character` units of `encoding` on `line`, as the library counts it. */
  offsetAt(line: number, character: number, encoding: PositionEncoding): number {
    if (line >= this.lineCount()) return this.length;
    if (line < 0) return 0;
    const start = this.lineStart(line) as Place;
    const lineOffset = start.blockStart + start.offset;
    if (character <= 0) return lineOffset;
    // UTF-16 counts as given, even inside a surrogate pair, as `TextDocument` does.
    if (encoding === 'utf-16')
      return lineOffset + Math.min(Math.trunc(character), this.contentLength(line, lineOffset));
    return lineOffset + this.walk(start, character, encoding).units16;
  }

  /** How many code points the first `character` units of `encoding` on `line` cover. */
  codePointsAt(line: number, character: number, encoding: PositionEncoding): number {
    const start = line >= 0 ? this.lineStart(line) : undefined;
    return start ? this.walk(start, character, encoding).points : 0;
  }

  /** The block `offset` falls in; at a boundary, the block it ends. */
  private placeOfOffset(offset: number): Place {
    let blockStart = 0;
    const last = this.blocks.length - 1;
    for (let index = 0; index < last; index++) {
      const { length } = (this.blocks[index] as Block).text;
      if (offset <= blockStart + length) return { index, offset: offset - blockStart, blockStart };
      blockStart += length;
    }
    return { index: last, offset: offset - blockStart, blockStart };
  }

  private lineCount(): number {
    let breaks = 0;
    for (const block of this.blocks) breaks += block.lineStarts.length;
    return breaks + 1;
  }

  /** Where `line` starts; `undefined` past the last line. */
  private lineStart(line: number): Place | undefined {
    if (line === 0) return { index: 0, offset: 0, blockStart: 0 };
    let before = 0;
    let blockStart = 0;
    for (let index = 0; index < this.blocks.length; index++) {
      const block = this.blocks[index] as Block;
      if (before + block.lineStarts.length >= line)
        return { index, offset: block.lineStarts[line - before - 1] as number, blockStart };
      before += block.lineStarts.length;
      blockStart += block.text.length;
    }
    return undefined;
  }

  /** The UTF-16 length of `line` without its line break. */
  private contentLength(line: number, lineOffset: number): number {
    const next = this.lineStart(line + 1);
    if (!next) return this.length - lineOffset;
    const { text } = this.blocks[next.index] as Block;
    const crlf = text.charCodeAt(next.offset - 2) === CR && text.charCodeAt(next.offset - 1) === LF;
    return next.blockStart + next.offset - (crlf ? 2 : 1) - lineOffset;
  }

  /**
   * From the line start `from`, the code points and UTF-16 units the first `character` units of
   * `encoding` cover: a count that ends inside a character stops before it, one past the end of
   * the line stops at its end. Whole blocks without a line break are counted, not read.
   */
  private walk(from: Place, character: number, encoding: PositionEncoding) {
    let units = 0;
    let points = 0;
    let units16 = 0;
    let offset = from.offset;
    for (let index = from.index; index < this.blocks.length; index++, offset = 0) {
      const block = this.blocks[index] as Block;
      if (offset === 0 && block.lineStarts.length === 0) {
        const whole = unitsOfBlock(block, encoding);
        if (!(units + whole > character)) {
          units += whole;
          points += block.points;
          units16 += block.text.length;
          continue;
        }
      }
      const { text } = block;
      for (let i = offset; i < text.length;) {
        const code = text.charCodeAt(i);
        if (code === CR || code === LF) return { points, units16 };
        const point = text.codePointAt(i) as number;
        units += unitsOf(point, encoding);
        if (units > character) return { points, units16 };
        const width = point > 0xffff ? 2 : 1;
        points += 1;
        units16 += width;
        i += width;
      }
    }
    return { points, units16 };
  }
}
