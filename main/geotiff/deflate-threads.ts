/**
 * The DEFLATE threads of the GeoTIFF writer: a process-wide {@link WorkerPool} whose threads apply a
 * block's predictor and compress it (deflate-worker.ts), reading the block from a shared input slot
 * and writing the compressed bytes to a shared output slot. Neither the blocks nor zlib's buffers
 * are allocated on the writer's thread, so its garbage collector never runs for them.
 */
import os from 'node:os';
import { entryPoint } from '../shared/entry-point.js';
import { WorkerPool } from '../shared/worker-pool.js';

/** One block to compress: `bytes` raw bytes at the start of `input`, compressed into `output`. */
export interface DeflateTask {
  input: SharedArrayBuffer;
  output: SharedArrayBuffer;
  bytes: number;
  predictor: 2 | 3;
  /** Samples in a row of the block, rows, bytes per sample and samples per pixel (the predictor's geometry). */
  rowSamples: number;
  rows: number;
  sampleBytes: 1 | 2 | 4;
  spp: number;
  /** zlib's level and memLevel. */
  level: number;
  memLevel: number;
}

/** Threads at most: one per core, at most two (the writer's own thread and a renderer share the cores). */
export function deflateThreadCount(): number {
  return Math.max(1, Math.min(2, os.availableParallelism()));
}

/**
 * A DEFLATE thread's heap bounds. Its heap holds only its modules (about 7-9 MB from source, less
 * bundled); each block's zlib output is a buffer it drops at once, and V8 collects that garbage by
 * heap limits: with V8's defaults a thread holds 20-27 MB of dead output buffers, with these
 * about half.
 */
const THREAD_LIMITS = { maxOldGenerationSizeMb: 32, maxYoungGenerationSizeMb: 2 };

let pool: WorkerPool<DeflateTask, number> | null = null;

/** The process's DEFLATE threads: started on first use; idle threads do not keep the process alive. */
export function deflateThreads(): WorkerPool<DeflateTask, number> {
  pool ??= new WorkerPool<DeflateTask, number>({
    name: 'GeoTIFF compression',
    entry: () => entryPoint(import.meta.url, './deflate-worker.ts', 'geotiff-deflate-worker'),
    size: deflateThreadCount(),
    resourceLimits: THREAD_LIMITS,
  });
  return pool;
}

/** Starts the DEFLATE threads now (a service's start), so its first file does not wait for them to load. */
export function startDeflateThreads(): void {
  deflateThreads().prestart();
}
