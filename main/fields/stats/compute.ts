/**
 * The work of a statistics run inside a worker thread: a chunk of parcels over the rasters of one
 * grid. The chunk's coverage is computed once (its geometries projected to the grid) or given from
 * the cache, then each raster is read in strips of whole block rows across the chunk's columns
 * (read.ts: nodata, scale and offset, the index), and every parcel's statistics taken from the
 * strip that holds its window.
 */
import proj4 from 'proj4';
import { throwIfAborted } from '../../../common/abort.js';
import { getProjection } from '../../../common/grid/projection.js';
import { readPlanFor, type IndexSpec } from '../../analysis/expression.js';
import { openGeoTiff, type GeoTiffHeader } from '../../geotiff/index.js';
import { CoverageError, coverageOf, type PixelGrid, type PixelRule } from './coverage.js';
import { chunkBytes, chunkOf, decodeChunk, encodeChunk, gridKeyOf, RESULT_FIELDS, unpackParcel, windowOf, type CoverageChunk, type PackedParcels, type RasterResults } from './packed.js';
import { readWindow, type WantedRuns } from './read.js';
import { weightedStats } from './statistics.js';

/** The parcels' CRS as the set records it. */
export interface ParcelCrsRef {
  epsg: number | null;
  proj4: string;
}

/** One task: a chunk of parcels over rasters sharing one grid. */
export interface FieldsTask {
  op: 'fields';
  gridKey: string;
  files: { rasterId: string; file: string }[];
  spec: IndexSpec;
  rule: PixelRule;
  crs: ParcelCrsRef;
  /** The chunk's geometries, in the set's CRS. */
  parcels: PackedParcels;
  /** The chunk's cached coverage, compressed (packed.ts encodeChunk): decoded here, never on main's thread. */
  coverage: Uint8Array | null;
}

/**
 * A task's answer: the coverage it computed, compressed for the cache (null when the given one was
 * used), the parcels without coverage and why, and each raster's results or why it was skipped.
 */
export interface FieldsTaskResult {
  coverage: { blob: Uint8Array; bytes: number } | null;
  parcelErrors: { index: number; reason: string }[];
  rasters: (RasterResults | { rasterId: string; skip: string })[];
}

/** Progress of a task: parcel results of one more raster are done. */
export interface FieldsProgress {
  results: number;
}

/** Most values the strip buffer holds (128 MB of doubles); a chunk wider than that reads each parcel's own window. */
const MAX_STRIP_VALUES = 16_000_000;

/** A parcel whose window is taller than this many strips reads its own window instead of the strip's rows. */
const TALL = 2;

/** Why a raster cannot be read on this grid (thrown by the grid checks, reported per raster). */
class RasterSkip extends Error {}

/** The north-up pixel grid of a header and its EPSG, or a RasterSkip. */
export function pixelGridOf(h: GeoTiffHeader): { epsg: number; grid: PixelGrid } {
  if (!h.transform || !(h.transform.resX > 0) || !(h.transform.resY < 0)) throw new RasterSkip('has no north-up georeferencing');
  if (h.epsg === null) throw new RasterSkip('has no EPSG code');
  const t = h.transform;
  return { epsg: h.epsg, grid: { originX: t.originX, originY: t.originY, resX: t.resX, resY: t.resY, width: h.width, height: h.height } };
}

/** The function taking a parcel's coordinates to the grid's CRS (vertices projected; edges are not densified). */
export function projectorTo(crs: ParcelCrsRef, epsg: number): (x: number, y: number) => [number, number] {
  if (crs.epsg === epsg) return (x, y) => [x, y];
  const target = getProjection(epsg);
  if (!target) throw new RasterSkip(`is in EPSG:${epsg}; parcels are projected to EPSG:4326, 3857 and WGS 84 UTM rasters`);
  const toLonLat = crs.epsg === 4326 ? null : proj4(crs.proj4, 'EPSG:4326');
  return (x, y) => {
    const [lon, lat] = toLonLat ? (toLonLat.forward([x, y]) as [number, number]) : [x, y];
    return target.forward(lon, lat);
  };
}

/** The coverage of packed parcels on a grid (projected from `crs`). */
export function computeChunk(parcels: PackedParcels, crs: ParcelCrsRef, epsg: number, grid: PixelGrid, rule: PixelRule, signal?: AbortSignal): CoverageChunk {
  const project = projectorTo(crs, epsg);
  const coverages = Array.from(parcels.indices, (_, k) => {
    if (k % 256 === 0) throwIfAborted(signal);
    const parts = unpackParcel(parcels, k).map((rings) => rings.map((ring) => ring.map(([x, y]) => project(x!, y!))));
    try {
      return coverageOf(parts, grid, rule);
    } catch (e) {
      if (e instanceof CoverageError) return e.message;
      throw e;
    }
  });
  return chunkOf(gridKeyOf(epsg, grid), rule, parcels.indices, coverages);
}

/** Runs a task: the coverage (computed from the first readable raster's grid, or given), then every raster's results. */
export async function runFieldsTask(task: FieldsTask, signal: AbortSignal, progress: (p: FieldsProgress) => void): Promise<FieldsTaskResult> {
  let coverage = task.coverage ? decodeChunk(task.coverage) : null;
  // A cached chunk of other parcels, rule or grid (the set or the file changed) is not used.
  if (coverage && (coverage.rule !== task.rule || coverage.gridKey !== task.gridKey || !sameIndices(coverage.indices, task.parcels.indices))) coverage = null;
  let computed: CoverageChunk | null = null;
  const rasters: FieldsTaskResult['rasters'] = [];
  for (const f of task.files) {
    throwIfAborted(signal);
    let open;
    try {
      open = await openGeoTiff(f.file, signal);
    } catch (e) {
      throwIfAborted(signal);
      rasters.push({ rasterId: f.rasterId, skip: `could not be read: ${(e as Error).message}` });
      continue;
    }
    try {
      const { epsg, grid } = pixelGridOf(open.header);
      if (gridKeyOf(epsg, grid) !== task.gridKey) throw new RasterSkip('has changed on disk since the run was planned (its grid differs)');
      const plan = readPlanFor(task.spec, open.header);
      if ('error' in plan) throw new RasterSkip(plan.error);
      if (!coverage) {
        coverage = computed = computeChunk(task.parcels, task.crs, epsg, grid, task.rule, signal);
      }
      // Strips of whole blocks (tiles or the file's strips), at least 256 rows.
      const b = Math.max(1, open.header.blockRows);
      const stripRows = b * Math.ceil(256 / b);
      rasters.push(await rasterResults(f.rasterId, coverage, (win, into, wanted) => readWindow(open, plan, win, signal, stripRows, into, wanted), { width: grid.width, height: grid.height, stripRows }, signal));
      progress({ results: coverage.indices.length });
    } catch (e) {
      if (!(e instanceof RasterSkip)) throw e;
      rasters.push({ rasterId: f.rasterId, skip: e.message });
    } finally {
      await open.close();
    }
  }
  return { coverage: computed ? { blob: encodeChunk(computed), bytes: chunkBytes(computed) } : null, parcelErrors: coverage?.errors ?? [], rasters };
}

function sameIndices(a: Int32Array, b: Int32Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * The statistics of every parcel of a chunk that meets the raster (its window is not empty), from
 * values read by `read` (a window's values, row-major, NaN where invalid; written into `into` when
 * the reader can, else returned).
 */
export async function rasterResults(
  rasterId: string,
  c: CoverageChunk,
  read: (win: [number, number, number, number], into?: Float64Array, wanted?: WantedRuns) => Promise<Float64Array>,
  raster: { width: number; height: number; stripRows: number },
  signal?: AbortSignal,
): Promise<RasterResults> {
  const n = c.indices.length;
  // Parcels meeting the raster, by the top row of their window.
  const order: number[] = [];
  let cx0 = Infinity, cx1 = -Infinity, maxCells = 0;
  for (let k = 0; k < n; k++) {
    const [x0, , x1] = windowOf(c, k);
    if (x1 <= x0) continue;
    order.push(k);
    cx0 = Math.min(cx0, x0);
    cx1 = Math.max(cx1, x1);
    maxCells = Math.max(maxCells, c.cellStart[k + 1]! - c.cellStart[k]!);
  }
  order.sort((a, b) => c.windows[4 * a + 1]! - c.windows[4 * b + 1]!);
  const parcels = new Int32Array(order.length);
  const values = new Float64Array(order.length * RESULT_FIELDS);
  const v = new Float64Array(maxCells);
  const w = c.weights ? new Float64Array(maxCells) : null;
  const bw = Math.max(0, Math.min(raster.width, cx1) - cx0);
  // Strips start and end on block rows (stripRows is a multiple of the block height), so each block is decoded once per chunk.
  const B = raster.stripRows;
  const strips = bw * B * 3 <= MAX_STRIP_VALUES;
  // One strip buffer for the whole raster: rows kept from the strip before are moved to its start
  // and the new rows read in after them (no strip allocated, nor copied, per strip).
  let buf = new Float64Array(0);
  let bufY0 = 0, bufY1 = 0;
  for (let j = 0; j < order.length; j++) {
    const k = order[j]!;
    if (j % 64 === 0) throwIfAborted(signal);
    const [x0, y0, x1, y1] = windowOf(c, k);
    let src: Float64Array, srcX0: number, srcY0: number, srcW: number;
    if (!strips || y1 - y0 > TALL * B) {
      src = await read([x0, y0, x1, y1]);
      srcX0 = x0; srcY0 = y0; srcW = x1 - x0;
    } else {
      if (y1 > bufY1 || y0 < bufY0) {
        // The next strip starts at the block row of this window's top (every later window starts at or
        // below it) and ends at a block row's end; rows already read are kept.
        const start = Math.floor(y0 / B) * B;
        const end = Math.min(raster.height, Math.ceil(y1 / B) * B);
        const need = (end - start) * bw;
        const keep = start >= bufY0 && start < bufY1;
        const kept = keep ? buf.subarray((start - bufY0) * bw, (bufY1 - bufY0) * bw) : null;
        if (need > buf.length) {
          const grown = new Float64Array(need);
          if (kept) grown.set(kept);
          buf = grown;
        } else if (kept) buf.copyWithin(0, (start - bufY0) * bw, (bufY1 - bufY0) * bw);
        const from = keep ? bufY1 : start;
        if (end > from) {
          const dest = buf.subarray((from - start) * bw, need);
          const got = await read([cx0, from, cx0 + bw, end], dest, wantedRuns(c, order, j, from, end, TALL * B));
          if (got.buffer !== buf.buffer) dest.set(got);
        }
        bufY0 = start; bufY1 = end;
      }
      src = buf; srcX0 = cx0; srcY0 = bufY0; srcW = bw;
    }
    const ww = x1 - x0;
    const base = (y0 - srcY0) * srcW + x0 - srcX0;
    const end = c.cellStart[k + 1]!;
    let m = 0;
    // The covered and the valid weight are summed in the same order over the same weights, so a
    // parcel whose covered pixels are all valid has a valid share of exactly 1.
    let covered = 0;
    let valid = 0;
    // Cells come row by row: the row is found by division only when a cell leaves the row before.
    let rowStart = 0;
    let rowAt = base;
    const weights = c.weights;
    for (let i = c.cellStart[k]!; i < end; i++) {
      const off = c.cells[i]!;
      if (off < rowStart || off >= rowStart + ww) {
        const r = Math.floor(off / ww);
        rowStart = r * ww;
        rowAt = base + r * srcW;
      }
      const val = src[rowAt + off - rowStart]!;
      if (weights) {
        const weight = weights[i]!;
        covered += weight;
        if (!Number.isFinite(val)) continue;
        valid += weight;
        w![m] = weight;
      } else {
        covered++;
        if (!Number.isFinite(val)) continue;
        valid++;
      }
      v[m++] = val;
    }
    const s = weightedStats(v, w, m);
    const o = j * RESULT_FIELDS;
    parcels[j] = c.indices[k]!;
    values[o] = s?.mean ?? NaN;
    values[o + 1] = s?.min ?? NaN;
    values[o + 2] = s?.max ?? NaN;
    values[o + 3] = s?.std ?? NaN;
    values[o + 4] = s?.median ?? NaN;
    values[o + 5] = s?.p10 ?? NaN;
    values[o + 6] = s?.p90 ?? NaN;
    values[o + 7] = valid;
    values[o + 8] = c.areaPx[k]! > 0 ? covered / c.areaPx[k]! : 0;
    values[o + 9] = covered > 0 ? valid / covered : 0;
  }
  return { rasterId, parcels, values };
}

/**
 * The columns of rows [from, end) that the parcels from `order[j]` on read from the strip (their
 * windows' columns, merged per row): every parcel before j has finished with the rows kept from
 * the strip before, and every parcel from j whose window starts above `end` reads these rows from
 * the strip unless its window is taller than `tall` rows (it reads its own).
 */
export function wantedRuns(c: CoverageChunk, order: number[], j: number, from: number, end: number, tall: number): WantedRuns {
  const rows = end - from;
  const win = c.windows;
  const users: number[] = [];
  for (let q = j; q < order.length; q++) {
    const k = order[q]!;
    const y0 = win[4 * k + 1]!;
    if (y0 >= end) break;
    const y1 = win[4 * k + 3]!;
    if (y1 > from && y1 - y0 <= tall) users.push(k);
  }
  // By left edge, so each row's windows come in column order.
  users.sort((a, b) => win[4 * a]! - win[4 * b]!);
  const count = new Int32Array(rows + 1);
  for (const k of users) {
    for (let r = Math.max(from, win[4 * k + 1]!), r1 = Math.min(end, win[4 * k + 3]!); r < r1; r++) count[r - from + 1]!++;
  }
  for (let r = 0; r < rows; r++) count[r + 1]! += count[r]!;
  const runs = new Int32Array(2 * count[rows]!);
  const at = count.slice(0, rows);
  for (const k of users) {
    const x0 = win[4 * k]!;
    const x1 = win[4 * k + 2]!;
    for (let r = Math.max(from, win[4 * k + 1]!), r1 = Math.min(end, win[4 * k + 3]!); r < r1; r++) {
      const ri = r - from;
      // Merged with the row's last run when it overlaps or touches it.
      const last = at[ri]! - 1;
      if (last >= count[ri]! && runs[2 * last + 1]! >= x0) {
        if (x1 > runs[2 * last + 1]!) runs[2 * last + 1] = x1;
      } else {
        runs[2 * at[ri]!] = x0;
        runs[2 * at[ri]! + 1] = x1;
        at[ri]!++;
      }
    }
  }
  // Rows' runs packed to the front, without the gaps merging left.
  const rowStart = new Int32Array(rows + 1);
  let n = 0;
  for (let r = 0; r < rows; r++) {
    rowStart[r] = n;
    for (let q = count[r]!; q < at[r]!; q++, n++) {
      runs[2 * n] = runs[2 * q]!;
      runs[2 * n + 1] = runs[2 * q + 1]!;
    }
  }
  rowStart[rows] = n;
  return { rowStart, runs: runs.subarray(0, 2 * n) };
}
