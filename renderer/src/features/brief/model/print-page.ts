import {
  frameTicks, mercatorGroundWidth, mercatorLatitude, northArrowSvg, scaleBar, sourceLines, utcDateLabel, utcDatesLabel, type SourceUse,
} from '../../../platform/cartography';

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
  series: BriefSeries | null;
  sources: SourceUse;
  /** When it was made (ms since the epoch). */
  made: number;
}

/** The map box on the sheet and the blocks beside or under it, all in mm. */
export interface BriefLayout {
  margin: number;
  map: { x: number; y: number; width: number; height: number };
  side: { x: number; y: number; width: number; height: number };
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

/** Where the map and the side blocks go: beside the map in landscape, under it in portrait. */
export function briefLayout(sheet: BriefSheet): BriefLayout {
  const margin = 12;
  const header = 20;
  const gutter = 7; // tick labels round the frame
  const footer = 16;
  if (sheet.widthMm > sheet.heightMm) {
    const sideW = 78;
    const map = { x: margin + gutter, y: margin + header + gutter, width: sheet.widthMm - 2 * margin - sideW - 2 * gutter - 6, height: sheet.heightMm - 2 * margin - header - footer - 2 * gutter };
    return { margin, map, side: { x: sheet.widthMm - margin - sideW, y: margin + header, width: sideW, height: sheet.heightMm - 2 * margin - header - footer } };
  }
  const mapH = Math.round(sheet.heightMm * 0.5);
  const map = { x: margin + gutter, y: margin + header + gutter, width: sheet.widthMm - 2 * margin - 2 * gutter, height: mapH };
  const sideY = map.y + mapH + gutter + 4;
  return { margin, map, side: { x: margin, y: sideY, width: sheet.widthMm - 2 * margin, height: sheet.heightMm - margin - footer - sideY } };
}

/** The map's pixel size for a layout's map box at `dpi`. */
export function mapPixels(layout: BriefLayout, dpi: number): { width: number; height: number } {
  return { width: Math.ceil((layout.map.width / 25.4) * dpi), height: Math.ceil((layout.map.height / 25.4) * dpi) };
}

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

/** A legend as HTML with an SVG gradient (vector stops); `of` says whose it is when the page has several rasters. */
function legendHtml(legend: BriefLegend, key: number, of: string | null): string {
  const whose = of ? ` <span class="unit">· ${escapeHtml(of)}</span>` : '';
  if (legend.kind === 'rgb') {
    const rows = legend.channels.map((c) => `<li><b>${c.colour}</b> ${escapeHtml(c.label)}: ${value(c.min)} to ${value(c.max)}</li>`).join('');
    return `<div class="legend"><div class="legend-title">Colour composite (${escapeHtml(legend.unit)})${whose}</div><ul>${rows}</ul></div>`;
  }
  const id = `ramp${key}`;
  const stops = legend.stops.map(([at, colour]) => `<stop offset="${n2(at * 100)}%" stop-color="${escapeHtml(colour)}"/>`).join('');
  return `<div class="legend"><div class="legend-title">${escapeHtml(legend.label)} <span class="unit">(${escapeHtml(legend.unit)})</span>${whose}</div>`
    + `<svg width="60mm" height="9mm" viewBox="0 0 60 9"><defs><linearGradient id="${id}">${stops}</linearGradient></defs>`
    + `<rect x="0" y="0" width="60" height="4" fill="url(#${id})" stroke="#111" stroke-width="0.2"/>`
    + `<text x="0" y="7.5" text-anchor="start">${value(legend.min)}</text><text x="60" y="7.5" text-anchor="end">${value(legend.max)}</text></svg></div>`;
}

/**
 * A legend on one line, for a page of several rasters (a selection's brief): whose it is, a short
 * ramp and its range, or a composite's channels. About 5 mm a raster, so eight fit the side column.
 */
function compactLegendHtml(legend: BriefLegend, key: number, of: string): string {
  if (legend.kind === 'rgb') {
    const chans = legend.channels.map((c) => `${c.colour} ${escapeHtml(c.label)} ${value(c.min)}–${value(c.max)}`).join(', ');
    return `<div class="legend compact"><b>${escapeHtml(of)}</b> <span class="unit">composite (${escapeHtml(legend.unit)}): ${chans}</span></div>`;
  }
  const id = `ramp${key}`;
  const stops = legend.stops.map(([at, colour]) => `<stop offset="${n2(at * 100)}%" stop-color="${escapeHtml(colour)}"/>`).join('');
  return `<div class="legend compact"><b>${escapeHtml(of)}</b> ${escapeHtml(legend.label)} <span class="unit">(${escapeHtml(legend.unit)})</span> `
    + `<svg width="16mm" height="3mm" viewBox="0 0 16 3"><defs><linearGradient id="${id}">${stops}</linearGradient></defs>`
    + `<rect x="0" y="0" width="16" height="3" fill="url(#${id})" stroke="#111" stroke-width="0.2"/></svg> ${value(legend.min)}–${value(legend.max)}</div>`;
}

/** The series chart as SVG in mm: its values over time, dots per date, the axes' ranges labelled. */
function chartSvg(series: BriefSeries, width: number, height: number): string {
  const pts = series.points.filter((p) => p.value !== null && Number.isFinite(p.value)).map((p) => ({ t: Date.parse(`${p.date}T00:00:00Z`), v: p.value!, date: p.date }));
  if (pts.length === 0) return '';
  const t0 = Math.min(...pts.map((p) => p.t));
  const t1 = Math.max(...pts.map((p) => p.t));
  let v0 = Math.min(...pts.map((p) => p.v));
  let v1 = Math.max(...pts.map((p) => p.v));
  if (v1 === v0) { v0 -= 0.5; v1 += 0.5; }
  const left = 12, right = 3, top = 3, bottom = 7;
  const x = (t: number) => left + (t1 === t0 ? 0.5 : (t - t0) / (t1 - t0)) * (width - left - right);
  const y = (v: number) => top + (1 - (v - v0) / (v1 - v0)) * (height - top - bottom);
  const line = pts.map((p, i) => `${i ? 'L' : 'M'}${n2(x(p.t))} ${n2(y(p.v))}`).join(' ');
  const dots = pts.map((p) => `<circle cx="${n2(x(p.t))}" cy="${n2(y(p.v))}" r="0.7" fill="#1f5fa8"/>`).join('');
  return `<svg class="chart" width="${mm(width)}" height="${mm(height)}" viewBox="0 0 ${n2(width)} ${n2(height)}" role="img" aria-label="${escapeHtml(series.label)}">`
    + `<path d="M${left} ${top} V${n2(height - bottom)} H${n2(width - right)}" fill="none" stroke="#111" stroke-width="0.25"/>`
    + `<path d="${line}" fill="none" stroke="#1f5fa8" stroke-width="0.4"/>${dots}`
    + `<text x="${left - 1}" y="${top + 1.5}" text-anchor="end">${value(v1)}</text><text x="${left - 1}" y="${n2(height - bottom)}" text-anchor="end">${value(v0)}</text>`
    + `<text x="${left}" y="${n2(height - 2)}" text-anchor="start">${escapeHtml(pts[0]!.date)}</text><text x="${n2(width - right)}" y="${n2(height - 2)}" text-anchor="end">${escapeHtml(pts.at(-1)!.date)}</text></svg>`;
}

/** The grid line: each raster grid's EPSG (and name), and the map's own. */
export function gridLine(rasters: readonly BriefRaster[]): string {
  const name = (r: BriefRaster): string => (!r.projectionName ? `EPSG:${r.epsg}` : r.projectionName.includes(`EPSG:${r.epsg}`) ? r.projectionName : `EPSG:${r.epsg} (${r.projectionName})`);
  const grids = [...new Map(rasters.filter((r) => r.epsg !== null).map((r) => [r.epsg, name(r)])).values()];
  return `Grid: ${grids.length ? grids.join(', ') : 'none'} · map drawn in EPSG:3857 (Web Mercator), frame in degrees (EPSG:4326)`;
}

/** The print page of a brief on a sheet: its style sheet and body markup. */
export function briefPage(content: BriefContent, sheet: BriefSheet): { style: string; body: string; scaleLabel: string } {
  const layout = briefLayout(sheet);
  const box = layout.map;
  const dates = utcDatesLabel(content.rasters.map((r) => r.date).filter((d): d is string => d !== null));
  const bar = briefScaleBar(content.map, box);
  const path = aoiPath(content.aoi, content.map, box);
  const arrow = northArrowSvg(40, content.map.rotation);
  const several = content.rasters.length > 1;
  const whose = (r: BriefRaster) => (r.date ? utcDateLabel(r.date) : r.title);
  // Past two rasters each legend takes one line, so a selection's page keeps to its side column.
  const legends = content.rasters.map((r, i) => (!r.legend ? '' : content.rasters.length > 2 ? compactLegendHtml(r.legend, i, whose(r)) : legendHtml(r.legend, i, several ? whose(r) : null))).join('');
  // A page of several rasters on one grid names it once (the grid line), not on every raster.
  const oneGrid = content.rasters.length > 2 && new Set(content.rasters.map((r) => r.epsg)).size === 1;
  const rasterList = content.rasters.map((r) => `<li>${escapeHtml(r.title)}${r.date ? ` · <b>${escapeHtml(utcDateLabel(r.date))}</b>` : ''}${r.epsg && !oneGrid ? ` · EPSG:${r.epsg}` : ''}</li>`).join('');
  const side = layout.side;
  const chartW = Math.min(side.width, 90);
  const chart = content.series ? chartSvg(content.series, chartW, 38) : '';
  const sources = sourceLines(content.sources);

  const style = `
* { box-sizing: border-box; }
body { font-family: 'DejaVu Sans', 'Liberation Sans', Arial, Helvetica, sans-serif; color: #111; font-size: 8.5pt; line-height: 1.3; position: relative; background: #fff; }
.abs { position: absolute; }
h1 { margin: 0; font-size: 17pt; line-height: 1.15; font-weight: bold; }
.sub { font-size: 9pt; color: #333; margin-top: 1.2mm; }
.map img { position: absolute; left: 0; top: 0; width: 100%; height: 100%; display: block; }
.map svg.over { position: absolute; left: 0; top: 0; overflow: visible; font-size: 2.3px; }
.north { position: absolute; right: 2.5mm; top: 2.5mm; background: rgba(255,255,255,0.85); padding: 1mm 1.4mm; border-radius: 1mm; line-height: 0; }
svg text { font-family: inherit; fill: #111; }
.scalebar { font-size: 2.6px; display: block; }
.side h2 { font-size: 9.5pt; margin: 0 0 1mm; }
.side section { margin-bottom: 3mm; break-inside: avoid; }
.side ul { margin: 0; padding-left: 4mm; }
.legend { margin-bottom: 2mm; }
.legend-title { font-weight: bold; margin-bottom: 0.8mm; }
.legend svg { font-size: 2.6px; display: block; }
.legend.compact { margin-bottom: 1mm; font-size: 7pt; }
.legend.compact svg { display: inline-block; vertical-align: middle; }
.unit { font-weight: normal; color: #333; }
.chart { font-size: 2.4px; display: block; }
.text { white-space: pre-wrap; overflow-wrap: anywhere; }
.foot { font-size: 7pt; color: #333; }
`;
  const sideStyle = sheet.widthMm > sheet.heightMm ? '' : 'column-count: 2; column-gap: 8mm;';
  const body = `
<header class="abs" style="left:${mm(layout.margin)};top:${mm(layout.margin)};width:${mm(sheet.widthMm - 2 * layout.margin)}">
  <h1 data-part="title">${escapeHtml(content.title)}</h1>
  <div class="sub">${dates ? `<span data-part="dates">${escapeHtml(dates)}</span> · ` : ''}made ${escapeHtml(utcDateLabel(content.made, { time: true }))}</div>
</header>
<div class="abs map" style="left:${mm(box.x)};top:${mm(box.y)};width:${mm(box.width)};height:${mm(box.height)}">
  <img src="${content.map.image}" alt="The map">
  <svg class="over" width="${mm(box.width)}" height="${mm(box.height)}" viewBox="0 0 ${n2(box.width)} ${n2(box.height)}">
    ${path ? `<path d="${path}" fill="none" stroke="#ffffff" stroke-width="1.1" stroke-linejoin="round"/><path d="${path}" fill="none" stroke="#d81b60" stroke-width="0.5" stroke-linejoin="round"/>` : ''}
    ${frameSvg(content.map, box)}
  </svg>
  <div class="north">${arrow}</div>
</div>
<div class="abs side" style="left:${mm(side.x)};top:${mm(side.y)};width:${mm(side.width)};height:${mm(side.height)};${sideStyle}">
  <section><h2>Scale</h2>${bar.svg}</section>
  ${legends ? `<section><h2>Legend</h2>${legends}</section>` : ''}
  <section><h2>Imagery</h2><ul>${rasterList || '<li>No raster on the map</li>'}</ul></section>
  ${content.aoi ? `<section><h2>Area of interest</h2><div>${escapeHtml(content.aoiLabel ?? 'AOI')} (outlined)</div></section>` : ''}
  ${chart ? `<section><h2>${escapeHtml(content.series!.label)} <span class="unit">(${escapeHtml(content.series!.unit)})</span></h2>${chart}</section>` : ''}
  ${content.text.trim() ? `<section><h2>Notes</h2><div class="text">${escapeHtml(content.text.trim())}</div></section>` : ''}
</div>
<footer class="abs foot" style="left:${mm(layout.margin)};bottom:${mm(layout.margin)};width:${mm(sheet.widthMm - 2 * layout.margin)}">
  <div data-part="grid">${escapeHtml(gridLine(content.rasters))}</div>
  <div data-part="sources">Sources: ${escapeHtml(sources.join(' · ') || 'none')}</div>
</footer>`;
  return { style, body, scaleLabel: bar.label };
}
