import { throwIfAborted } from '../../common/abort.js';
import { writePyramid, type PixelSource } from '../../main/geotiff/index.js';
import { LandscapeRenderer } from './landscape.js';
import { buildPlan, pyramidImageOf, rasterizerFor } from './plan.js';
import type { RasterRequest } from './types.js';

/** Pixel bytes rendered between writes: large sequential writes, bounded memory, and the event loop gets a turn at every write. */
const CHUNK_BYTES = 4 * 1024 * 1024;

/** Internal writer options; bigTiff forces the BigTIFF container (tests use it on small files). */
export interface WriteOptions {
  signal?: AbortSignal;
  bigTiff?: boolean;
  /** DEFLATE with predictor 2, as the service's COGs (default true); tests compare with the uncompressed file. */
  compress?: boolean;
  /** zlib level (default {@link DEMO_DEFLATE_LEVEL}). */
  deflateLevel?: number;
}

/**
 * The demo service's zlib level: the fastest. Its files are made while a client waits and served
 * over loopback from its cache, so time counts more than size: its 4,000 x 4,000 x 4-band INT16
 * composite (rendering alone ~3.2 s of CPU) compresses in ~1.5 s of CPU to 37.2 MB at level 1,
 * ~2.3 s to 30.1 MB at level 4 (the writer's default).
 */
export const DEMO_DEFLATE_LEVEL = 1;

/**
 * Streams the GeoTIFF for req to outPath through main's one GeoTIFF writer, one chunk of blocks at
 * a time (never the whole image in memory); every level is rendered from the landscape at its own
 * resolution, as the service does. On failure or abort the partial file is removed and the error rethrown.
 */
export async function writeGeoTiff(
  req: RasterRequest,
  outPath: string,
  opts: WriteOptions = {},
): Promise<{ bytes: number; width: number; height: number }> {
  const signal = opts.signal ?? new AbortController().signal;
  throwIfAborted(signal);
  const plan = buildPlan(req, { bigTiff: opts.bigTiff });
  if ('error' in plan) throw new Error(plan.error);
  const renderer = new LandscapeRenderer(plan.proj, req.bands, req.dataType, req.date);
  const rasterizer = rasterizerFor(plan, req);

  // Level li's pixels, one block of the file at a time: the AOI mask of the block row's rows, then the landscape.
  const levelSource = (li: number): PixelSource => {
    const L = plan.layout.levels[li]!;
    const lp = plan.levels[li]!;
    const grid = { originX: plan.bounds.minX, originY: plan.bounds.maxY, pixelSize: lp.pixelSize, pixelMetres: lp.pixelMetres };
    const maskGrid = { originX: grid.originX, originY: grid.originY, pixelSize: lp.pixelSize, width: L.width, height: L.height };
    const mask = new Uint8Array(L.width * L.blockHeight);
    let maskRows = -1;
    return async (rect, out, _signal, rowStride) => {
      if (maskRows !== rect.y) {
        rasterizer.fillRows(maskGrid, rect.y, rect.height, mask);
        maskRows = rect.y;
      }
      // One block per call (blockWise): rendered straight into the file's block buffer.
      renderer.renderBlock(grid, rect.x, rect.y, rect.width, rect.height, mask, rect.x, L.width, {
        data: out as Int16Array | Uint8Array,
        offset: 0,
        rowStride,
      });
    };
  };
  const written = await writePyramid(outPath, { ...pyramidImageOf(plan, req, opts.bigTiff), compress: opts.compress ?? true }, levelSource(0), {
    signal,
    chunkBytes: CHUNK_BYTES,
    overviewSource: levelSource,
    blockWise: true,
    durable: false,
    deflateLevel: opts.deflateLevel ?? DEMO_DEFLATE_LEVEL,
  });
  // DEFLATE-compressed (the writer's default, as the service's COGs): at most about the uncompressed size.
  return { bytes: written.bytes, width: plan.width, height: plan.height };
}
