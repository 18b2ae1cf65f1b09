/**
 * Entry of the fields import worker (main/fields/parcels.ts starts it through the worker pool):
 * inspects parcel files, imports them into swath.db on a connection of its own, and removes the
 * parcels of deleted sets, so main's event loop never waits on a file or a batch of rows; the
 * same entry serves ParcelStore's read thread, which packs a chunk of stored parcels for a
 * statistics run (main/fields/stored.ts). Bundled as out/main/fields-import-worker.js.
 */
import { serveTasks } from '../../shared/worker-pool.js';
import { packStored, type PackTask } from '../stored.js';
import { importFile, inspectFile, purgeTask, type FieldsImportTask } from './run.js';

serveTasks<FieldsImportTask | PackTask, unknown>(async (task, signal, progress) => {
  if (task.op === 'pack') {
    const p = packStored(task);
    return { result: p, transfer: [p.indices.buffer, p.parts.buffer, p.rings.buffer, p.coords.buffer, p.xy.buffer] as ArrayBuffer[] };
  }
  if (task.op === 'inspect') return { result: await inspectFile(task.file, task.limits) };
  if (task.op === 'import') return { result: await importFile(task, signal, progress) };
  return { result: await purgeTask(task) };
});
