/**
 * Entry of the fields import worker (main/fields/parcels.ts starts it through the worker pool):
 * inspects parcel files, imports them into swath.db on a connection of its own, and removes the
 * parcels of deleted sets, so main's event loop never waits on a file or a batch of rows.
 * Bundled as out/main/fields-import-worker.js.
 */
import { serveTasks } from '../../shared/worker-pool.js';
import { importFile, inspectFile, purgeTask, type FieldsImportTask } from './run.js';

serveTasks<FieldsImportTask, unknown>(async (task, signal, progress) => {
  if (task.op === 'inspect') return { result: await inspectFile(task.file, task.limits) };
  if (task.op === 'import') return { result: await importFile(task, signal, progress) };
  return { result: await purgeTask(task) };
});
