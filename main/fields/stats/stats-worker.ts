/**
 * Entry of the field statistics worker threads: a statistics thread runs one chunk-over-a-grid task
 * at a time (compute.ts) at background priority (thread-priority.ts) and posts progress per raster and the results back (their buffers moved,
 * not copied; the coverage it computed is in a shared buffer); the results writer thread stores them in swath.db (write.ts). Bundled as its own
 * entry by electron-vite (out/main/fields-stats-worker.js); under tsx (tests, the browser host) it
 * runs from source.
 */
import { lowerThreadPriority } from '../../shared/thread-priority.js';
import { serveTasks } from '../../shared/worker-pool.js';
import { runFieldsTask, type FieldsTask, type FieldsTaskResult } from './compute.js';
import { runWriteTask, type FieldsWriteTask } from './write.js';

serveTasks<FieldsTask | FieldsWriteTask, FieldsTaskResult | number>(async (task, signal, progress) => {
  if (task.op !== 'fields') return { result: await runWriteTask(task, signal) };
  // A statistics thread reads and computes for minutes at a time: in the background of main's loop.
  lowerThreadPriority();
  const result = await runFieldsTask(task, signal, progress);
  const transfer: ArrayBuffer[] = [];
  for (const r of result.rasters) if ('values' in r) transfer.push(r.values.buffer as ArrayBuffer, r.parcels.buffer as ArrayBuffer);
  return { result, transfer };
});
