/**
 * Nearest-neighbour warping of a raster level into an image of the map (any projection pair), on
 * the CPU: the map tiles of a reprojected layer (raster-warp-source.ts) and the quick-look frame
 * (quicklook.ts) share it. An output image of width x height px covering `extent` in the view
 * projection is sampled through a lattice of control points every {@link STEP} px, transformed
 * exactly to the raster's CRS; between them the position is interpolated bilinearly (for map
 * projections the error is far below a pixel at this spacing).
 */

/** Lattice spacing in output pixels. */
export const STEP = 16;

/** A decoded block of a level, pixel-interleaved: sample b of pixel (c, r) is data[(r * stride + c) * bands + b]. */
export type Block = { data: ArrayLike<number>; stride: number };

/** What the warp needs to know about the raster's levels (full resolution first). */
export interface WarpRaster {
  /** [x, y] of the top-left corner in the raster's CRS. */
  origin: [number, number];
  levels: readonly { size: [number, number]; res: [number, number]; block: [number, number] }[];
}

/** Which level and blocks an output image needs, and where each output pixel samples them. */
export interface WarpPlan {
  level: number;
  width: number;
  height: number;
  /** [bx, by] of the blocks to read, row-major over the window. */
  blocks: [number, number][];
  /** Lattice in the level's pixel coordinates (col, row pairs). */
  readonly grid: Float64Array;
  readonly nx: number;
  readonly bx0: number;
  readonly by0: number;
  readonly bxn: number;
  readonly byn: number;
}

/** Transforms view coordinates (x, y pairs) in place to the raster's CRS. */
export type ToSource = (coords: number[], out: number[], dimension: number) => number[];

/**
 * Plans an output image of `width` x `height` px over `extent` (view projection): the coarsest level
 * whose pixels are no larger than the output's (times `pixelRatio`: 2 accepts a level up to twice as
 * coarse as the screen), and the blocks of it the image covers. Null when the image lies outside the
 * raster or outside the projection's domain.
 */
export function planWarp(extent: readonly number[], width: number, height: number, toSource: ToSource, raster: WarpRaster, pixelRatio = 1): WarpPlan | null {
  const [e0, , , e3] = extent as [number, number, number, number];
  const pxW = (extent[2]! - e0) / width;
  const pxH = (e3 - extent[1]!) / height;
  const nx = Math.ceil(width / STEP) + 1;
  const ny = Math.ceil(height / STEP) + 1;
  const pts = new Array<number>(nx * ny * 2);
  for (let j = 0; j < ny; j++) {
    for (let i = 0; i < nx; i++) {
      pts[(j * nx + i) * 2] = e0 + i * STEP * pxW;
      pts[(j * nx + i) * 2 + 1] = e3 - j * STEP * pxH;
    }
  }
  toSource(pts, pts, 2);
  if (pts.some((v) => !Number.isFinite(v))) return null;
  // Source CRS units per output pixel (the finest along the lattice): the level to read.
  let u = Infinity;
  for (let j = 0; j < ny; j++) {
    for (let i = 0; i + 1 < nx; i++) {
      const a = (j * nx + i) * 2;
      u = Math.min(u, Math.hypot(pts[a + 2]! - pts[a]!, pts[a + 3]! - pts[a + 1]!) / STEP);
    }
  }
  const levels = raster.levels;
  let level = 0;
  for (let l = levels.length - 1; l >= 0; l--) {
    if (Math.abs(levels[l]!.res[0]) <= u * pixelRatio * 1.01) {
      level = l;
      break;
    }
  }
  const [lw, lh] = levels[level]!.size;
  const [rx, ry] = levels[level]!.res;
  const [ox, oy] = raster.origin;
  const grid = new Float64Array(nx * ny * 2);
  let minC = Infinity, minR = Infinity, maxC = -Infinity, maxR = -Infinity;
  for (let k = 0; k < nx * ny; k++) {
    const c = (pts[k * 2]! - ox) / rx;
    const r = (pts[k * 2 + 1]! - oy) / ry;
    grid[k * 2] = c;
    grid[k * 2 + 1] = r;
    if (c < minC) minC = c;
    if (c > maxC) maxC = c;
    if (r < minR) minR = r;
    if (r > maxR) maxR = r;
  }
  const x0 = Math.max(0, Math.floor(minC));
  const y0 = Math.max(0, Math.floor(minR));
  const x1 = Math.min(lw, Math.ceil(maxC) + 1);
  const y1 = Math.min(lh, Math.ceil(maxR) + 1);
  if (x1 <= x0 || y1 <= y0) return null;
  const [bw, bh] = levels[level]!.block;
  const bx0 = Math.floor(x0 / bw);
  const by0 = Math.floor(y0 / bh);
  const bxn = Math.floor((x1 - 1) / bw) - bx0 + 1;
  const byn = Math.floor((y1 - 1) / bh) - by0 + 1;
  const blocks: [number, number][] = [];
  for (let j = 0; j < byn; j++) for (let i = 0; i < bxn; i++) blocks.push([bx0 + i, by0 + j]);
  return { level, width, height, blocks, grid, nx, bx0, by0, bxn, byn };
}

/**
 * Where each output pixel samples the plan's blocks: `block[i]` is the index in `plan.blocks` (-1
 * outside the level) and `cell[i]` the pixel in that block as row << 16 | column. Computed from
 * the plan alone, so it can run while the blocks are still being read.
 */
export interface WarpIndex {
  block: Int32Array;
  cell: Uint32Array;
}

/** The per-pixel sampling of a plan (see {@link WarpIndex}). */
export function warpIndex(plan: WarpPlan, raster: WarpRaster): WarpIndex {
  const { width, height, grid: pts, nx, bx0, by0, bxn, byn } = plan;
  const [lw, lh] = raster.levels[plan.level]!.size;
  const [bw, bh] = raster.levels[plan.level]!.block;
  const block = new Int32Array(width * height).fill(-1);
  const cell = new Uint32Array(width * height);
  for (let py = 0; py < height; py++) {
    // Pixel centres: the lattice points sit on pixel corners.
    const gy = (py + 0.5) / STEP;
    const j0 = Math.floor(gy);
    const fy = gy - j0;
    for (let px = 0; px < width; px++) {
      const gx = (px + 0.5) / STEP;
      const i0 = Math.floor(gx);
      const fx = gx - i0;
      const a = (j0 * nx + i0) * 2;
      const b = a + 2;
      const c = a + nx * 2;
      const d = c + 2;
      const col = (pts[a]! * (1 - fx) + pts[b]! * fx) * (1 - fy) + (pts[c]! * (1 - fx) + pts[d]! * fx) * fy;
      const row = (pts[a + 1]! * (1 - fx) + pts[b + 1]! * fx) * (1 - fy) + (pts[c + 1]! * (1 - fx) + pts[d + 1]! * fx) * fy;
      if (col < 0 || row < 0 || col >= lw || row >= lh) continue;
      const ci = Math.floor(col);
      const ri = Math.floor(row);
      const bi = Math.floor(ci / bw) - bx0;
      const bj = Math.floor(ri / bh) - by0;
      if (bi < 0 || bj < 0 || bi >= bxn || bj >= byn) continue;
      const i = py * width + px;
      block[i] = bj * bxn + bi;
      cell[i] = (((ri - (by0 + bj) * bh) << 16) | (ci - (bx0 + bi) * bw)) >>> 0;
    }
  }
  return { block, cell };
}

/**
 * Calls `visit(outIndex, data, sampleIndex)` for every output pixel inside the level, where
 * `data[sampleIndex + b]` is band b (0-based) of its source pixel; `got` holds the plan's blocks in
 * order and `bands` is the file's band count.
 */
export function gatherWarp(index: WarpIndex, got: readonly Block[], bands: number, visit: (outIndex: number, data: ArrayLike<number>, sampleIndex: number) => void): void {
  const { block, cell } = index;
  const n = block.length;
  for (let i = 0; i < n; i++) {
    const k = block[i]!;
    if (k < 0) continue;
    const blk = got[k]!;
    const rc = cell[i]!;
    visit(i, blk.data, ((rc >>> 16) * blk.stride + (rc & 0xffff)) * bands);
  }
}
