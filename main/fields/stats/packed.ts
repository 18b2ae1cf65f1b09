/**
 * The compact forms a statistics run moves between main and its worker threads (typed arrays only,
 * so a structured clone is a copy of a few buffers, and the coverage cache stores them as they are):
 * parcels' geometries, the coverage of a chunk of parcels on one grid, and one raster's results.
 */
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import type { FlatGeometry } from '../geometry.js';
import type { Coverage, PixelGrid, PixelRule, Window } from './coverage.js';

/** Polygons packed: parcel i has parts [parts[i], parts[i+1]), part p rings [rings[p], rings[p+1]), ring r coordinates [coords[r], coords[r+1]) (x, y pairs). */
export interface PackedParcels {
  indices: Int32Array;
  parts: Uint32Array;
  rings: Uint32Array;
  coords: Uint32Array;
  xy: Float64Array;
}

/** Packs stored geometries (main/fields/geometry.ts's flat form): parcel k is `indices[k]`. */
export function packFlat(indices: Int32Array, flats: FlatGeometry[]): PackedParcels {
  let partCount = 0, ringCount = 0, values = 0;
  for (const g of flats) { partCount += g.partRings.length; ringCount += g.ringPoints.length; values += g.coords.length; }
  const out: PackedParcels = {
    indices: Int32Array.from(indices), parts: new Uint32Array(flats.length + 1),
    rings: new Uint32Array(partCount + 1), coords: new Uint32Array(ringCount + 1), xy: new Float64Array(values),
  };
  let pi = 0, ri = 0, v = 0;
  flats.forEach((g, i) => {
    let ring = 0;
    for (const nRings of g.partRings) {
      for (let r = 0; r < nRings; r++) { v += g.ringPoints[ring++]! * 2; out.coords[++ri] = v; }
      out.rings[++pi] = ri;
    }
    out.xy.set(g.coords, v - g.coords.length);
    out.parts[i + 1] = pi;
  });
  return out;
}

/** The parts of parcel `i` of a pack, each ring a list of [x, y]. */
export function unpackParcel(p: PackedParcels, i: number): number[][][][] {
  const parts: number[][][][] = [];
  for (let part = p.parts[i]!; part < p.parts[i + 1]!; part++) {
    const rings: number[][][] = [];
    for (let r = p.rings[part]!; r < p.rings[part + 1]!; r++) {
      const ring: number[][] = [];
      for (let k = p.coords[r]!; k < p.coords[r + 1]!; k += 2) ring.push([p.xy[k]!, p.xy[k + 1]!]);
      rings.push(ring);
    }
    parts.push(rings);
  }
  return parts;
}

/** The identity of a pixel grid: EPSG, corner, pixel size and size (rasters with equal keys share coverage). */
export function gridKeyOf(epsg: number, g: PixelGrid): string {
  return `${epsg}:${g.originX}:${g.originY}:${g.resX}:${g.resY}:${g.width}x${g.height}`;
}

/**
 * The coverage of a chunk of parcels on one grid under one rule: parcel k (index `indices[k]`) has
 * cells [cellStart[k], cellStart[k+1]) of `cells` (offsets in its window, `windows[4k..4k+4)`) with
 * `weights` (null: all 1); no cell when it misses the raster; `errors` names parcels that have none
 * for a reason (too large, bad coordinates).
 */
export interface CoverageChunk {
  gridKey: string;
  rule: PixelRule;
  indices: Int32Array;
  windows: Int32Array;
  areaPx: Float64Array;
  cellStart: Uint32Array;
  cells: Uint32Array;
  weights: Float64Array | null;
  errors: { index: number; reason: string }[];
}

/** Builds a chunk from each parcel's coverage (null: misses the raster; a string: why it has none). */
export function chunkOf(gridKey: string, rule: PixelRule, indices: Int32Array, coverages: (Coverage | null | string)[]): CoverageChunk {
  let total = 0;
  for (const c of coverages) if (c && typeof c !== 'string') total += c.cells.length;
  const n = indices.length;
  const out: CoverageChunk = {
    gridKey, rule, indices, windows: new Int32Array(n * 4), areaPx: new Float64Array(n),
    cellStart: new Uint32Array(n + 1), cells: new Uint32Array(total), weights: rule === 'exact' ? new Float64Array(total) : null, errors: [],
  };
  let at = 0;
  coverages.forEach((c, k) => {
    if (typeof c === 'string') out.errors.push({ index: indices[k]!, reason: c });
    else if (c) {
      out.windows.set(c.window, 4 * k);
      out.areaPx[k] = c.areaPx;
      out.cells.set(c.cells, at);
      if (out.weights) {
        if (c.weights) out.weights.set(c.weights, at);
        else out.weights.fill(1, at, at + c.cells.length);
      }
      at += c.cells.length;
    }
    out.cellStart[k + 1] = at;
  });
  return out;
}

/** Parcel k's window of a chunk. */
export function windowOf(c: CoverageChunk, k: number): Window {
  return [c.windows[4 * k]!, c.windows[4 * k + 1]!, c.windows[4 * k + 2]!, c.windows[4 * k + 3]!];
}

/** Bytes a chunk holds in memory (for the cache's bound). */
export function chunkBytes(c: CoverageChunk): number {
  return c.indices.byteLength + c.windows.byteLength + c.areaPx.byteLength + c.cellStart.byteLength + c.cells.byteLength + (c.weights?.byteLength ?? 0);
}

/** A chunk as one compressed blob (the coverage cache's rows in swath.db) and back. */
export function encodeChunk(c: CoverageChunk): Uint8Array {
  const head = Buffer.from(JSON.stringify({ gridKey: c.gridKey, rule: c.rule, n: c.indices.length, cells: c.cells.length, weights: c.weights !== null, errors: c.errors }));
  const parts = [c.indices, c.windows, c.areaPx, c.cellStart, c.cells, ...(c.weights ? [c.weights] : [])];
  const len = Buffer.alloc(4);
  len.writeUInt32LE(head.length);
  // Each array starts on a multiple of 8 bytes, so it can be viewed in place once inflated.
  const pad = (k: number) => Buffer.alloc((8 - (k % 8)) % 8);
  const chunks: Buffer[] = [len, head, pad(4 + head.length)];
  for (const a of parts) {
    const b = Buffer.from(a.buffer, a.byteOffset, a.byteLength);
    chunks.push(b, pad(b.length));
  }
  return sharedCopy(deflateRawSync(Buffer.concat(chunks), { level: 1 }));
}

/**
 * `bytes` in a SharedArrayBuffer of its own size: a chunk's coverage goes from main to every task of
 * its chunk and to the writer thread, and a shared buffer is posted without a copy. Never written after.
 */
export function sharedCopy(bytes: Uint8Array): Uint8Array {
  const out = new Uint8Array(new SharedArrayBuffer(bytes.byteLength));
  out.set(bytes);
  return out;
}

export function decodeChunk(blob: Uint8Array): CoverageChunk {
  const raw = inflateRawSync(blob);
  const buf = new ArrayBuffer(raw.length);
  new Uint8Array(buf).set(raw);
  const hlen = new DataView(buf).getUint32(0, true);
  const head = JSON.parse(Buffer.from(buf, 4, hlen).toString()) as { gridKey: string; rule: PixelRule; n: number; cells: number; weights: boolean; errors: { index: number; reason: string }[] };
  let at = Math.ceil((4 + hlen) / 8) * 8;
  const take = <T>(make: (b: ArrayBuffer, o: number, l: number) => T, len: number, size: number): T => {
    const out = make(buf, at, len);
    at += Math.ceil((len * size) / 8) * 8;
    return out;
  };
  const n = head.n;
  return {
    gridKey: head.gridKey, rule: head.rule, errors: head.errors,
    indices: take((b, o, l) => new Int32Array(b, o, l), n, 4),
    windows: take((b, o, l) => new Int32Array(b, o, l), 4 * n, 4),
    areaPx: take((b, o, l) => new Float64Array(b, o, l), n, 8),
    cellStart: take((b, o, l) => new Uint32Array(b, o, l), n + 1, 4),
    cells: take((b, o, l) => new Uint32Array(b, o, l), head.cells, 4),
    weights: head.weights ? take((b, o, l) => new Float64Array(b, o, l), head.cells, 8) : null,
  };
}

/** One raster's statistics for a chunk's parcels (NaN where a statistic is null). Parcel k is `parcels[k]`. */
export interface RasterResults {
  rasterId: string;
  parcels: Int32Array;
  /** mean, min, max, std, median, p10, p90, validPixels, coveredShare, validShare per parcel: 10 values each. */
  values: Float64Array;
}

/** Values per parcel in {@link RasterResults.values}. */
export const RESULT_FIELDS = 10;
