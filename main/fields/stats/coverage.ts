/**
 * Which pixels of a raster grid a parcel touches, and with what weight, under the three pixel rules:
 *
 * - `exact`: the fraction of the pixel's area the polygon covers (the exactextract rule). Computed
 *   by walking each ring's edges once through the rows and columns they cross and accumulating, per
 *   cell, the signed area between the edge and the cell's right side (the accumulation-buffer
 *   method of exact-area rasterizers); a prefix sum along each row then gives every cell's covered
 *   area. Exact for straight edges, holes and multipart polygons, with no per-pixel clipping.
 * - `centre`: weight 1 for a pixel whose centre is inside, the rule of GDAL's rasterize (and so of
 *   rasterio.features.rasterize): on each row's centre line the crossings of every ring are sorted and
 *   paired (even-odd), and a pixel is in when its centre x lies in (x_in, x_out]; an edge counts on a
 *   row when the centre line y satisfies y_min <= y < y_max.
 * - `touched`: weight 1 for every pixel the polygon's interior or boundary passes through (GDAL's
 *   ALL_TOUCHED=TRUE): the cells an edge crosses, and the cells the polygon covers.
 *
 * Coordinates are in the grid's CRS; the window and cells are in the raster's pixels (column 0 at
 * the grid's left edge, row 0 at its top). Pixels outside the raster are never in a coverage.
 */

/** How a parcel's pixels are weighted. */
export type PixelRule = 'exact' | 'centre' | 'touched';

export const PIXEL_RULES: readonly PixelRule[] = ['exact', 'centre', 'touched'];

/** A raster's north-up pixel grid: the top-left corner, the pixel size (resY negative) and the size in pixels. */
export interface PixelGrid {
  originX: number;
  originY: number;
  resX: number;
  resY: number;
  width: number;
  height: number;
}

/** A pixel window [x0, y0, x1, y1) of a raster. */
export type Window = [number, number, number, number];

/** A polygon's rings (outer first, then holes), each a list of [x, y]; a multipolygon is several. */
export type PolygonRings = readonly (readonly (readonly number[])[])[];

/** A parcel's pixels on one grid under one rule. */
export interface Coverage {
  /** The window of the parcel's bounding box, clipped to the raster. */
  window: Window;
  /** Offsets (row * window width + column, both relative to the window) of the pixels with a weight, ascending. */
  cells: Uint32Array;
  /** Their weights in (0, 1]; null when every weight is 1 (the centre and touched rules). */
  weights: Float64Array | null;
  /** The parcel's area in pixels (its area over the pixel's): the denominator of the covered share. */
  areaPx: number;
}

/** Most pixels a parcel's window may hold (about 400 km² at 10 m): the buffers of one parcel stay bounded. */
export const MAX_PARCEL_PIXELS = 4_000_000;

/** Why a parcel has no coverage on a grid. */
export class CoverageError extends Error {
  override name = 'CoverageError';
}

/** Weights below this are rounding noise of the accumulation (a cell the polygon does not reach). */
const NOISE = 1e-12;

/** The rings of every part in pixel coordinates (x: column, y: row, fractional) and their bounding box. */
function toPixels(parts: readonly PolygonRings[], g: PixelGrid): { rings: Float64Array[][]; box: [number, number, number, number] } {
  let minX = Infinity, minY = Infinity, maxX = -Infinity, maxY = -Infinity;
  const rings = parts.map((part) => part.map((ring) => {
    const out = new Float64Array(ring.length * 2);
    for (let i = 0; i < ring.length; i++) {
      const p = ring[i]!;
      const x = (p[0]! - g.originX) / g.resX;
      const y = (p[1]! - g.originY) / g.resY;
      if (!Number.isFinite(x) || !Number.isFinite(y)) throw new CoverageError(`vertex ${i} is not a finite coordinate on the grid`);
      out[2 * i] = x;
      out[2 * i + 1] = y;
      if (x < minX) minX = x;
      if (x > maxX) maxX = x;
      if (y < minY) minY = y;
      if (y > maxY) maxY = y;
    }
    return out;
  }));
  return { rings, box: [minX, minY, maxX, maxY] };
}

/** Twice the signed shoelace area of a ring in pixel coordinates. */
function ringArea2(r: Float64Array): number {
  const n = r.length / 2;
  let a = 0;
  for (let i = 0; i < n; i++) {
    const j = (i + 1) % n;
    a += r[2 * i]! * r[2 * j + 1]! - r[2 * j]! * r[2 * i + 1]!;
  }
  return a;
}

/**
 * The coverage of a polygon or multipolygon (`parts`: one entry per polygon, each its rings in the
 * grid's CRS) under `rule`, or null when its bounding box misses the raster (a parcel inside the
 * raster's extent with no pixel, one smaller than a pixel under the centre rule, has a coverage
 * without cells). A window over
 * `maxPixels` throws a {@link CoverageError}.
 */
export function coverageOf(parts: readonly PolygonRings[], grid: PixelGrid, rule: PixelRule, maxPixels = MAX_PARCEL_PIXELS): Coverage | null {
  const { rings, box } = toPixels(parts, grid);
  let areaPx = 0;
  for (const part of rings) part.forEach((r, k) => { areaPx += (k === 0 ? 1 : -1) * Math.abs(ringArea2(r)) / 2; });
  const x0 = Math.max(0, Math.floor(box[0]));
  const y0 = Math.max(0, Math.floor(box[1]));
  const x1 = Math.min(grid.width, Math.ceil(box[2]));
  const y1 = Math.min(grid.height, Math.ceil(box[3]));
  if (!(x1 > x0 && y1 > y0)) return null;
  const w = x1 - x0;
  const h = y1 - y0;
  if (w * h > maxPixels) throw new CoverageError(`its window on the raster is ${w} x ${h} pixels; at most ${maxPixels} pixels per parcel`);
  // Window-relative pixel coordinates from here on.
  for (const part of rings) for (const r of part) for (let i = 0; i < r.length; i += 2) { r[i]! -= x0; r[i + 1]! -= y0; }
  const window: Window = [x0, y0, x1, y1];
  return rule === 'centre' ? centreCoverage(rings, w, h, window, areaPx) : areaCoverage(rings, w, h, window, areaPx, rule === 'touched');
}

/** The exact (or, with `touched`, the all-touched) coverage by the accumulation of edge areas. */
function areaCoverage(rings: Float64Array[][], w: number, h: number, window: Window, areaPx: number, touched: boolean): Coverage | null {
  const stride = w + 1;
  const acc = new Float64Array(stride * h);
  const crossed = touched ? new Uint8Array(w * h) : null;
  for (const part of rings) {
    part.forEach((r, k) => {
      // Outer rings add +1 inside, holes -1, whatever way each ring turns. In pixel coordinates (y
      // down) a ring of positive shoelace area accumulates -1 inside, hence the sign.
      const a = ringArea2(r);
      if (a === 0) return;
      const s = (a > 0 ? -1 : 1) * (k === 0 ? 1 : -1);
      const n = r.length / 2;
      for (let i = 0; i < n; i++) {
        const j = (i + 1) % n;
        addEdge(acc, crossed, stride, w, h, r[2 * i]!, r[2 * i + 1]!, r[2 * j]!, r[2 * j + 1]!, s);
      }
    });
  }
  let count = 0;
  const cells = new Uint32Array(w * h);
  const weights = touched ? null : new Float64Array(w * h);
  for (let y = 0; y < h; y++) {
    let sum = 0;
    const row = y * stride;
    for (let x = 0; x < w; x++) {
      sum += acc[row + x]!;
      const i = y * w + x;
      if (touched) {
        if (crossed![i] || sum > 1e-9) cells[count++] = i;
      } else if (sum > NOISE) {
        cells[count] = i;
        weights![count++] = sum >= 1 - NOISE ? 1 : sum;
      }
    }
  }
  return { window, cells: cells.slice(0, count), weights: weights ? weights.slice(0, count) : null, areaPx };
}

/**
 * Adds the edge (ax, ay)-(bx, by) (window pixels) to the accumulation buffer: for each piece of it
 * inside one cell, `dy * (right side - mean x)` to that cell and the rest of `dy` to the next, so the
 * row's prefix sum is, per cell, the integral over the cell's height of the edge's covered width.
 */
function addEdge(acc: Float64Array, crossed: Uint8Array | null, stride: number, w: number, h: number, ax: number, ay: number, bx: number, by: number, s: number): void {
  if (ay === by) return;
  const sign = by > ay ? s : -s;
  const lo = Math.max(0, Math.min(ay, by));
  const hi = Math.min(h, Math.max(ay, by));
  if (!(hi > lo)) return;
  const k = (bx - ax) / (by - ay);
  for (let row = Math.floor(lo); row < hi; row++) {
    const ya = Math.max(lo, row);
    const yb = Math.min(hi, row + 1);
    if (!(yb > ya)) continue;
    const xa = ax + (ya - ay) * k;
    const xb = ax + (yb - ay) * k;
    addPiece(acc, crossed, row, stride, w, xa, xb, (yb - ya) * sign);
  }
}

/** One row's piece of an edge, from x = xa to xb over a height `dy` (signed). */
function addPiece(acc: Float64Array, crossed: Uint8Array | null, row: number, stride: number, w: number, xa: number, xb: number, dy: number): void {
  const base = row * stride;
  const lo = Math.min(xa, xb);
  const hi = Math.max(xa, xb);
  if (hi <= 0) {
    acc[base]! += dy; // left of the window: the whole row to its right is covered
    return;
  }
  if (lo >= w) return; // right of the window: no cell of it
  const span = hi - lo;
  if (span === 0) {
    const c = Math.floor(lo);
    acc[base + c]! += dy * (c + 1 - lo);
    acc[base + c + 1]! += dy * (lo - c);
    if (crossed) crossed[row * w + c] = 1;
    return;
  }
  let x = lo;
  if (lo < 0) {
    acc[base]! += (dy * -lo) / span;
    x = 0;
  }
  const end = Math.min(hi, w);
  while (x < end) {
    const c = Math.floor(x);
    const xe = Math.min(end, c + 1);
    const d = (dy * (xe - x)) / span;
    const xm = (x + xe) / 2;
    acc[base + c]! += d * (c + 1 - xm);
    acc[base + c + 1]! += d * (xm - c);
    if (crossed) crossed[row * w + c] = 1;
    x = xe;
  }
}

/** The centre rule: GDAL's scanline fill at each row's centre, even-odd over every ring of every part. */
function centreCoverage(rings: Float64Array[][], w: number, h: number, window: Window, areaPx: number): Coverage | null {
  // Every crossing of a row's centre line by an edge, as (row, x), gathered edge by edge.
  let xs = new Float64Array(64);
  let rows = new Int32Array(64);
  let n = 0;
  for (const part of rings) for (const r of part) {
    const m = r.length / 2;
    for (let i = 0; i < m; i++) {
      const j = (i + 1) % m;
      let ax = r[2 * i]!, ay = r[2 * i + 1]!, bx = r[2 * j]!, by = r[2 * j + 1]!;
      if (ay === by) continue;
      if (ay > by) [ax, ay, bx, by] = [bx, by, ax, ay];
      // Rows whose centre y = row + 0.5 satisfies ay <= y < by.
      const first = Math.max(0, Math.ceil(ay - 0.5));
      const last = Math.min(h - 1, Math.ceil(by - 0.5) - 1);
      const k = (bx - ax) / (by - ay);
      for (let row = first; row <= last; row++) {
        if (n === xs.length) {
          const nx = new Float64Array(n * 2); nx.set(xs); xs = nx;
          const nr = new Int32Array(n * 2); nr.set(rows); rows = nr;
        }
        rows[n] = row;
        xs[n++] = ax + (row + 0.5 - ay) * k;
      }
    }
  }
  const order = new Uint32Array(n);
  for (let i = 0; i < n; i++) order[i] = i;
  order.sort((a, b) => rows[a]! - rows[b]! || xs[a]! - xs[b]!);
  const cells: number[] = [];
  for (let i = 0; i + 1 < n; i += 2) {
    const a = order[i]!;
    const b = order[i + 1]!;
    const row = rows[a]!;
    // A pixel is in when its centre c + 0.5 lies in (xa, xb]: c from floor(xa + 0.5) to floor(xb + 0.5) - 1.
    const c0 = Math.max(0, Math.floor(xs[a]! + 0.5));
    const c1 = Math.min(w, Math.floor(xs[b]! + 0.5));
    for (let c = c0; c < c1; c++) cells.push(row * w + c);
  }
  const out = Uint32Array.from(cells);
  out.sort(); // rows pair up in order, but touching parts of a multipolygon may interleave
  return { window, cells: out, weights: null, areaPx };
}

/** Sum of a coverage's weights (pixels). */
export function coveredPixels(c: Coverage): number {
  if (!c.weights) return c.cells.length;
  let s = 0;
  for (let i = 0; i < c.weights.length; i++) s += c.weights[i]!;
  return s;
}
