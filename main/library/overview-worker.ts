import { parentPort, workerData } from 'node:worker_threads';
import { buildOverviewCopy } from './overview.js';
import type { FromOverviewWorker, OverviewJob, ToOverviewWorker } from './overview-thread.js';

/**
 * Entry of the overview worker (a worker thread, one per build): decodes the source with
 * geotiff.js and writes the copy off main's thread. `cancel` aborts the build (its `.part` file is
 * removed); progress and the result go back as messages.
 */
const job = workerData as OverviewJob;
const port = parentPort!;
const stop = new AbortController();
port.on('message', (m: ToOverviewWorker) => {
  if (m.type === 'cancel') stop.abort();
});
const post = (m: FromOverviewWorker): void => port.postMessage(m);
buildOverviewCopy(job.src, job.dest, {
  signal: stop.signal,
  decimate: job.decimate,
  durable: job.durable,
  onProgress: job.progress ? (fraction) => post({ type: 'progress', fraction }) : undefined,
}).then(
  (copy) => post({ type: 'done', copy }),
  (e: unknown) => post({ type: 'failed', message: (e as Error).message, code: (e as { code?: unknown }).code, aborted: stop.signal.aborted }),
).finally(() => port.close());
