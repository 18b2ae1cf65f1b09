/**
 * The per-file work of a time series and a change layer, run inside the analysis worker threads
 * (analysis-worker.ts) so that reading and decoding never block main's event loop. Files are read
 * with main's GeoTIFF reader (main/geotiff openGeoTiff, geotiff.js underneath) a strip of rows at a
 * time; nodata (GDAL_NODATA, else the sample type's) is never a value.
 */
import type { MultiPolygon, Polygon } from 'geojson';
import { throwIfAborted } from '../../common/abort.js';
import { AoiRasterizer, projectAoi } from '../../common/grid/aoi-mask.js';
import { getProjection, type Projection } from '../../common/grid/projection.js';
import { nodataOf, openGeoTiff, type GeoTiffHeader, type OpenGeoTiff } from '../geotiff/index.js';
import { readPlanFor, type IndexSpec, type ReadPlan } from './expression.js';
import { histogramOf, summarize, type AreaStats, type ValueHistogram } from './stats.js';

/** Rows decoded per read: bounds memory whatever the area. */
const STRIP_ROWS = 256;
/** Most pixels one file's area (or a change layer) may cover: ~200 MB of values at most. */
export const MAX_AREA_PIXELS = 25_000_000;

/** A pixel window [x0, y0, x1, y1) of a file's full-resolution image. */
export type Window = [number, number, number, number];

/** Why a file adds nothing to a result: thrown by the computations, listed with the file by the caller. */
export class SkipError extends Error {
  override name = 'SkipError';
}

/** The file's north-up grid in CRS units, or a SkipError. */
function gridOf(h: GeoTiffHeader): { originX: number; originY: number; pixelSize: number; proj: Projection } {
  if (!h.transform || !h.squarePixels) throw new SkipError('has no north-up georeferencing with square pixels');
  if (h.epsg === null) throw new SkipError('has no EPSG code');
  const proj = getProjection(h.epsg);
  if (!proj) throw new SkipError(`is in EPSG:${h.epsg}; time series and change layers read EPSG:4326, 3857 and WGS 84 UTM files`);
  return { originX: h.transform.originX, originY: h.transform.originY, pixelSize: h.transform.resX, proj };
}

function planOf(spec: IndexSpec, h: GeoTiffHeader): ReadPlan {
  const plan = readPlanFor(spec, h);
  if ('error' in plan) throw new SkipError(plan.error);
  return plan;
}

/**
 * Values of `plan` over `win` (row-major, NaN where any input is nodata or the index is undefined),
 * read a strip of `stripRows` rows at a time (a caller reading whole blocks passes their height, so
 * no block is decoded twice); `keep(row, col)` false also gives NaN (outside the AOI).
 */
export async function readValues(open: OpenGeoTiff, plan: ReadPlan, win: Window, signal: AbortSignal, stripRows = STRIP_ROWS): Promise<Float64Array> {
  const h = open.header;
  const nodata = h.nodata ?? nodataOf(h.dataType);
  const [x0, y0, x1, y1] = win;
  const w = x1 - x0;
  const out = new Float64Array(w * (y1 - y0));
  const samples = plan.reads.map((r) => r.sample);
  for (let ys = y0; ys < y1; ys += stripRows) {
    throwIfAborted(signal);
    const ye = Math.min(y1, ys + stripRows);
    const bands = (await open.image.readRasters({ window: [x0, ys, x1, ye], samples, interleave: false, signal })) as unknown as ArrayLike<number>[];
    const base = (ys - y0) * w;
    const n = (ye - ys) * w;
    const ra = plan.reads[0];
    const a = bands[0]!;
    if (plan.mode === 'value') {
      for (let i = 0; i < n; i++) {
        const d = a[i]!;
        out[base + i] = d === nodata || Number.isNaN(d) ? NaN : d * ra.scale + ra.offset;
      }
    } else {
      const rb = plan.reads[1];
      const b = bands[1]!;
      for (let i = 0; i < n; i++) {
        const da = a[i]!;
        const db = b[i]!;
        if (da === nodata || db === nodata || Number.isNaN(da) || Number.isNaN(db)) {
          out[base + i] = NaN;
          continue;
        }
        const va = da * ra.scale + ra.offset;
        const vb = db * rb.scale + rb.offset;
        const s = va + vb;
        out[base + i] = s === 0 ? NaN : (va - vb) / s;
      }
    }
  }
  return out;
}

/** The AOI's window over a file (pixels that intersect it) and the mask of those pixels, or a SkipError when it misses the file. */
function aoiWindow(h: GeoTiffHeader, aoi: Polygon | MultiPolygon): { win: Window; mask: Uint8Array } {
  const g = gridOf(h);
  const projected = projectAoi(aoi, g.proj);
  if ('error' in projected) throw new SkipError(projected.error);
  const e = projected.envelope;
  const x0 = Math.max(0, Math.floor((e.minX - g.originX) / g.pixelSize));
  const x1 = Math.min(h.width, Math.ceil((e.maxX - g.originX) / g.pixelSize));
  const y0 = Math.max(0, Math.floor((g.originY - e.maxY) / g.pixelSize));
  const y1 = Math.min(h.height, Math.ceil((g.originY - e.minY) / g.pixelSize));
  if (x1 <= x0 || y1 <= y0) throw new SkipError('does not cover the area');
  const w = x1 - x0;
  const rows = y1 - y0;
  if (w * rows > MAX_AREA_PIXELS) throw new SkipError(`covers the area with ${w * rows} pixels; at most ${MAX_AREA_PIXELS} are read per file (use a smaller area)`);
  // Pixels that intersect the AOI (the service's default pixel selection), on this window's grid.
  const mask = new Uint8Array(w * rows);
  new AoiRasterizer(projected.polygons, false).fillRows(
    { originX: g.originX + x0 * g.pixelSize, originY: g.originY - y0 * g.pixelSize, pixelSize: g.pixelSize, width: w, height: rows },
    0, rows, mask,
  );
  return { win: [x0, y0, x1, y1], mask };
}

/** One date of an area series: pixels of the file in the AOI, and the statistics of the valid ones. */
export interface AreaItem {
  kind: 'area';
  /** Pixels of the file that intersect the AOI. */
  pixels: number;
  stats: AreaStats | null;
}

/** One date of a point series: the value of the pixel containing the point (null: nodata). */
export interface PointItem {
  kind: 'point';
  value: number | null;
  /** 0-based column and row of that pixel in the file, and its centre in the file's CRS. */
  col: number;
  row: number;
  centre: [number, number];
}

/** Statistics of `spec` over the pixels of `file` that intersect `aoi` (lon/lat). */
export async function areaItem(file: string, spec: IndexSpec, aoi: Polygon | MultiPolygon, signal: AbortSignal): Promise<AreaItem> {
  const open = await openGeoTiff(file, signal);
  try {
    const plan = planOf(spec, open.header);
    const { win, mask } = aoiWindow(open.header, aoi);
    const values = await readValues(open, plan, win, signal);
    let pixels = 0;
    let valid = 0;
    for (let i = 0; i < mask.length; i++) {
      if (!mask[i]) continue;
      pixels++;
      const v = values[i]!;
      if (Number.isFinite(v)) values[valid++] = v;
    }
    if (pixels === 0) throw new SkipError('does not cover the area');
    return { kind: 'area', pixels, stats: summarize(values.subarray(0, valid)) };
  } finally {
    await open.close();
  }
}

/** The value of `spec` at the pixel of `file` containing lon/lat `point`. */
export async function pointItem(file: string, spec: IndexSpec, point: [number, number], signal: AbortSignal): Promise<PointItem> {
  const open = await openGeoTiff(file, signal);
  try {
    const h = open.header;
    const plan = planOf(spec, h);
    const g = gridOf(h);
    const why = g.proj.invalidReason(point[0], point[1]);
    if (why) throw new SkipError(why);
    const [x, y] = g.proj.forward(point[0], point[1]);
    const col = Math.floor((x - g.originX) / g.pixelSize);
    const row = Math.floor((g.originY - y) / g.pixelSize);
    if (col < 0 || row < 0 || col >= h.width || row >= h.height) throw new SkipError('does not contain the point');
    const v = (await readValues(open, plan, [col, row, col + 1, row + 1], signal))[0]!;
    const centre: [number, number] = [g.originX + (col + 0.5) * g.pixelSize, g.originY - (row + 0.5) * g.pixelSize];
    return { kind: 'point', value: Number.isFinite(v) ? v : null, col, row, centre };
  } finally {
    await open.close();
  }
}

/** A change layer: B minus A on A's grid (B sampled at the nearest pixel to each A pixel centre); NaN is no data. */
export interface ChangeGrid {
  epsg: number;
  geographic: boolean;
  originX: number;
  originY: number;
  pixelSize: number;
  width: number;
  height: number;
  values: Float32Array;
}

/**
 * `spec` at B minus `spec` at A, on A's pixel grid (restricted to the pixels intersecting `aoi` when
 * given). Both A's window and the window of B read under it hold at most `maxPixels`: a B much
 * finer than A would otherwise be read whole at its own resolution.
 */
export async function changeGrid(fileA: string, fileB: string, spec: IndexSpec, aoi: Polygon | MultiPolygon | null, signal: AbortSignal, maxPixels = MAX_AREA_PIXELS): Promise<ChangeGrid> {
  const A = await openGeoTiff(fileA, signal);
  try {
    const B = await openGeoTiff(fileB, signal);
    try {
      const ga = gridOf(A.header);
      const gb = gridOf(B.header);
      const planA = planOf(spec, A.header);
      const planB = planOf(spec, B.header);
      let win: Window = [0, 0, A.header.width, A.header.height];
      let mask: Uint8Array | null = null;
      if (aoi) ({ win, mask } = aoiWindow(A.header, aoi));
      const [x0, y0, x1, y1] = win;
      const w = x1 - x0;
      const rows = y1 - y0;
      if (w * rows > maxPixels) throw new SkipError(`the change layer would have ${w * rows} pixels; at most ${maxPixels} (draw a smaller area)`);
      // Nearest B pixel under each A pixel centre (-1: outside B).
      const bIndex = new Int32Array(w * rows);
      let bx0 = Infinity, by0 = Infinity, bx1 = -Infinity, by1 = -Infinity;
      const same = A.header.epsg === B.header.epsg;
      for (let r = 0; r < rows; r++) {
        if (r % 256 === 0) throwIfAborted(signal);
        const ya = ga.originY - (y0 + r + 0.5) * ga.pixelSize;
        for (let c = 0; c < w; c++) {
          const i = r * w + c;
          if (mask && !mask[i]) { bIndex[i] = -1; continue; }
          let x = ga.originX + (x0 + c + 0.5) * ga.pixelSize;
          let y = ya;
          if (!same) [x, y] = gb.proj.forward(...ga.proj.inverse(x, y));
          const bc = Math.floor((x - gb.originX) / gb.pixelSize);
          const br = Math.floor((gb.originY - y) / gb.pixelSize);
          if (bc < 0 || br < 0 || bc >= B.header.width || br >= B.header.height) { bIndex[i] = -1; continue; }
          bIndex[i] = br * B.header.width + bc;
          if (bc < bx0) bx0 = bc;
          if (bc >= bx1) bx1 = bc + 1;
          if (br < by0) by0 = br;
          if (br >= by1) by1 = br + 1;
        }
      }
      if (!(bx1 > bx0)) throw new SkipError('the two rasters do not overlap over the area');
      const bw = bx1 - bx0;
      if (bw * (by1 - by0) > maxPixels) {
        throw new SkipError(`the second raster is read over ${bw * (by1 - by0)} of its pixels under the area (it is finer than the first); at most ${maxPixels} (draw a smaller area)`);
      }
      const va = await readValues(A, planA, win, signal);
      const vb = await readValues(B, planB, [bx0, by0, bx1, by1], signal);
      const values = new Float32Array(w * rows);
      const W = B.header.width;
      for (let i = 0; i < values.length; i++) {
        const k = bIndex[i]!;
        if (k < 0) { values[i] = NaN; continue; }
        const b = vb[(Math.floor(k / W) - by0) * bw + (k % W) - bx0]!;
        values[i] = b - va[i]!; // NaN when either is no data
      }
      return {
        epsg: A.header.epsg!,
        geographic: A.header.geographic,
        originX: ga.originX + x0 * ga.pixelSize,
        originY: ga.originY - y0 * ga.pixelSize,
        pixelSize: ga.pixelSize,
        width: w,
        height: rows,
        values,
      };
    } finally {
      await B.close();
    }
  } finally {
    await A.close();
  }
}

/** Longest side of the display copy of a change layer sent to the renderer. */
const DISPLAY_MAX = 768;

/** What the renderer is shown of a change layer: a display copy, statistics of the valid values and a histogram. */
export interface ChangeSummary {
  /** Every `step`-th pixel of the grid (nearest), at most {@link DISPLAY_MAX} on a side, as base64 float32. */
  display: { width: number; height: number; step: number; float32: string };
  stats: { valid: number; mean: number | null; median: number | null; p10: number | null; p90: number | null; min: number | null; max: number | null };
  histogram: ValueHistogram;
}

/** A change task's answer: the grid (kept by main for "Save as GeoTIFF") and its summary. */
export interface ChangeResult {
  grid: ChangeGrid;
  summary: ChangeSummary;
}

/**
 * The summary of a change grid, computed next to it in the worker: the statistics sort up to
 * 25 M values, which main's thread must not do.
 */
export function changeSummary(g: ChangeGrid): ChangeSummary {
  const step = Math.max(1, Math.ceil(Math.max(g.width, g.height) / DISPLAY_MAX));
  const width = Math.ceil(g.width / step);
  const height = Math.ceil(g.height / step);
  const out = new Float32Array(width * height);
  const half = Math.floor(step / 2);
  for (let y = 0; y < height; y++) {
    const sy = Math.min(g.height - 1, y * step + half);
    for (let x = 0; x < width; x++) out[y * width + x] = g.values[sy * g.width + Math.min(g.width - 1, x * step + half)]!;
  }
  const valid = new Float64Array(g.values.length);
  let n = 0;
  for (const v of g.values) if (Number.isFinite(v)) valid[n++] = v;
  const s = summarize(valid.subarray(0, n));
  return {
    display: { width, height, step, float32: Buffer.from(out.buffer).toString('base64') },
    stats: { valid: n, mean: s?.mean ?? null, median: s?.median ?? null, p10: s?.p10 ?? null, p90: s?.p90 ?? null, min: s?.min ?? null, max: s?.max ?? null },
    histogram: histogramOf(g.values, 64),
  };
}
