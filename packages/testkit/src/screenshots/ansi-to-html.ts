/**
 * A terminal screen captured with its SGR escape sequences (`tmux capture-pane -e`), as HTML:
 * one <span> per run of equally styled characters.
 */

const ESC = String.fromCharCode(27);

/** A terminal's default foreground and background colours. */
export interface TerminalColors {
  fg: string;
  bg: string;
}

interface Style {
  fg?: string;
  bg?: string;
  bold: boolean;
  italic: boolean;
  underline: boolean;
  reverse: boolean;
}

/** The 16 basic colours (xterm's defaults). */
const BASIC = [
  '#000000',
  '#cd0000',
  '#00cd00',
  '#cdcd00',
  '#0000ee',
  '#cd00cd',
  '#00cdcd',
  '#e5e5e5',
  '#7f7f7f',
  '#ff0000',
  '#00ff00',
  '#ffff00',
  '#5c5cff',
  '#ff00ff',
  '#00ffff',
  '#ffffff',
];

function hex(r: number, g: number, b: number): string {
  return `#${[r, g, b].map((c) => c.toString(16).padStart(2, '0')).join('')}`;
}

/** Colour `n` of the 256-colour palette. */
export function paletteColor(n: number): string {
  if (n < 16) return BASIC[n] as string;
  if (n < 232) {
    const level = (c: number) => (c === 0 ? 0 : 55 + c * 40);
    const i = n - 16;
    return hex(level(Math.floor(i / 36)), level(Math.floor(i / 6) % 6), level(i % 6));
  }
  const gray = 8 + (n - 232) * 10;
  return hex(gray, gray, gray);
}

function plain(): Style {
  return { bold: false, italic: false, underline: false, reverse: false };
}

/** Applies one SGR sequence's parameters to `style`. */
function applySgr(style: Style, params: number[]): Style {
  const next = { ...style };
  for (let i = 0; i < params.length; i++) {
    const p = params[i] ?? 0;
    if (p === 0) Object.assign(next, plain(), { fg: undefined, bg: undefined });
    else if (p === 1) next.bold = true;
    else if (p === 3) next.italic = true;
    else if (p === 4) next.underline = true;
    else if (p === 7) next.reverse = true;
    else if (p === 22) next.bold = false;
    else if (p === 23) next.italic = false;
    else if (p === 24) next.underline = false;
    else if (p === 27) next.reverse = false;
    else if (p >= 30 && p <= 37) next.fg = paletteColor(p - 30);
    else if (p >= 90 && p <= 97) next.fg = paletteColor(p - 90 + 8);
    else if (p === 39) next.fg = undefined;
    else if (p >= 40 && p <= 47) next.bg = paletteColor(p - 40);
    else if (p >= 100 && p <= 107) next.bg = paletteColor(p - 100 + 8);
    else if (p === 49) next.bg = undefined;
    else if (p === 38 || p === 48) {
      let color: string | undefined;
      if (params[i + 1] === 5) {
        color = paletteColor(params[i + 2] ?? 0);
        i += 2;
      } else if (params[i + 1] === 2) {
        color = hex(params[i + 2] ?? 0, params[i + 3] ?? 0, params[i + 4] ?? 0);
        i += 4;
      }
      if (p === 38) next.fg = color;
      else next.bg = color;
    }
  }
  return next;
}

function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function css(style: Style, colors: TerminalColors): string {
  let fg = style.fg ?? colors.fg;
  let bg = style.bg ?? colors.bg;
  if (style.reverse) [fg, bg] = [bg, fg];
  const rules = [`color:${fg}`, `background:${bg}`];
  if (style.bold) rules.push('font-weight:bold');
  if (style.italic) rules.push('font-style:italic');
  if (style.underline) rules.push('text-decoration:underline');
  return rules.join(';');
}

/**
 * The screen as HTML lines (a <div> each), `colors` being the terminal's default foreground
 * and background. Every line is padded to `width` columns so backgrounds fill the screen.
 */
export function ansiToHtml(screen: string, width: number, colors: TerminalColors): string {
  let style = plain();
  const lines: string[] = [];
  for (const line of screen.replace(/\n$/, '').split('\n')) {
    const spans: string[] = [];
    let columns = 0;
    const [first, ...sequences] = line.split(ESC);
    const text = (part: string) => {
      if (part === '') return;
      columns += [...part].length;
      spans.push(`<span style="${css(style, colors)}">${escapeHtml(part)}</span>`);
    };
    text(first ?? '');
    for (const sequence of sequences) {
      const sgr = /^\[([0-9;:]*)m/.exec(sequence);
      if (sgr) {
        const params = (sgr[1] ?? '').split(/[;:]/).map((p) => (p === '' ? 0 : Number(p)));
        style = applySgr(style, params);
      }
      text(sgr ? sequence.slice(sgr[0].length) : sequence);
    }
    if (columns < width) {
      spans.push(`<span style="${css(plain(), colors)}">${' '.repeat(width - columns)}</span>`);
    }
    lines.push(`<div>${spans.join('')}</div>`);
  }
  return lines.join('');
}
