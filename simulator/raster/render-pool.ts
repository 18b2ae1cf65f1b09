/**
 * The demo service's render threads. A large image's blocks are rendered on a pool of threads,
 * one per core, while its own thread applies the predictor and the thread pool compresses: the
 * landscape is most of a composite's CPU. Small images render on the service's thread, where a
 * thread's start would cost more than it saves. The threads are shared by every service in the
 * process and stay for the next image; idle, they never keep the process alive.
 */
import os from 'node:os';
import { entryPoint } from '../../main/shared/entry-point.js';
import { WorkerPool } from '../../main/shared/worker-pool.js';
import type { BlockRect } from './level-render.js';
import type { RasterRequest } from './types.js';

/** One block to render: the request (each thread builds its renderer once per image), where, and the block's samples as they are (nodata). */
export interface RenderTask {
  /** This image's number in the service's process: the threads' key for its renderer. */
  image: number;
  req: RasterRequest;
  bigTiff?: boolean;
  dataType: RasterRequest['dataType'];
  rect: BlockRect;
  block: Int16Array | Uint8Array;
}

/** Images of at least this many level-0 pixels render on the threads (four 512 x 512 blocks). */
export const THREADED_PIXELS = 1024 * 1024;

let pool: WorkerPool<RenderTask, ArrayBuffer> | null = null;
let images = 0;

function renderPool(): WorkerPool<RenderTask, ArrayBuffer> {
  pool ??= new WorkerPool<RenderTask, ArrayBuffer>({
    entry: () => entryPoint(import.meta.url, './render-worker.ts', 'simulator-render-worker'),
    size: Math.max(1, Math.min(4, os.availableParallelism())),
    name: 'render',
  });
  return pool;
}

/** A number for a new image (its renderer's key in the threads). */
export function nextImage(): number {
  return ++images;
}

/**
 * Renders a block on a thread into `out`, which holds the block's nodata: the thread renders into
 * a copy of it (pixels outside the AOI stay as they are) and hands it back.
 */
export async function renderOnThread(task: Omit<RenderTask, 'block'>, out: Int16Array | Uint8Array, signal: AbortSignal): Promise<void> {
  // A copy of the block alone: a view would send its whole buffer (the writer's chunk) to the thread.
  const done = await renderPool().run({ ...task, block: out.slice() }, signal);
  out.set(task.dataType === 'INT16' ? new Int16Array(done) : new Uint8Array(done));
}
