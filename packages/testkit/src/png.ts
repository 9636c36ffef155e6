import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

/** The width and height in a PNG file's header; fails when the file is not a PNG. */
export function pngSize(file: string): { width: number; height: number } {
  const png = readFileSync(file);
  assert.equal(png.subarray(1, 4).toString('latin1'), 'PNG', `${file} is not a PNG file`);
  return { width: png.readUInt32BE(16), height: png.readUInt32BE(20) };
}
