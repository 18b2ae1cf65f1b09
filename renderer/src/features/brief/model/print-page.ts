import {
  frameTicks, mercatorGroundWidth, mercatorLatitude, northArrowSvg, scaleBar, sourceLines, utcDateLabel, utcDatesLabel, type SourceUse,
} from '../../../platform/cartography';
import { BRIEF_SERIES_MAX } from './limits';
import { fitText, lineMm, wrapLines, type FittedText } from './text-fit';

/**
 * The brief's print page: one sheet laid out in millimetres for its paper (main sets the @page and
 * prints it), text and lines as HTML and SVG (vectors in the PDF), the map as one image at print
 * resolution with the AOI, the frame, the scale bar and the north arrow drawn over it as SVG. Pure:
 * everything it shows comes in {@link BriefContent}; nothing here touches the map or the DOM.
 */

/** Paper and orientation, in millimetres. */
export interface BriefSheet {
  widthMm: number;
  heightMm: number;
}

/** A legend: a ramp with its range and units, or the channels of a colour composite. */
export type BriefLegend =
  | { kind: 'ramp'; label: string; unit: string; min: number; max: number; stops: [number, string][] }
  | { kind: 'rgb'; channels: { colour: 'R' | 'G' | 'B'; label: string; min: number; max: number }[]; unit: string };

/** One raster shown on the map. */
export interface BriefRaster {
  title: string;
  /** YYYY-MM-DD (UTC), or null when the raster has no date. */
  date: string | null;
  /** Its grid's EPSG code, or null when unknown. */
  epsg: number | null;
  projectionName: string | null;
  legend: BriefLegend | null;
}

/** The map as printed: its image and the Web Mercator extent it covers, north up or turned by `rotation`. */
export interface BriefMap {
  /** data:image/png (or jpeg) of the map at print resolution. */
  image: string;
  widthPx: number;
  heightPx: number;
  /** [minX, minY, maxX, maxY] in EPSG:3857 metres. */
  extent: [number, number, number, number];
  /** The view's rotation (radians, clockwise). */
  rotation: number;
}

/** A time series for the chart: one value per date and what it is. */
export interface BriefSeries {
  label: string;
  unit: string;
  points: { date: string; value: number | null }[];
}

/** Everything a brief shows. */
export interface BriefContent {
  title: string;
  text: string;
  map: BriefMap;
  rasters: BriefRaster[];
  /** The AOI's rings, lon/lat (EPSG:4326), or null. */
  aoi: [number, number][][] | null;
  /** The AOI's name or description ("Drawn polygon, 12.4 km²"), or null. */
  aoiLabel: string | null;
  /** The chart's series (none: no chart), at most {@link BRIEF_SERIES_MAX}, each a line of its own. */
  series: BriefSeries[];
  sources: SourceUse;
  /** When it was made (ms since the epoch). */
  made: number;
}


/** What decides the page's blocks: the rasters and their legends, the chart's series, the AOI, the notes, the title. */
export type BriefParts = Pick<BriefContent, 'rasters' | 'series' | 'text' | 'title'> & { aoi: unknown };

/** A box on the sheet, in mm. */
export interface BriefBox { x: number; y: number; width: number; height: number }

/** How the rasters' legends are shown: one block each (one or two rasters, or one legend shared by all), or a line each beside its raster. */
export type LegendMode = 'blocks' | 'rows';

/** A column of blocks beside or under the map: which, where, and the height the chart and the notes get. */
export interface BriefColumn {
  box: BriefBox;
  blocks: ('scale' | 'imagery' | 'aoi' | 'chart' | 'notes')[];
}

/** The map box on the sheet, the side columns and how each part is sized to fit, all in mm. */
export interface BriefLayout {
  margin: number;
  map: BriefBox;
  /** The whole side area: beside the map in landscape, under it in portrait. */
  side: BriefBox;
  columns: BriefColumn[];
  title: { pt: number };
  legends: LegendMode;
  /** The chart's drawing height (its legend rows come under it), or 0 without a chart. */
  chartHeight: number;
  /** The notes as set: their type size and what of them is shown (all, or cut with the page saying so). */
  notes: FittedText | null;
}

const NO_PARTS: BriefParts = { rasters: [], series: [], text: '', title: '', aoi: null };

const MARGIN = 12;
const HEADER = 20;
const GUTTER = 7; // tick labels round the frame
const FOOTER = 16;
const BODY_PT = 8.5;
const ROW_PT = 7;
const SECTION_GAP = 3;
/** A section's heading (9.5 pt) and the space under it. */
const HEAD = lineMm(9.5) + 1;
const LEGEND_BLOCK = { ramp: lineMm(BODY_PT) + 0.8 + 9 + 2, rgb: lineMm(BODY_PT) + 0.8 + 3 * lineMm(BODY_PT) + 2 };
const ROW = lineMm(ROW_PT) + 0.8;
const CHART_MIN = 26;
const CHART_MAX = 62;
/** Type sizes the notes may be set at, largest first: 6.5 pt is the floor of what reads on paper. */
const NOTES_PT = [8.5, 8, 7.5, 7, 6.5];
const TITLE_PT = [17, 15, 13, 11];
/** A portrait map keeps at least this share of the sheet's height; the side area takes what is left of its need. */
const PORTRAIT_MAP_MIN = 0.4;

/** Whether two legends show the same thing (so a page of several rasters shows it once). */
function sameLegend(a: BriefLegend, b: BriefLegend): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** The legends the page shows and how: one block each when few or shared, else a row beside each raster. */
export function legendPlan(rasters: readonly BriefRaster[]): { mode: LegendMode; blocks: BriefLegend[] } {
  const legends = rasters.map((r) => r.legend).filter((l): l is BriefLegend => !!l);
  const distinct = legends.filter((l, i) => legends.findIndex((m) => sameLegend(l, m)) === i);
  if (rasters.length <= 2 || distinct.length <= 1) return { mode: 'blocks', blocks: distinct };
  return { mode: 'rows', blocks: [] };
}

/** The chart's legend: rows of two names each when it draws several series. */
const chartLegendRows = (series: number): number => (series > 1 ? Math.ceil(series / 2) : 0);

/** The height of each fixed block (its heading included). */
function blockHeights(parts: BriefParts): { scale: number; imagery: number; aoi: number; chartOverhead: number } {
  const plan = legendPlan(parts.rasters);
  const rows = Math.max(1, parts.rasters.length);
  const rowH = parts.rasters.length > 2 ? ROW : lineMm(BODY_PT);
  const legends = plan.blocks.reduce((h, l) => h + LEGEND_BLOCK[l.kind], 0);
  const imagery = (plan.blocks.length ? HEAD + legends + SECTION_GAP : 0) + HEAD + rows * rowH;
  const charted = parts.series.filter((s) => s.points.some((p) => p.value !== null && Number.isFinite(p.value))).length;
  return {
    scale: HEAD + 8,
    imagery,
    aoi: parts.aoi ? HEAD + lineMm(BODY_PT) : 0,
    chartOverhead: charted ? HEAD + chartLegendRows(charted) * ROW : -1,
  };
}

/**
 * Where the map and the side blocks go, and how big each part is so that all of them fit the one
 * page: beside the map in landscape (one column), under it in portrait (two columns; the map gives
 * up height, to {@link PORTRAIT_MAP_MIN} of the sheet, when they need it). The chart takes the height
 * the other blocks leave (at least {@link CHART_MIN} mm); the notes are set as large as fits, down
 * to 6.5 pt, and past that cut at a word with the page saying how much is shown.
 */
export function briefLayout(sheet: BriefSheet, parts: BriefParts = NO_PARTS): BriefLayout {
  const h = blockHeights(parts);
  const hasChart = h.chartOverhead >= 0;
  const notes = parts.text.trim();
  const titleWidth = sheet.widthMm - 2 * MARGIN;
  const titleRoom = HEADER - lineMm(9) - 1.2;
  const title = fitText(parts.title, titleWidth, titleRoom, TITLE_PT, 0, true);
  const legends = legendPlan(parts.rasters).mode;

  /** A column's chart and notes in the height `room` left by its fixed blocks. */
  const fill = (room: number, width: number): { chartHeight: number; notes: FittedText | null } => {
    const chartNeed = hasChart ? h.chartOverhead + CHART_MIN + SECTION_GAP : 0;
    let fitted: FittedText | null = null;
    if (notes) fitted = fitText(notes, width, Math.max(0, room - chartNeed - HEAD), NOTES_PT, 1);
    const notesH = fitted ? HEAD + (fitted.lines + (fitted.cut ? 1 : 0)) * lineMm(fitted.pt) + SECTION_GAP : 0;
    const chartHeight = hasChart ? Math.max(CHART_MIN, Math.min(CHART_MAX, room - notesH - h.chartOverhead - SECTION_GAP)) : 0;
    return { chartHeight, notes: fitted };
  };
  /** The height of a column's fixed blocks (the scale, the imagery, the AOI), each with the gap under it. */
  const stacked = (blocks: BriefColumn['blocks']): number => blocks.reduce((sum, b) => sum + (b === 'scale' ? h.scale : b === 'imagery' ? h.imagery : b === 'aoi' ? h.aoi : -SECTION_GAP) + SECTION_GAP, 0);

  if (sheet.widthMm > sheet.heightMm) {
    const sideW = 78;
    const map = { x: MARGIN + GUTTER, y: MARGIN + HEADER + GUTTER, width: sheet.widthMm - 2 * MARGIN - sideW - 2 * GUTTER - 6, height: sheet.heightMm - 2 * MARGIN - HEADER - FOOTER - 2 * GUTTER };
    const side = { x: sheet.widthMm - MARGIN - sideW, y: MARGIN + HEADER, width: sideW, height: sheet.heightMm - 2 * MARGIN - HEADER - FOOTER };
    const blocks: BriefColumn['blocks'] = ['scale', 'imagery', ...(parts.aoi ? ['aoi' as const] : []), ...(hasChart ? ['chart' as const] : []), ...(notes ? ['notes' as const] : [])];
    const { chartHeight, notes: fitted } = fill(side.height - stacked(blocks), side.width);
    return { margin: MARGIN, map, side, columns: [{ box: side, blocks }], title, legends, chartHeight, notes: fitted };
  }

  // Portrait: the scale, the imagery and the AOI on the left; the chart and the notes on the right
  // (the imagery moves right when there is neither).
  const width = sheet.widthMm - 2 * MARGIN;
  const colGap = 8;
  const colW = (width - colGap) / 2;
  const right: BriefColumn['blocks'] = [...(hasChart ? ['chart' as const] : []), ...(notes ? ['notes' as const] : [])];
  const left: BriefColumn['blocks'] = ['scale', ...(right.length ? ['imagery' as const] : []), ...(parts.aoi ? ['aoi' as const] : [])];
  if (!right.length) right.push('imagery');
  const total = sheet.heightMm - MARGIN - HEADER - 2 * GUTTER - 4 - FOOTER - MARGIN;
  const usual = total - Math.round(sheet.heightMm * 0.5);
  const most = total - Math.round(sheet.heightMm * PORTRAIT_MAP_MIN);
  const notesNatural = notes ? HEAD + wrapLines(notes, colW, NOTES_PT[0]!).length * lineMm(NOTES_PT[0]!) + SECTION_GAP : 0;
  const rightNeed = (hasChart ? h.chartOverhead + CHART_MIN + SECTION_GAP : 0) + notesNatural + (right.includes('imagery') ? h.imagery + SECTION_GAP : 0);
  const sideH = Math.min(most, Math.max(usual, stacked(left), rightNeed));
  const mapH = total - sideH;
  const map = { x: MARGIN + GUTTER, y: MARGIN + HEADER + GUTTER, width: width - 2 * GUTTER, height: mapH };
  const sideY = map.y + mapH + GUTTER + 4;
  const side = { x: MARGIN, y: sideY, width, height: sideH };
  const { chartHeight, notes: fitted } = fill(sideH - stacked(right), colW);
  return {
    margin: MARGIN, map, side, title, legends, chartHeight, notes: fitted,
    columns: [{ box: { x: MARGIN, y: sideY, width: colW, height: sideH }, blocks: left }, { box: { x: MARGIN + colW + colGap, y: sideY, width: colW, height: sideH }, blocks: right }],
  };
}

/** The map's pixel size for a layout's map box at `dpi`. */
export function mapPixels(layout: BriefLayout, dpi: number): { width: number; height: number } {
  return { width: Math.ceil((layout.map.width / 25.4) * dpi), height: Math.ceil((layout.map.height / 25.4) * dpi) };
}

/**
 * How much of `text` the notes show on this page: its characters, those shown, and the type size.
 * The dialog says it as the analyst types, so the page's cut is never a surprise.
 */
export function notesRoom(parts: BriefParts, sheet: BriefSheet): { chars: number; shown: number; pt: number; cut: boolean } {
  const notes = briefLayout(sheet, parts).notes;
  return { chars: parts.text.trim().length, shown: notes?.shown.length ?? 0, pt: notes?.pt ?? NOTES_PT[0]!, cut: notes?.cut ?? false };
}

const R = 6378137;
const mercX = (lon: number): number => (R * lon * Math.PI) / 180;
const mercY = (lat: number): number => R * Math.log(Math.tan(Math.PI / 4 + (lat * Math.PI) / 360));
const lonOf = (x: number): number => (x / R) * (180 / Math.PI);

/** Text safe in HTML (element content and attribute values). */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/** Millimetres with two decimals. */
const mm = (v: number): string => `${Number(v.toFixed(2))}mm`;
const n2 = (v: number): string => String(Number(v.toFixed(2)));

/** A value for a legend or chart axis: 3 significant digits. */
function value(v: number): string {
  return Math.abs(v) >= 1000 ? String(Math.round(v)) : String(Number(v.toPrecision(3)));
}

/** The AOI as an SVG path in the map box's mm (0,0 top left), or ''. */
function aoiPath(aoi: [number, number][][] | null, map: BriefMap, box: { width: number; height: number }): string {
  if (!aoi) return '';
  const [minX, minY, maxX, maxY] = map.extent;
  const sx = box.width / (maxX - minX);
  const sy = box.height / (maxY - minY);
  return aoi.map((ring) => ring.map(([lon, lat], i) => `${i ? 'L' : 'M'}${n2((mercX(lon) - minX) * sx)} ${n2((maxY - mercY(lat)) * sy)}`).join(' ') + ' Z').join(' ');
}

/** The frame round the map: a border, degree ticks on every edge, their labels outside. */
function frameSvg(map: BriefMap, box: BriefLayout['map']): string {
  const [minX, minY, maxX, maxY] = map.extent;
  const lons = frameTicks(lonOf(minX), lonOf(maxX), 'lon', Math.max(3, Math.round(box.width / 35)));
  const lats = frameTicks(mercatorLatitude(minY), mercatorLatitude(maxY), 'lat', Math.max(3, Math.round(box.height / 35)));
  const parts: string[] = [`<rect x="0" y="0" width="${n2(box.width)}" height="${n2(box.height)}" fill="none" stroke="#111" stroke-width="0.35"/>`];
  for (const t of lons) {
    const x = ((mercX(t.value) - minX) / (maxX - minX)) * box.width;
    if (x < 0.5 || x > box.width - 0.5) continue;
    parts.push(`<path d="M${n2(x)} 0 v1.6 M${n2(x)} ${n2(box.height)} v-1.6" stroke="#111" stroke-width="0.3"/>`);
    parts.push(`<text x="${n2(x)}" y="-1.2" text-anchor="middle">${escapeHtml(t.label)}</text><text x="${n2(x)}" y="${n2(box.height + 3.2)}" text-anchor="middle">${escapeHtml(t.label)}</text>`);
  }
  for (const t of lats) {
    const y = ((maxY - mercY(t.value)) / (maxY - minY)) * box.height;
    if (y < 0.5 || y > box.height - 0.5) continue;
    parts.push(`<path d="M0 ${n2(y)} h1.6 M${n2(box.width)} ${n2(y)} h-1.6" stroke="#111" stroke-width="0.3"/>`);
    parts.push(`<text x="-1.2" y="${n2(y)}" text-anchor="middle" transform="rotate(-90 -1.2 ${n2(y)})">${escapeHtml(t.label)}</text>`);
    parts.push(`<text x="${n2(box.width + 1.2)}" y="${n2(y)}" text-anchor="middle" transform="rotate(90 ${n2(box.width + 1.2)} ${n2(y)})">${escapeHtml(t.label)}</text>`);
  }
  return parts.join('');
}

/** The scale bar of the map's ground width at its centre's latitude, as SVG in mm, and its label. */
export function briefScaleBar(map: BriefMap, box: { width: number }): { svg: string; label: string } {
  const [minX, minY, maxX, maxY] = map.extent;
  const bar = scaleBar(mercatorGroundWidth(maxX - minX, mercatorLatitude((minY + maxY) / 2)));
  const w = bar.share * box.width;
  const svg = `<svg class="scalebar" width="${mm(w + 16)}" height="${mm(8)}" viewBox="0 0 ${n2(w + 16)} 8">`
    + `<rect x="1" y="1" width="${n2(w / 2)}" height="1.6" fill="#111"/><rect x="${n2(1 + w / 2)}" y="1" width="${n2(w / 2)}" height="1.6" fill="#fff" stroke="#111" stroke-width="0.25"/>`
    + `<rect x="1" y="1" width="${n2(w)}" height="1.6" fill="none" stroke="#111" stroke-width="0.25"/>`
    + `<text x="1" y="6" text-anchor="start">0</text><text x="${n2(1 + w)}" y="6" text-anchor="middle">${escapeHtml(bar.label)}</text></svg>`;
  return { svg, label: bar.label };
}

/** A legend as a block: its ramp (an SVG gradient, vector stops) with its range and units, or a composite's channels; `of` says whose when the page has several. */
function legendHtml(legend: BriefLegend, key: number, of: string | null, width: number): string {
  const whose = of ? ` <span class="unit">· ${escapeHtml(of)}</span>` : '';
  if (legend.kind === 'rgb') {
    const rows = legend.channels.map((c) => `<li><b>${c.colour}</b> ${escapeHtml(c.label)}: ${value(c.min)} to ${value(c.max)}</li>`).join('');
    return `<div class="legend"><div class="legend-title line">Colour composite (${escapeHtml(legend.unit)})${whose}</div><ul>${rows}</ul></div>`;
  }
  const id = `ramp${key}`;
  const w = Math.min(60, width - 2);
  const stops = legend.stops.map(([at, colour]) => `<stop offset="${n2(at * 100)}%" stop-color="${escapeHtml(colour)}"/>`).join('');
  return `<div class="legend"><div class="legend-title line">${escapeHtml(legend.label)} <span class="unit">(${escapeHtml(legend.unit)})</span>${whose}</div>`
    + `<svg width="${mm(w)}" height="9mm" viewBox="0 0 ${n2(w)} 9"><defs><linearGradient id="${id}">${stops}</linearGradient></defs>`
    + `<rect x="0" y="0" width="${n2(w)}" height="4" fill="url(#${id})" stroke="#111" stroke-width="0.2"/>`
    + `<text x="0" y="7.5" text-anchor="start">${value(legend.min)}</text><text x="${n2(w)}" y="7.5" text-anchor="end">${value(legend.max)}</text></svg></div>`;
}

/** A legend on one line, beside its raster's date and name: a short ramp and its range, or a composite's channels. */
function compactLegendHtml(legend: BriefLegend, key: number): string {
  if (legend.kind === 'rgb') {
    return `<span class="unit">RGB ${legend.channels.map((c) => `${escapeHtml(c.label)} ${value(c.min)}–${value(c.max)}`).join(', ')}</span>`;
  }
  const id = `ramp${key}`;
  const stops = legend.stops.map(([at, colour]) => `<stop offset="${n2(at * 100)}%" stop-color="${escapeHtml(colour)}"/>`).join('');
  return `${escapeHtml(legend.label)} <svg width="12mm" height="2.4mm" viewBox="0 0 12 2.4"><defs><linearGradient id="${id}">${stops}</linearGradient></defs>`
    + `<rect x="0" y="0" width="12" height="2.4" fill="url(#${id})" stroke="#111" stroke-width="0.2"/></svg> ${value(legend.min)}–${value(legend.max)}`;
}

/** The chart's line colours (Okabe–Ito and two more), one a series, told apart on paper and by most colour-blind readers. */
export const SERIES_COLOURS = ['#0072b2', '#d55e00', '#009e73', '#cc79a7', '#e69f00', '#56b4e9', '#000000', '#8c6d31'];

/** The series chart as SVG in mm: each series' values over time on shared axes, a dot per date, the ranges labelled. */
function chartSvg(series: readonly BriefSeries[], width: number, height: number): string {
  const lines = series.map((s) => s.points.filter((p) => p.value !== null && Number.isFinite(p.value)).map((p) => ({ t: Date.parse(`${p.date}T00:00:00Z`), v: p.value!, date: p.date })));
  const all = lines.flat();
  if (all.length === 0) return '';
  const t0 = Math.min(...all.map((p) => p.t));
  const t1 = Math.max(...all.map((p) => p.t));
  let v0 = Math.min(...all.map((p) => p.v));
  let v1 = Math.max(...all.map((p) => p.v));
  if (v1 === v0) { v0 -= 0.5; v1 += 0.5; }
  const left = 12, right = 3, top = 3, bottom = 7;
  const x = (t: number) => left + (t1 === t0 ? 0.5 : (t - t0) / (t1 - t0)) * (width - left - right);
  const y = (v: number) => top + (1 - (v - v0) / (v1 - v0)) * (height - top - bottom);
  const first = all.reduce((a, b) => (b.t < a.t ? b : a));
  const last = all.reduce((a, b) => (b.t > a.t ? b : a));
  const drawn = lines.map((pts, i) => {
    if (!pts.length) return '';
    const colour = SERIES_COLOURS[i % SERIES_COLOURS.length]!;
    const d = pts.map((p, k) => `${k ? 'L' : 'M'}${n2(x(p.t))} ${n2(y(p.v))}`).join(' ');
    return `<path d="${d}" fill="none" stroke="${colour}" stroke-width="0.4"/>${pts.map((p) => `<circle cx="${n2(x(p.t))}" cy="${n2(y(p.v))}" r="0.7" fill="${colour}"/>`).join('')}`;
  }).join('');
  return `<svg class="chart" width="${mm(width)}" height="${mm(height)}" viewBox="0 0 ${n2(width)} ${n2(height)}" role="img" aria-label="${escapeHtml(series.map((s) => s.label).join(', '))}">`
    + `<path d="M${left} ${top} V${n2(height - bottom)} H${n2(width - right)}" fill="none" stroke="#111" stroke-width="0.25"/>${drawn}`
    + `<text x="${left - 1}" y="${top + 1.5}" text-anchor="end">${value(v1)}</text><text x="${left - 1}" y="${n2(height - bottom)}" text-anchor="end">${value(v0)}</text>`
    + `<text x="${left}" y="${n2(height - 2)}" text-anchor="start">${escapeHtml(first.date)}</text><text x="${n2(width - right)}" y="${n2(height - 2)}" text-anchor="end">${escapeHtml(last.date)}</text></svg>`;
}

/** The chart's legend when it draws several series: each one's colour and name, two to a row. */
function chartLegendHtml(series: readonly BriefSeries[]): string {
  if (series.length < 2) return '';
  return `<div class="chart-legend">${series.map((s, i) => `<div class="line row"><svg width="4mm" height="2mm" viewBox="0 0 4 2"><path d="M0 1 H4" stroke="${SERIES_COLOURS[i % SERIES_COLOURS.length]}" stroke-width="0.6"/></svg> ${escapeHtml(s.label)}</div>`).join('')}</div>`;
}

/** The grid line: each raster grid's EPSG (and name), and the map's own. */
export function gridLine(rasters: readonly BriefRaster[]): string {
  const name = (r: BriefRaster): string => (!r.projectionName ? `EPSG:${r.epsg}` : r.projectionName.includes(`EPSG:${r.epsg}`) ? r.projectionName : `EPSG:${r.epsg} (${r.projectionName})`);
  const grids = [...new Map(rasters.filter((r) => r.epsg !== null).map((r) => [r.epsg, name(r)])).values()];
  return `Grid: ${grids.length ? grids.join(', ') : 'none'} · map drawn in EPSG:3857 (Web Mercator), frame in degrees (EPSG:4326)`;
}

/** The print page of a brief on a sheet: its style sheet and body markup, laid out by {@link briefLayout} so every part fits the one page. */
export function briefPage(content: BriefContent, sheet: BriefSheet): { style: string; body: string; scaleLabel: string; layout: BriefLayout } {
  const series = content.series.filter((s) => s.points.some((p) => p.value !== null && Number.isFinite(p.value))).slice(0, BRIEF_SERIES_MAX);
  const layout = briefLayout(sheet, { ...content, series });
  const box = layout.map;
  const dates = utcDatesLabel(content.rasters.map((r) => r.date).filter((d): d is string => d !== null));
  const bar = briefScaleBar(content.map, box);
  const path = aoiPath(content.aoi, content.map, box);
  const arrow = northArrowSvg(40, content.map.rotation);
  const whose = (r: BriefRaster) => (r.date ? utcDateLabel(r.date) : r.title);
  const plan = legendPlan(content.rasters);
  // A page of several rasters on one grid names it once (the grid line), not on every raster.
  const oneGrid = content.rasters.length > 2 && new Set(content.rasters.map((r) => r.epsg)).size === 1;
  const rowClass = content.rasters.length > 2 ? 'line row' : 'line';
  const rasterRow = (r: BriefRaster, i: number): string => {
    const date = r.date ? `<b>${escapeHtml(utcDateLabel(r.date))}</b> ` : '';
    const legend = plan.mode === 'rows' && r.legend ? `${compactLegendHtml(r.legend, i)} · ` : '';
    return `<div class="${rowClass}">${date}${legend}${escapeHtml(r.title)}${r.epsg && !oneGrid ? ` · EPSG:${r.epsg}` : ''}</div>`;
  };
  const sources = sourceLines(content.sources);
  const units = [...new Set(series.map((s) => s.unit))];
  const chartTitle = series.length === 1 ? escapeHtml(series[0]!.label) : `Time series of ${series.length} fields`;
  const notes = layout.notes;

  const section = (block: BriefColumn['blocks'][number], width: number): string => {
    switch (block) {
      case 'scale': return `<section data-part="scale"><h2>Scale</h2>${bar.svg}</section>`;
      case 'imagery': {
        const legends = plan.blocks.map((l, i) => legendHtml(l, i, plan.blocks.length > 1 ? whose(content.rasters.find((r) => r.legend && sameLegend(r.legend, l))!) : null, width)).join('');
        return (legends ? `<section data-part="legend"><h2>Legend</h2>${legends}</section>` : '')
          + `<section data-part="imagery"><h2>Imagery</h2>${content.rasters.map(rasterRow).join('') || '<div class="line">No raster on the map</div>'}</section>`;
      }
      case 'aoi': return `<section data-part="aoi"><h2>Area of interest</h2><div class="line">${escapeHtml(content.aoiLabel ?? 'AOI')} (outlined)</div></section>`;
      case 'chart': return `<section data-part="chart"><h2 class="line">${chartTitle}${units.length === 1 ? ` <span class="unit">(${escapeHtml(units[0]!)})</span>` : ''}</h2>${chartSvg(series, Math.min(width, 110), layout.chartHeight)}${chartLegendHtml(series)}</section>`;
      case 'notes': return !notes ? '' : `<section data-part="notes" style="font-size:${notes.pt}pt"><h2>Notes</h2><div class="text">${escapeHtml(notes.shown)}</div>`
        + (notes.cut ? `<div class="cut" data-part="notes-cut">[Cut: ${notes.shown.length} of ${content.text.trim().length} characters shown]</div>` : '') + '</section>';
    }
  };

  const style = `
* { box-sizing: border-box; }
body { font-family: 'DejaVu Sans', 'Liberation Sans', Arial, Helvetica, sans-serif; color: #111; font-size: ${BODY_PT}pt; line-height: 1.3; position: relative; background: #fff; }
.abs { position: absolute; }
h1 { margin: 0; font-size: ${layout.title.pt}pt; line-height: 1.15; font-weight: bold; overflow-wrap: anywhere; }
.sub { font-size: 9pt; color: #333; margin-top: 1.2mm; }
.line { white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
.map img { position: absolute; left: 0; top: 0; width: 100%; height: 100%; display: block; }
.map svg.over { position: absolute; left: 0; top: 0; overflow: visible; font-size: 2.3px; }
.north { position: absolute; right: 2.5mm; top: 2.5mm; background: rgba(255,255,255,0.85); padding: 1mm 1.4mm; border-radius: 1mm; line-height: 0; }
svg text { font-family: inherit; fill: #111; }
.scalebar { font-size: 2.6px; display: block; }
.side h2 { font-size: 9.5pt; line-height: 1.3; margin: 0 0 1mm; }
.side section { margin-bottom: ${SECTION_GAP}mm; }
.side ul { margin: 0; padding-left: 4mm; }
.legend { margin-bottom: 2mm; }
.legend-title { font-weight: bold; margin-bottom: 0.8mm; }
.legend svg { font-size: 2.6px; display: block; }
.row { font-size: ${ROW_PT}pt; line-height: 1.3; margin-bottom: 0.8mm; }
.row svg { display: inline-block; vertical-align: middle; }
.unit { font-weight: normal; color: #333; }
.chart { font-size: 2.4px; display: block; }
.chart-legend { display: grid; grid-template-columns: 1fr 1fr; column-gap: 2mm; }
.text { white-space: pre-wrap; overflow-wrap: anywhere; }
.cut { font-style: italic; color: #333; }
.foot { font-size: 7pt; color: #333; }
`;
  const columns = layout.columns.map((c) => `<div class="abs side" style="left:${mm(c.box.x)};top:${mm(c.box.y)};width:${mm(c.box.width)};height:${mm(c.box.height)}">${c.blocks.map((b) => section(b, c.box.width)).join('')}</div>`).join('\n');
  const title = fitText(content.title, sheet.widthMm - 2 * MARGIN, HEADER - lineMm(9) - 1.2, [layout.title.pt], 0, true);
  const body = `
<header class="abs" style="left:${mm(layout.margin)};top:${mm(layout.margin)};width:${mm(sheet.widthMm - 2 * layout.margin)};height:${mm(HEADER)}">
  <h1 data-part="title">${escapeHtml(title.cut ? `${title.shown}…` : content.title)}</h1>
  <div class="sub line">${dates ? `<span data-part="dates">${escapeHtml(dates)}</span> · ` : ''}made ${escapeHtml(utcDateLabel(content.made, { time: true }))}</div>
</header>
<div class="abs map" style="left:${mm(box.x)};top:${mm(box.y)};width:${mm(box.width)};height:${mm(box.height)}">
  <img src="${content.map.image}" alt="The map">
  <svg class="over" width="${mm(box.width)}" height="${mm(box.height)}" viewBox="0 0 ${n2(box.width)} ${n2(box.height)}">
    ${path ? `<path d="${path}" fill="none" stroke="#ffffff" stroke-width="1.1" stroke-linejoin="round"/><path d="${path}" fill="none" stroke="#d81b60" stroke-width="0.5" stroke-linejoin="round"/>` : ''}
    ${frameSvg(content.map, box)}
  </svg>
  <div class="north">${arrow}</div>
</div>
${columns}
<footer class="abs foot" style="left:${mm(layout.margin)};bottom:${mm(layout.margin)};width:${mm(sheet.widthMm - 2 * layout.margin)}">
  <div data-part="grid">${escapeHtml(gridLine(content.rasters))}</div>
  <div data-part="sources">Sources: ${escapeHtml(sources.join(' · ') || 'none')}</div>
</footer>`;
  return { style, body, scaleLabel: bar.label, layout };
}
