/**
 * The analysis worker threads: a {@link WorkerPool} of main/analysis/analysis-worker.ts. A running
 * task that is aborted ends with its thread (that stops its read at once); a file that cannot
 * contribute comes back as a {@link SkipError}.
 */
import os from 'node:os';
import { entryPoint } from '../shared/entry-point.js';
import { WorkerPool } from '../shared/worker-pool.js';
import { SkipError } from './compute.js';
import type { WorkerTask } from './worker-protocol.js';

/** The analysis threads of the app. */
export class AnalysisWorkers {
  private readonly pool: WorkerPool<WorkerTask, unknown>;

  constructor(opts: { size?: number } = {}) {
    this.pool = new WorkerPool({
      name: 'analysis',
      entry: () => entryPoint(import.meta.url, './analysis-worker.ts', 'analysis-worker'),
      size: Math.max(1, opts.size ?? Math.min(2, Math.max(1, os.availableParallelism() - 1))),
      toError: (f) => (f.name === 'SkipError' ? new SkipError(f.message) : new Error(f.message)),
    });
  }

  /** Runs `task` on a thread; rejects with a {@link SkipError} when the file cannot contribute, an AbortError on abort. */
  run<T>(task: WorkerTask, signal: AbortSignal): Promise<T> {
    return this.pool.run(task, signal) as Promise<T>;
  }

  /** Threads running now (for tests). */
  get threadCount(): number {
    return this.pool.threadCount;
  }

  /** Ends every thread; queued and running tasks reject. */
  close(): Promise<void> {
    return this.pool.close();
  }
}
