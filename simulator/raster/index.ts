/**
 * GeoTIFF synthesis for the simulator's composite, tile and mini-tile endpoints.
 */
import { buildPlan } from './plan.js';
import type { Bounds, RasterRequest } from './types.js';

export { ALL_BANDS, parseBandnames } from './bands.js';
export type { BandName, BandSpec } from './bands.js';
export type { Bounds, RasterRequest } from './types.js';
export { isSupportedEpsg } from '../../common/grid/projection.js';
export { utmEpsgFor } from '../../common/geodesy.js';
export { startRasterThreads, writeGeoTiff } from './write.js';
export { RasterCache, rasterCacheKey } from './cache.js';

/**
 * Output grid, level count and uncompressed file size of a request (the DEFLATE-compressed file
 * written is smaller), or why it cannot be produced (bad CRS area, too large, ...).
 */
export function planRaster(
  req: RasterRequest,
): { width: number; height: number; bounds: Bounds; pixelSize: number; overviews: number; estimatedBytes: number } | { error: string } {
  const plan = buildPlan(req);
  if ('error' in plan) return plan;
  return {
    width: plan.width,
    height: plan.height,
    bounds: plan.bounds,
    pixelSize: plan.pixelSize,
    overviews: plan.levels.length - 1,
    estimatedBytes: plan.layout.totalBytes,
  };
}
