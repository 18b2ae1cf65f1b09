/**
 * The landscape rendered on worker threads while the writer compresses: a large image's full
 * resolution is rendered a chunk at a time (the writer's chunks, in its order) on
 * {@link RENDER_THREADS} thread(s), several chunks ahead of the one the writer is taking, so the
 * synthesis, the writer's work on this thread (overviews) and the predictor and zlib on the DEFLATE threads
 * run on every core at once. The samples are the same as rendered on this thread: each chunk is a
 * pure function of the request and its rectangle.
 */
import { abortError } from '../../common/abort.js';
import { bytesPerSample, type PixelArray, type PixelRect, type PixelSource } from '../../main/geotiff/index.js';
import { entryPoint, type EntryPoint } from '../../main/shared/entry-point.js';
import { SharedBufferPool } from '../../main/shared/shared-buffers.js';
import { WorkerPool } from '../../main/shared/worker-pool.js';
import type { RasterRequest } from './types.js';

/**
 * Threads at most. One: with this thread's overviews and the DEFLATE threads there is work for two cores
 * already, and each thread is an isolate of its own (measured on two cores, 4,000 x 4,000 x 4 INT16:
 * two threads 3.7-4.2 s of CPU and 303-317 MB peak RSS, one 3.4 s and 252 MB).
 */
export const RENDER_THREADS = 1;

/** Chunks rendered or queued ahead of the one the writer takes, per thread. */
const AHEAD_PER_THREAD = 2;

/** What a render thread is asked: the chunk `rect` of write `write`'s full resolution, into `buffer` (rows `rect.width * bands` samples apart). */
export interface RenderTask {
  /** Names one write: a thread keeps that write's plan and mask for its next chunks. */
  write: string;
  req: RasterRequest;
  bigTiff?: boolean;
  rect: PixelRect;
  buffer: SharedArrayBuffer;
}

/** Asks a thread to answer once it has loaded and warmed up. */
export interface RenderPing {
  ping: true;
}

/** The worker's entry: simulator/raster/render-worker.ts from source, out/main/simulator-render-worker.js bundled. */
export function renderWorkerEntry(): EntryPoint {
  return entryPoint(import.meta.url, './render-worker.ts', 'simulator-render-worker');
}

/**
 * A render thread's heap bounds. Each chunk's task (its request, the AOI included) and node grids
 * leave short-lived garbage, which V8's default young generation (tens of MB) holds until it fills;
 * one of 4 MB collects it sooner, at no measurable cost in speed. The old generation keeps V8's
 * bound: a 20,000-vertex AOI holds 55 MB there.
 */
const THREAD_LIMITS = { maxYoungGenerationSizeMb: 4 };

let pool: WorkerPool<RenderTask | RenderPing, null> | null = null;

/** Chunk buffers of finished writes, kept for the next. */
const spare = new SharedBufferPool(RENDER_THREADS * AHEAD_PER_THREAD);
let writes = 0;

/** The process's render threads: started on first use, idle threads do not keep the process alive. */
function renderPool(): WorkerPool<RenderTask | RenderPing, null> {
  pool ??= new WorkerPool<RenderTask | RenderPing, null>({ name: 'landscape render', entry: renderWorkerEntry, size: RENDER_THREADS, resourceLimits: THREAD_LIMITS });
  return pool;
}

/** Render threads running now (for tests). */
export function renderThreadCount(): number {
  return pool?.threadCount ?? 0;
}

/**
 * Starts the render threads now, for the service's own process, so its first image does not wait
 * for them; resolves when each has loaded its modules and warmed its shading up (warm-up.ts).
 */
export async function startRenderThreads(): Promise<void> {
  const threads = renderPool();
  threads.prestart();
  // Idle threads take queued tasks one each: a ping per thread.
  const signal = new AbortController().signal;
  await Promise.all(Array.from({ length: RENDER_THREADS }, () => threads.run({ ping: true }, signal)));
}

/**
 * A pixel source for `rects` (the writer's full-resolution chunks, in its order) rendered on the
 * render threads, {@link AHEAD_PER_THREAD} chunks per thread ahead. Every pixel of a chunk is
 * written (nodata outside the AOI), so the writer need not pre-fill. `close` cancels the chunks
 * not taken (after a failure).
 */
export function threadedSource(req: RasterRequest, bigTiff: boolean | undefined, rects: PixelRect[], signal: AbortSignal): { source: PixelSource; close: () => void } {
  const threads = renderPool();
  const write = `${process.pid}-${++writes}`;
  const stop = new AbortController();
  const onAbort = (): void => stop.abort(signal.reason);
  signal.addEventListener('abort', onAbort, { once: true });
  const ahead = RENDER_THREADS * AHEAD_PER_THREAD;
  const sampleBytes = bytesPerSample(req.dataType);
  const largest = Math.max(...rects.map((r) => r.width * r.height)) * req.bands.length * sampleBytes;
  const buffers = Array.from({ length: Math.min(ahead, rects.length) }, () => spare.take(largest));
  const jobs: (Promise<null> | undefined)[] = [];
  let next = 0;
  let taken = 0;
  const dispatch = (): void => {
    for (; next < rects.length && next < taken + buffers.length; next++) {
      const job = threads.run({ write, req, bigTiff, rect: rects[next]!, buffer: buffers[next % buffers.length]! }, stop.signal);
      job.catch(() => undefined); // awaited when its chunk is taken; after a failure, never
      jobs[next] = job;
    }
  };
  const source: PixelSource = async (rect, out: PixelArray) => {
    const k = taken;
    const want = rects[k];
    if (!want || want.x !== rect.x || want.y !== rect.y || want.width !== rect.width || want.height !== rect.height) {
      throw new Error(`internal: the writer asked for chunk ${JSON.stringify(rect)} out of order`);
    }
    dispatch();
    await jobs[k];
    if (signal.aborted) throw abortError(signal);
    const n = rect.width * rect.height * req.bands.length;
    const buffer = buffers[k % buffers.length]!;
    out.set(req.dataType === 'INT16' ? new Int16Array(buffer, 0, n) : new Uint8Array(buffer, 0, n));
    jobs[k] = undefined;
    taken++;
    dispatch();
  };
  // The first chunks render while the writer sets itself up.
  dispatch();
  const close = (): void => {
    signal.removeEventListener('abort', onAbort);
    if (taken < rects.length) stop.abort(new Error('the write ended'));
    // Kept for the next write only when no chunk is left to render into them (an abandoned one may still be).
    else for (const b of buffers.splice(0)) spare.give(b);
  };
  return { source, close };
}
