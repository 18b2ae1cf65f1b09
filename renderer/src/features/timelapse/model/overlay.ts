/**
 * Where a film frame's burned-in text goes: the date top left, the scale bar bottom left, the
 * sources bottom right, each on its own box, and no two boxes overlapping at any film size (400 to
 * 2,500 px, any aspect). The sources go on one line beside the scale bar when they fit there; else
 * one source a line, still beside it; else those lines above the scale bar, smaller if the frame is
 * too narrow for them. Pure: the painter measures text with its canvas.
 */

/** A box in frame pixels. */
export interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** A line of text at its place (top left of the text, `textBaseline` top) and size. */
export interface PlacedLine {
  text: string;
  x: number;
  y: number;
  px: number;
}

export interface OverlayLayout {
  /** The text size of the date (px) and the padding round every box. */
  unit: number;
  pad: number;
  date: { box: Box; line: PlacedLine };
  scale: { box: Box; bar: Box; label: PlacedLine };
  sources: { box: Box; lines: PlacedLine[] };
}

/** How wide `text` is at `px` pixels (the painter's canvas `measureText` at its font). */
export type Measure = (text: string, px: number, bold: boolean) => number;

/** Whether two boxes overlap (touching edges do not). */
export function overlaps(a: Box, b: Box): boolean {
  return a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
}

/**
 * The layout of a `width` × `height` frame's text: the date label, the scale bar (its share of the
 * width and its label) and the source lines, measured by `measure`.
 */
export function overlayLayout(width: number, height: number, text: { date: string; scaleLabel: string; scaleShare: number; sources: readonly string[] }, measure: Measure): OverlayLayout {
  const unit = Math.max(10, Math.round(Math.min(width, height) / 28));
  const pad = Math.round(unit / 2);
  const small = Math.max(8, Math.round(unit * 0.6));

  const dateW = measure(text.date, unit, true);
  const date = { box: { x: pad, y: pad, width: dateW + pad * 2, height: unit + pad * 2 }, line: { text: text.date, x: pad * 2, y: pad * 2, px: unit } };

  const barW = text.scaleShare * width;
  const barH = Math.max(3, Math.round(small / 3));
  const by = height - pad - small - barH - pad;
  const labelW = measure(text.scaleLabel, small, false);
  const scaleBox = { x: pad, y: by - pad / 2, width: Math.max(barW, labelW) + pad * 2, height: barH + small + pad * 2 };
  const scale = { box: scaleBox, bar: { x: pad * 2, y: by, width: barW, height: barH }, label: { text: text.scaleLabel, x: pad * 2, y: by + barH + 2, px: small } };

  const right = width - pad;
  const beside = scaleBox.x + scaleBox.width + pad;
  /** The lines at `px`, right-aligned, stacked upwards from `bottom`. */
  const block = (lines: readonly string[], px: number, bottom: number): { box: Box; lines: PlacedLine[] } => {
    const widths = lines.map((l) => measure(l, px, false));
    const lineH = Math.round(px * 1.25);
    const w = Math.max(0, ...widths) + pad * 2;
    const h = lineH * lines.length - (lineH - px) + pad * 2;
    const box = { x: right - w, y: bottom - h, width: w, height: h };
    return { box, lines: lines.map((l, i) => ({ text: l, x: right - pad - widths[i]!, y: box.y + pad + i * lineH, px })) };
  };
  const bottom = height - pad;
  const one = block([text.sources.join(' · ')], small, bottom);
  const stacked = block(text.sources, small, bottom);
  let sources = one.box.x >= beside ? one : stacked.box.x >= beside ? stacked : null;
  if (!sources) {
    // Above the scale bar, as wide as the frame allows.
    const room = width - pad * 2;
    const fit = stacked.box.width <= room ? small : Math.max(4, Math.floor((small * (room - pad * 2)) / (stacked.box.width - pad * 2)));
    sources = block(text.sources, fit, scaleBox.y - pad);
  }
  return { unit, pad, date, scale, sources };
}
