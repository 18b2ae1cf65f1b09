/**
 * The field statistics worker threads (stats-worker.ts): a {@link WorkerPool} of statistics threads,
 * sized as the analysis threads are (main/analysis/pool.ts), with progress; and one results writer
 * thread with its own connection to swath.db (write.ts), so main's event loop never holds a
 * transaction of a run's results. A running statistics task that is aborted ends with its thread
 * (nothing to clean up); a write that is aborted ends after its transaction in progress, so a
 * cancelled run's stored rows are whole transactions.
 */
import os from 'node:os';
import { entryPoint } from '../../shared/entry-point.js';
import { WorkerPool } from '../../shared/worker-pool.js';
import type { FieldsProgress, FieldsTask, FieldsTaskResult } from './compute.js';
import type { FieldsWriteTask } from './write.js';

/** Time a cancelled write has to end its transaction before its thread is terminated (which rolls it back), ms. */
const WRITE_CANCEL_GRACE_MS = 5_000;

const entry = () => entryPoint(import.meta.url, './stats-worker.ts', 'fields-stats-worker');

export class FieldStatisticsWorkers {
  private readonly pool: WorkerPool<FieldsTask, FieldsTaskResult>;
  private readonly writer: WorkerPool<FieldsWriteTask, number>;
  readonly size: number;

  constructor(opts: { size?: number } = {}) {
    this.size = Math.max(1, opts.size ?? Math.min(2, Math.max(1, os.availableParallelism() - 1)));
    this.pool = new WorkerPool({ name: 'field statistics', entry, size: this.size });
    this.writer = new WorkerPool({ name: 'field statistics writer', entry, size: 1, cancelGraceMs: WRITE_CANCEL_GRACE_MS });
  }

  run(task: FieldsTask, signal: AbortSignal, onProgress?: (p: FieldsProgress) => void): Promise<FieldsTaskResult> {
    return this.pool.run(task, signal, onProgress as ((p: unknown) => void) | undefined);
  }

  /**
   * Stores a raster's results or a chunk's coverage in the writer thread (one task at a time, in the
   * order given); resolves to the result rows written. A raster's result arrays are moved to the
   * thread: the caller no longer reads them.
   */
  write(task: FieldsWriteTask, signal: AbortSignal): Promise<number> {
    return this.writer.run(task, signal, undefined, task.op === 'results' ? [task.results.values.buffer as ArrayBuffer, task.results.parcels.buffer as ArrayBuffer] : undefined);
  }

  get threadCount(): number {
    return this.pool.threadCount;
  }

  async close(): Promise<void> {
    await Promise.all([this.pool.close(), this.writer.close()]);
  }
}
