/**
 * Entry of the WAL checkpoint worker thread (see wal-checkpointer.ts): its own connection to the
 * database file checkpoints when main says so (main waits for its commits to pause), again a second
 * later while a reader kept frames in the log, and answers each checkpoint with its result.
 * Bundled as out/main/wal-checkpoint-worker.js.
 */
import { DatabaseSync } from 'node:sqlite';
import { parentPort, workerData } from 'node:worker_threads';

/** What main sends: a file to open (workerData), then 'go' per checkpoint and 'close' at the end. */
export interface CheckpointWorkerData {
  file: string;
}

/** How long a checkpoint that left frames in the log waits before it runs again, ms. */
const RETRY_MS = 1000;

const port = parentPort!;
const db = new DatabaseSync((workerData as CheckpointWorkerData).file);
const checkpoint = db.prepare('PRAGMA wal_checkpoint(PASSIVE)');
let timer: NodeJS.Timeout | null = null;

function run(): void {
  timer = null;
  let r: { busy: number; log: number; checkpointed: number };
  try {
    r = checkpoint.get() as typeof r;
  } catch (e) {
    port.postMessage({ error: e instanceof Error ? e.message : String(e) });
    return;
  }
  port.postMessage({ busy: r.busy, log: r.log, checkpointed: r.checkpointed });
  if (r.busy || r.checkpointed < r.log) timer = setTimeout(run, RETRY_MS);
}

port.on('message', (m: unknown) => {
  if (m === 'close') {
    if (timer) clearTimeout(timer);
    db.close();
    port.close();
  } else if (!timer) run();
});
