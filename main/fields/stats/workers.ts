/**
 * The field statistics worker threads: a {@link WorkerPool} of stats-worker.ts, sized as the
 * analysis threads are (main/analysis/pool.ts), with progress. A running task that is aborted ends
 * with its thread (nothing to clean up: results are written by main).
 */
import os from 'node:os';
import { entryPoint } from '../../shared/entry-point.js';
import { WorkerPool } from '../../shared/worker-pool.js';
import type { FieldsProgress, FieldsTask, FieldsTaskResult } from './compute.js';

export class FieldStatisticsWorkers {
  private readonly pool: WorkerPool<FieldsTask, FieldsTaskResult>;
  readonly size: number;

  constructor(opts: { size?: number } = {}) {
    this.size = Math.max(1, opts.size ?? Math.min(2, Math.max(1, os.availableParallelism() - 1)));
    this.pool = new WorkerPool({
      name: 'field statistics',
      entry: () => entryPoint(import.meta.url, './stats-worker.ts', 'fields-stats-worker'),
      size: this.size,
    });
  }

  run(task: FieldsTask, signal: AbortSignal, onProgress?: (p: FieldsProgress) => void): Promise<FieldsTaskResult> {
    return this.pool.run(task, signal, onProgress as ((p: unknown) => void) | undefined);
  }

  get threadCount(): number {
    return this.pool.threadCount;
  }

  close(): Promise<void> {
    return this.pool.close();
  }
}
