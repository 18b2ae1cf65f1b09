/**
 * Entry of the overview worker threads: builds copies (buildOverviewCopy) off main's thread, one
 * at a time per thread. A cancel fires the build's signal (its `.part` file is removed); progress
 * and the result go back as messages. Bundled as out/main/overview-worker.js.
 */
import { serveTasks } from '../shared/worker-pool.js';
import { buildOverviewCopy, type OverviewCopy } from './overview.js';
import type { OverviewJob } from './overview-thread.js';

serveTasks<OverviewJob, OverviewCopy>(async (job, signal, progress) => ({
  result: await buildOverviewCopy(job.src, job.dest, {
    signal,
    decimate: job.decimate,
    durable: job.durable,
    onProgress: job.progress ? progress : undefined,
  }),
}));
