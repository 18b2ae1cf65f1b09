/**
 * Entry of the field statistics worker threads: runs one chunk-over-a-grid task at a time
 * (compute.ts) and posts progress per raster and the results back (their buffers moved, not
 * copied). Bundled as its own entry by electron-vite (out/main/fields-stats-worker.js); under tsx
 * (tests, the browser host) it runs from source.
 */
import { serveTasks } from '../../shared/worker-pool.js';
import { runFieldsTask, type FieldsTask, type FieldsTaskResult } from './compute.js';

serveTasks<FieldsTask, FieldsTaskResult>(async (task, signal, progress) => {
  const result = await runFieldsTask(task, signal, progress);
  const transfer: ArrayBuffer[] = [];
  for (const r of result.rasters) if ('values' in r) transfer.push(r.values.buffer as ArrayBuffer, r.parcels.buffer as ArrayBuffer);
  const c = result.coverage;
  if (c) {
    // The chunk's indices came with the task (a copy of main's): not moved, the rest is this thread's own.
    transfer.push(c.windows.buffer as ArrayBuffer, c.areaPx.buffer as ArrayBuffer, c.cellStart.buffer as ArrayBuffer, c.cells.buffer as ArrayBuffer);
    if (c.weights) transfer.push(c.weights.buffer as ArrayBuffer);
  }
  return { result, transfer };
});
