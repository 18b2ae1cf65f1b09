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
  if (result.coverage) transfer.push(result.coverage.blob.buffer as ArrayBuffer);
  return { result, transfer };
});
