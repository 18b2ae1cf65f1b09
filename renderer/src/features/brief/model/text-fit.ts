/**
 * How much room a text takes on the brief's page, worked out without a DOM (the print page runs no
 * script): the advance widths of DejaVu Sans, the page's first font and the widest of those it
 * names (Liberation Sans and Arial are narrower), and the browser's greedy line breaking of
 * `white-space: pre-wrap; overflow-wrap: anywhere`. Characters past ASCII count a full em, which no
 * Latin or CJK glyph exceeds, so the estimate is never short of what Chromium lays out.
 */

/** DejaVu Sans advance widths of ASCII 32..126, in thousandths of an em (regular, then bold). */
const REGULAR = [318, 401, 460, 838, 636, 950, 780, 275, 390, 390, 500, 838, 318, 361, 318, 337, 636, 636, 636, 636, 636, 636, 636, 636, 636, 636, 337, 337, 838, 838, 838, 531, 1000, 684, 686, 698, 770, 632, 575, 775, 752, 295, 295, 656, 557, 863, 748, 787, 603, 787, 695, 635, 611, 732, 684, 989, 685, 611, 685, 390, 337, 390, 838, 500, 500, 613, 635, 550, 635, 615, 352, 635, 634, 278, 278, 579, 278, 974, 634, 612, 635, 635, 411, 521, 392, 634, 592, 818, 592, 592, 525, 636, 337, 636, 838];
const BOLD = [348, 456, 521, 838, 696, 1002, 872, 306, 457, 457, 523, 838, 380, 415, 380, 365, 696, 696, 696, 696, 696, 696, 696, 696, 696, 696, 400, 400, 838, 838, 838, 580, 1000, 774, 762, 734, 830, 683, 683, 821, 837, 372, 372, 775, 637, 995, 837, 850, 733, 850, 770, 720, 682, 812, 774, 1103, 771, 724, 725, 457, 365, 457, 838, 500, 500, 675, 716, 593, 716, 678, 435, 716, 712, 343, 343, 665, 343, 1042, 712, 687, 716, 716, 493, 595, 478, 712, 652, 924, 645, 652, 582, 712, 365, 712, 838];

/** Millimetres of a PostScript point. */
export const PT_MM = 25.4 / 72;

/** The room a line of type takes: its size times the line height, in mm. */
export const lineMm = (pt: number, lineHeight = 1.3): number => pt * PT_MM * lineHeight;

/** The width of `text` set at `pt` points, in mm (a tenth of a per cent over, for rounding). */
export function textWidthMm(text: string, pt: number, bold = false): number {
  const table = bold ? BOLD : REGULAR;
  let em = 0;
  for (const ch of text) {
    const c = ch.codePointAt(0)!;
    em += c >= 32 && c < 127 ? table[c - 32]! : c === 9 ? 8 * table[0]! : 1000;
  }
  return (em / 1000) * pt * PT_MM * 1.001;
}

/**
 * The lines `text` wraps to in a box `widthMm` wide: each paragraph broken before the word that
 * would pass the edge, a word wider than the box broken where it reaches it.
 */
export function wrapLines(text: string, widthMm: number, pt: number, bold = false): string[] {
  const lines: string[] = [];
  for (const paragraph of text.split('\n')) {
    let line = '';
    for (const word of paragraph.split(/(?<= )/)) {
      if (textWidthMm(line + word.trimEnd(), pt, bold) <= widthMm) {
        line += word;
        continue;
      }
      if (line) lines.push(line);
      line = '';
      // A word wider than the box: broken anywhere (overflow-wrap: anywhere).
      let rest = word;
      while (textWidthMm(rest.trimEnd(), pt, bold) > widthMm) {
        const chars = [...rest];
        let n = 1;
        while (n < chars.length && textWidthMm(chars.slice(0, n + 1).join(''), pt, bold) <= widthMm) n++;
        lines.push(chars.slice(0, n).join(''));
        rest = chars.slice(n).join('');
      }
      line = rest;
    }
    lines.push(line);
  }
  return lines;
}

/** A text fitted to a box: the size it is set at, what of it is shown, and whether the rest is cut. */
export interface FittedText {
  pt: number;
  lines: number;
  shown: string;
  cut: boolean;
}

/**
 * `text` in a box of `widthMm` × `heightMm`: at the first of `sizes` (largest first) where all of it
 * fits in whole lines; at the last size otherwise, cut at the last word that fits with room kept for
 * `reserveLines` lines (the page's statement of the cut).
 */
export function fitText(text: string, widthMm: number, heightMm: number, sizes: readonly number[], reserveLines = 0, bold = false): FittedText {
  for (const pt of sizes) {
    const lines = wrapLines(text, widthMm, pt, bold).length;
    if (lines * lineMm(pt) <= heightMm) return { pt, lines, shown: text, cut: false };
  }
  const pt = sizes.at(-1)!;
  const room = Math.max(0, Math.floor(heightMm / lineMm(pt)) - reserveLines);
  const lines = wrapLines(text, widthMm, pt, bold);
  if (room === 0) return { pt, lines: 0, shown: '', cut: text.length > 0 };
  // The text of the first `room` lines, cut back to its last whole word.
  let shown = '';
  let at = 0;
  for (const line of lines.slice(0, room)) {
    const i = text.indexOf(line, at);
    at = (i < 0 ? at : i) + line.length;
  }
  shown = text.slice(0, at);
  const space = shown.search(/\s\S*$/);
  if (space > shown.length / 2) shown = shown.slice(0, space);
  return { pt, lines: room, shown: shown.trimEnd(), cut: true };
}
