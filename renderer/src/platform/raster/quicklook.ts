import { getTransform, transformExtent } from 'ol/proj';
import { sampleArray, type RasterFile, type RasterSample } from './raster-data';
import { gatherWarp, planWarp, warpIndex, type ToSource } from './warp';

/**
 * The quick look: the first frame of a preview, drawn on the CPU. The part of the raster in view is
 * warped once into an image at screen resolution from the one overview level that matches it
 * (the level the map's tiles would read at this zoom), then coloured by the CPU twin of the layer
 * style (render-sample.ts). It stands in until the WebGL layer has every tile of the view, which on
 * software GL takes several frames, and it is re-coloured in place when the display changes.
 */

/** A warped image of the view: every band's DNs. */
export interface QuickLook {
  /** Band by band, width x height, in the file's sample type; nodata (or NaN, for files without) where the raster does not reach. */
  sample: RasterSample;
  /** [minX, minY, maxX, maxY] of the image in the view projection. */
  extent: [number, number, number, number];
  /** The overview level it was warped from. */
  level: number;
}

/** Image edge limit in px (a 4K screen's width): larger views are drawn at a coarser resolution. */
const MAX_EDGE = 4096;
/** Most pixel bytes a quick look reads. */
const MAX_READ_BYTES = 192 * 1024 * 1024;

/** Options of {@link warpQuickLook}. */
export interface QuickLookOptions {
  signal?: AbortSignal;
  /**
   * Accept a level up to this many times coarser than the screen (default 1: the level the map's
   * tiles would read). A first frame from a coarser level reads a quarter of the bytes per step.
   */
  pixelRatio?: number;
  /** Give up (null) before reading anything when the planned level is this one (already shown). */
  unlessLevel?: number;
}

/**
 * Warps the part of `file` inside `viewExtent` to an image whose pixels are `resolution` view
 * units wide. Null when the raster is not in view (or outside the view projection's domain).
 */
export async function warpQuickLook(
  file: RasterFile, sourceProjection: string, viewProjection: string,
  viewExtent: readonly number[], resolution: number, opts: QuickLookOptions = {},
): Promise<QuickLook | null> {
  const { signal } = opts;
  const h = file.header;
  if (!h.bbox) return null;
  const r = transformExtent(h.bbox, sourceProjection, viewProjection, 16);
  const [vx0, vy0, vx1, vy1] = viewExtent as [number, number, number, number];
  const ix0 = Math.max(r[0]!, vx0);
  const iy0 = Math.max(r[1]!, vy0);
  const ix1 = Math.min(r[2]!, vx1);
  const iy1 = Math.min(r[3]!, vy1);
  if (!(ix1 > ix0 && iy1 > iy0) || !(resolution > 0)) return null;
  const res = Math.max(resolution, (ix1 - ix0) / MAX_EDGE, (iy1 - iy0) / MAX_EDGE);
  // On the screen's pixel grid (anchored at the view's top left), so the image is drawn 1:1.
  const x0 = vx0 + Math.floor((ix0 - vx0) / res) * res;
  const y1 = vy1 - Math.floor((vy1 - iy1) / res) * res;
  const width = Math.max(1, Math.ceil((ix1 - x0) / res));
  const height = Math.max(1, Math.ceil((y1 - iy0) / res));
  const extent: [number, number, number, number] = [x0, y1 - height * res, x0 + width * res, y1];
  const raster = file.warpRaster();
  const plan = planWarp(extent, width, height, getTransform(viewProjection, sourceProjection) as ToSource, raster, opts.pixelRatio ?? 1);
  if (!plan || plan.level === opts.unlessLevel) return null;
  // A view that needs more than this of one level (a big file without overviews, zoomed out) gets
  // no quick look: the map's tiles read it piece by piece instead.
  const [bw, bh] = raster.levels[plan.level]!.block;
  if (plan.blocks.length * bw * bh * h.bands.length * sampleArray(h.dataType).BYTES_PER_ELEMENT > MAX_READ_BYTES) return null;
  await file.tileTable(plan.level);
  const blocks = Promise.all(file.cachedBlocks(plan.level, plan.blocks));
  // Where every pixel samples, worked out while the blocks are read.
  const index = warpIndex(plan, raster);
  const got = await blocks;
  if (signal?.aborted) throw new DOMException('Aborted', 'AbortError');
  const nb = h.bands.length;
  // Outside the raster is nodata (transparent): the file's sample type with its nodata, or float NaN.
  const Typed = h.nodata != null ? sampleArray(h.dataType) : null;
  const data = Array.from({ length: nb }, () => (Typed ? new Typed(width * height).fill(h.nodata!) : new Float32Array(width * height).fill(NaN)));
  gatherWarp(index, got, nb, (i, src, si) => {
    for (let b = 0; b < nb; b++) data[b]![i] = src[si + b]!;
  });
  return { sample: { width, height, data }, extent, level: plan.level };
}
