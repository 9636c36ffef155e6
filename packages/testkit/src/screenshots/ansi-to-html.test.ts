import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ansiToHtml, paletteColor } from './ansi-to-html.js';

const COLORS = { fg: '#ffffff', bg: '#000000' };

test('styles runs of text and pads each line to the screen width', () => {
  const html = ansiToHtml('\x1b[1;38;2;1;2;3mab\x1b[0m<c\n', 5, COLORS);
  assert.equal(
    html,
    '<div><span style="color:#010203;background:#000000;font-weight:bold">ab</span>' +
      '<span style="color:#ffffff;background:#000000">&lt;c</span>' +
      '<span style="color:#ffffff;background:#000000"> </span></div>',
  );
});

test('reverse video swaps the colours; 256-colour and basic codes map to the palette', () => {
  const html = ansiToHtml('\x1b[7;38;5;196;42mx', 1, COLORS);
  assert.equal(html, '<div><span style="color:#00cd00;background:#ff0000">x</span></div>');
  assert.equal(paletteColor(232), '#080808');
  assert.equal(paletteColor(21), '#0000ff');
});
