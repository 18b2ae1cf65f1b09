/**
 * Entry of the analysis worker threads: reads and computes one file task at a time (compute.ts) and
 * posts the result back. Bundled as its own entry by electron-vite (out/main/analysis-worker.js);
 * under tsx (tests, the browser host) it runs from source. Cancelling terminates the thread.
 */
import { parentPort } from 'node:worker_threads';
import { areaItem, changeGrid, pointItem, SkipError } from './compute.js';
import type { WorkerReply, WorkerTask } from './worker-protocol.js';

const never = new AbortController().signal;

async function run(task: WorkerTask): Promise<{ result: unknown; transfer: ArrayBuffer[] }> {
  if (task.op === 'area') return { result: await areaItem(task.file, task.spec, task.aoi, never), transfer: [] };
  if (task.op === 'point') return { result: await pointItem(task.file, task.spec, task.point, never), transfer: [] };
  const grid = await changeGrid(task.fileA, task.fileB, task.spec, task.aoi, never);
  return { result: grid, transfer: [grid.values.buffer as ArrayBuffer] };
}

parentPort?.on('message', (msg: { id: number; task: WorkerTask }) => {
  run(msg.task).then(
    ({ result, transfer }) => parentPort!.postMessage({ id: msg.id, ok: true, result } satisfies WorkerReply, transfer),
    (e: unknown) => parentPort!.postMessage({ id: msg.id, ok: false, skip: e instanceof SkipError, message: e instanceof Error ? e.message : String(e) } satisfies WorkerReply),
  );
});
