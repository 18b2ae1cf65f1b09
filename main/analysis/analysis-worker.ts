/**
 * Entry of the analysis worker threads: reads and computes one file task at a time (compute.ts) and
 * posts the result back (a change grid's values are moved, not copied; its summary is computed here). Bundled as its own entry by
 * electron-vite (out/main/analysis-worker.js); under tsx (tests, the browser host) it runs from source.
 */
import { serveTasks } from '../shared/worker-pool.js';
import { areaItem, changeGrid, changeSummary, pointItem, type ChangeResult } from './compute.js';
import type { WorkerTask } from './worker-protocol.js';

serveTasks<WorkerTask, unknown>(async (task, signal) => {
  if (task.op === 'area') return { result: await areaItem(task.file, task.spec, task.aoi, signal) };
  if (task.op === 'point') return { result: await pointItem(task.file, task.spec, task.point, signal) };
  const grid = await changeGrid(task.fileA, task.fileB, task.spec, task.aoi, signal);
  return { result: { grid, summary: changeSummary(grid) } satisfies ChangeResult, transfer: [grid.values.buffer as ArrayBuffer] };
});
