import { entryPoint, type EntryPoint } from '../shared/entry-point.js';
import { WorkerPool } from '../shared/worker-pool.js';
import type { BuildOverviewOptions, OverviewCopy } from './overview.js';

/**
 * Overview copies built in worker threads: geotiff.js's decoding and the
 * pyramid's averaging never run on main's thread, so IPC, downloads and the raster protocol keep
 * answering while a large striped TIFF is copied. The workers run main/library/overview-worker.ts
 * (out/main/overview-worker.js when bundled) and stay for the next build: a quick look does not
 * wait for a thread to load its modules, except the session's first.
 */

/** What a worker is asked to build. */
export interface OverviewJob {
  src: string;
  dest: string;
  decimate?: number;
  durable?: boolean;
  /** Whether to post progress. */
  progress: boolean;
}

/** After a cancel, how long a build may take to remove its partial file before its thread is terminated. */
export const CANCEL_GRACE_MS = 2_000;

/**
 * Threads at most: a quick look and a full copy (of this or another file) at once. More would only
 * share the same cores and disk.
 */
export const OVERVIEW_THREADS = 2;

/** The worker's entry: main/library/overview-worker.ts from source, out/main/overview-worker.js bundled. */
export function overviewWorkerEntry(): EntryPoint {
  return entryPoint(import.meta.url, './overview-worker.ts', 'overview-worker');
}

/** The overview threads of the app. */
export class OverviewWorkers {
  private readonly pool: WorkerPool<OverviewJob, OverviewCopy>;

  /** `cancelGraceMs`: how long a cancelled build may take to stop before its thread is terminated ({@link CANCEL_GRACE_MS}). */
  constructor(opts: { cancelGraceMs?: number } = {}) {
    this.pool = new WorkerPool<OverviewJob, OverviewCopy>({
      name: 'overview', entry: overviewWorkerEntry, size: OVERVIEW_THREADS, cancelGraceMs: opts.cancelGraceMs ?? CANCEL_GRACE_MS,
    });
  }

  /**
   * {@link buildOverviewCopy} on a worker thread: same arguments and answer. The signal cancels the
   * build (the worker removes its `.part` file; a thread that does not stop within
   * {@link CANCEL_GRACE_MS} is terminated), and the promise rejects with an AbortError once it has.
   */
  build(src: string, dest: string, opts: BuildOverviewOptions): Promise<OverviewCopy> {
    const job: OverviewJob = { src, dest, decimate: opts.decimate, durable: opts.durable, progress: !!opts.onProgress };
    return this.pool.run(job, opts.signal, opts.onProgress && ((p) => opts.onProgress!(p as number)));
  }

  /** Threads running now (for tests). */
  get threadCount(): number {
    return this.pool.threadCount;
  }

  /** Ends the threads; builds still running reject (their partial files are left to {@link OverviewCache.prune}). */
  close(): Promise<void> {
    return this.pool.close();
  }
}
