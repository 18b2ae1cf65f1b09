import { abortError } from '../../common/abort.js';
import { entryPoint, startWorkerEntry, type EntryPoint } from '../shared/entry-point.js';
import type { BuildOverviewOptions, OverviewCopy } from './overview.js';

/**
 * Overview copies built in a worker thread (issue 11 item 5): geotiff.js's decoding and the
 * pyramid's averaging never run on main's thread, so IPC, downloads and the raster protocol keep
 * answering while a large striped TIFF is copied. The worker is main/library/overview-worker.ts
 * (out/main/overview-worker.js when bundled).
 */

/** What the worker is asked to build (its workerData). */
export interface OverviewJob {
  src: string;
  dest: string;
  decimate?: number;
  durable?: boolean;
  /** Whether to post progress messages. */
  progress: boolean;
}

/** Main to the worker. */
export type ToOverviewWorker = { type: 'cancel' };
/** The worker to main. */
export type FromOverviewWorker =
  | { type: 'progress'; fraction: number }
  | { type: 'done'; copy: OverviewCopy }
  /** `code`: the system error's (ENOSPC, EACCES...), absent when the source itself is at fault. */
  | { type: 'failed'; message: string; code?: unknown; aborted: boolean };

/** After a cancel, how long the worker may take to remove its partial file before it is terminated. */
export const CANCEL_GRACE_MS = 2_000;

/** The worker's entry: main/library/overview-worker.ts from source, out/main/overview-worker.js bundled. */
export function overviewWorkerEntry(): EntryPoint {
  return entryPoint(import.meta.url, './overview-worker.ts', 'overview-worker');
}

/**
 * {@link buildOverviewCopy} in a worker thread: same arguments and answer. The signal cancels the
 * build (the worker removes its `.part` file; a worker that does not stop within
 * {@link CANCEL_GRACE_MS} is terminated) and rejects with an AbortError.
 */
export function buildOverviewCopyInWorker(src: string, dest: string, opts: BuildOverviewOptions, entry: EntryPoint = overviewWorkerEntry()): Promise<OverviewCopy> {
  const { signal } = opts;
  if (signal.aborted) return Promise.reject(abortError(signal));
  const job: OverviewJob = { src, dest, decimate: opts.decimate, durable: opts.durable, progress: !!opts.onProgress };
  const worker = startWorkerEntry(entry, { workerData: job });
  return new Promise<OverviewCopy>((resolve, reject) => {
    let settled = false;
    let killer: ReturnType<typeof setTimeout> | undefined;
    const finish = (f: () => void): void => {
      if (settled) return;
      settled = true;
      signal.removeEventListener('abort', onAbort);
      clearTimeout(killer);
      f();
    };
    const onAbort = (): void => {
      worker.postMessage({ type: 'cancel' } satisfies ToOverviewWorker);
      killer = setTimeout(() => void worker.terminate(), CANCEL_GRACE_MS);
      killer.unref();
    };
    signal.addEventListener('abort', onAbort, { once: true });
    worker.on('message', (m: FromOverviewWorker) => {
      if (m.type === 'progress') opts.onProgress?.(m.fraction);
      else if (m.type === 'done') finish(() => resolve(m.copy));
      else finish(() => reject(m.aborted || signal.aborted ? abortError(signal) : Object.assign(new Error(m.message), typeof m.code === 'string' ? { code: m.code } : {})));
    });
    worker.on('error', (e) => finish(() => reject(signal.aborted ? abortError(signal) : e)));
    worker.on('exit', (code) => finish(() => reject(signal.aborted ? abortError(signal) : new Error(`The overview worker stopped (exit code ${code}) before ${dest} was written.`))));
  });
}
