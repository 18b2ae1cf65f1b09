import path from 'node:path';
import { throwIfAborted } from '../../common/abort.js';
import { sourceRects, stagePyramid, startDeflateThreads, type PixelSource, type StagedPyramid } from '../../main/geotiff/index.js';
import { privateTempDirSync } from '../../main/shared/private-temp.js';
import { LevelRenderer } from './level-render.js';
import { pyramidImageOf } from './plan.js';
import { startRenderThreads, threadedSource } from './render-threads.js';
import type { RasterRequest } from './types.js';
import { warmUpRequest } from './warm-up.js';

/** Pixel bytes rendered between writes: large sequential writes, bounded memory, and the event loop gets a turn at every write. */
const CHUNK_BYTES = 4 * 1024 * 1024;

/**
 * Full resolution is rendered on the render threads from this many pixels (render-threads.ts); a
 * smaller image renders on this thread, where it takes less time than a thread takes to start.
 */
const THREADED_PIXELS = 4_000_000;

/** Internal writer options; bigTiff forces the BigTIFF container (tests use it on small files). */
export interface WriteOptions {
  signal?: AbortSignal;
  bigTiff?: boolean;
  /** DEFLATE with predictor 2, as the service's COGs (default true); tests compare with the uncompressed file. */
  compress?: boolean;
  /** zlib level (default {@link DEMO_DEFLATE_LEVEL}). */
  deflateLevel?: number;
  /** Whether full resolution is rendered on the render threads (default: from {@link THREADED_PIXELS}); the samples are the same. */
  threaded?: boolean;
}

/**
 * The demo service's zlib level: the fastest. Its files are made while a client waits and served
 * over loopback from its cache, so time counts more than size: its 4,000 x 4,000 x 4-band INT16
 * composite (171 MB of samples with the overviews) compresses in ~1.4 s of CPU to 40.0 MB at
 * level 1, ~2.3 s to 33.1 MB at level 4 (the writer's default).
 */
export const DEMO_DEFLATE_LEVEL = 1;

/**
 * Starts the threads the service's images are made on, for its own process, so its first image
 * does not wait for them: the writer's DEFLATE threads and the render threads, which warm their
 * shading up; then writes one small composite the way a large one is written (rendered on the
 * render threads, compressed on the DEFLATE threads) and removes it, so the writer's own loops on
 * this thread and on the DEFLATE threads are optimised before the first image, not during it.
 * Resolves when that is done.
 */
export async function startRasterThreads(): Promise<void> {
  startDeflateThreads();
  await startRenderThreads();
  // A service closed during the warm-up exits before the write ends: the folder goes with the process.
  const dir = privateTempDirSync('swath-sim-warm-up-');
  try {
    await writeGeoTiff(warmUpRequest(), path.join(dir.path, 'warm-up.tif'), { threaded: true });
  } finally {
    await dir.remove();
  }
}

/**
 * Streams the GeoTIFF for req to outPath through main's one GeoTIFF writer, one chunk of blocks at
 * a time (never the whole image in memory): full resolution is rendered from the landscape and each
 * overview is the writer's 2x2 mean of the level above. On failure or abort the partial file is
 * removed and the error rethrown.
 */
export async function writeGeoTiff(
  req: RasterRequest,
  outPath: string,
  opts: WriteOptions = {},
): Promise<{ bytes: number; width: number; height: number }> {
  const { staged, width, height } = await stageGeoTiff(req, outPath, opts);
  // A cache's file or a test's: rebuilt when lost, so not fsynced.
  await staged.commit({ durable: false, signal: opts.signal });
  return { bytes: staged.bytes, width, height };
}

/**
 * The GeoTIFF for req, written for outPath and staged (`stagePyramid`): readable at once, in place
 * at outPath once committed. On failure or abort nothing is left and the error rethrown.
 */
export async function stageGeoTiff(
  req: RasterRequest,
  outPath: string,
  opts: WriteOptions = {},
): Promise<{ staged: StagedPyramid; width: number; height: number }> {
  const signal = opts.signal ?? new AbortController().signal;
  throwIfAborted(signal);
  const made = LevelRenderer.of(req, opts.bigTiff);
  if ('error' in made) throw new Error(made.error);
  const plan = made.plan;

  const image = { ...pyramidImageOf(plan, req, opts.bigTiff), compress: opts.compress ?? true };
  const writeOpts = { signal, chunkBytes: CHUNK_BYTES, deflateLevel: opts.deflateLevel ?? DEMO_DEFLATE_LEVEL };
  // Full resolution, one chunk of a block row at a time; the overviews are averaged from it as they are
  // written, as GDAL builds a COG's overviews.
  let staged: StagedPyramid;
  if (opts.threaded ?? plan.width * plan.height >= THREADED_PIXELS) {
    const threaded = threadedSource(req, opts.bigTiff, sourceRects(image, CHUNK_BYTES), signal);
    try {
      staged = await stagePyramid(outPath, image, threaded.source, { ...writeOpts, fullSources: true });
    } finally {
      threaded.close();
    }
  } else {
    // Rendered here, into the writer's buffer.
    const source: PixelSource = async (rect, out, _signal, rowStride) => {
      made.render({ level: 0, x: rect.x, y: rect.y, width: rect.width, height: rect.height, rowStride }, out as Int16Array | Uint8Array);
    };
    staged = await stagePyramid(outPath, image, source, writeOpts);
  }
  return { staged, width: plan.width, height: plan.height };
}
