/**
 * A small pool of analysis worker threads (worker_threads). Tasks queue for a free thread; an
 * aborted task is dropped from the queue, or its thread is terminated (that stops its read at once)
 * and replaced on demand. Threads start lazily and are closed with the app.
 */
import os from 'node:os';
import type { Worker } from 'node:worker_threads';
import { abortError, throwIfAborted } from '../../common/abort.js';
import { entryPoint, startWorkerEntry } from '../shared/entry-point.js';
import { SkipError } from './compute.js';
import type { WorkerReply, WorkerTask } from './worker-protocol.js';

interface Job {
  id: number;
  task: WorkerTask;
  resolve: (v: unknown) => void;
  reject: (e: unknown) => void;
  signal: AbortSignal;
  onAbort?: () => void;
}

interface Thread {
  worker: Worker;
  job: Job | null;
}

/** The analysis threads of the app. */
export class AnalysisWorkers {
  private readonly size: number;
  private readonly threads: Thread[] = [];
  private readonly queue: Job[] = [];
  private nextId = 1;
  private closed = false;

  constructor(opts: { size?: number } = {}) {
    this.size = Math.max(1, opts.size ?? Math.min(2, Math.max(1, os.availableParallelism() - 1)));
  }

  /** Runs `task` on a thread; rejects with a {@link SkipError} when the file cannot contribute, an AbortError on abort. */
  run<T>(task: WorkerTask, signal: AbortSignal): Promise<T> {
    throwIfAborted(signal);
    if (this.closed) return Promise.reject(new Error('The analysis workers are closed.'));
    return new Promise<T>((resolve, reject) => {
      const job: Job = { id: this.nextId++, task, resolve: resolve as (v: unknown) => void, reject, signal };
      job.onAbort = () => this.abort(job);
      signal.addEventListener('abort', job.onAbort, { once: true });
      this.queue.push(job);
      this.pump();
    });
  }

  /** Threads running now (for tests). */
  get threadCount(): number {
    return this.threads.length;
  }

  private finish(job: Job): void {
    if (job.onAbort) job.signal.removeEventListener('abort', job.onAbort);
  }

  private abort(job: Job): void {
    const q = this.queue.indexOf(job);
    if (q >= 0) this.queue.splice(q, 1);
    const t = this.threads.find((x) => x.job === job);
    if (t) {
      // The only way to stop a decode in progress: end the thread; the next task starts a fresh one.
      this.threads.splice(this.threads.indexOf(t), 1);
      void t.worker.terminate();
    }
    this.finish(job);
    job.reject(abortError(job.signal));
    this.pump();
  }

  private spawn(): Thread {
    const entry = entryPoint(import.meta.url, './analysis-worker.ts', 'analysis-worker');
    // workerData must be an object: geotiff.js imports web-worker, which reads workerData.mod in any worker thread.
    // execArgv is not inherited: a test runner's flags are not for this thread.
    const t: Thread = { worker: startWorkerEntry(entry, { execArgv: [], workerData: {} }), job: null };
    t.worker.on('message', (reply: WorkerReply) => {
      const job = t.job;
      if (!job || job.id !== reply.id) return;
      t.job = null;
      t.worker.unref();
      this.finish(job);
      if (reply.ok) job.resolve(reply.result);
      else job.reject(reply.skip ? new SkipError(reply.message) : new Error(reply.message));
      this.pump();
    });
    const lost = (e: unknown) => {
      const i = this.threads.indexOf(t);
      if (i < 0) return; // terminated on purpose
      this.threads.splice(i, 1);
      if (t.job) {
        this.finish(t.job);
        t.job.reject(e instanceof Error ? e : new Error(`The analysis worker stopped (${String(e)}).`));
      }
      this.pump();
    };
    t.worker.on('error', lost);
    t.worker.on('exit', (code) => lost(new Error(`The analysis worker exited with code ${code}.`)));
    t.worker.unref();
    this.threads.push(t);
    return t;
  }

  private pump(): void {
    while (this.queue.length && !this.closed) {
      let t = this.threads.find((x) => x.job === null);
      if (!t) {
        if (this.threads.length >= this.size) return;
        t = this.spawn();
      }
      const job = this.queue.shift()!;
      t.job = job;
      t.worker.ref(); // a running task keeps the process alive; an idle thread does not
      t.worker.postMessage({ id: job.id, task: job.task });
    }
  }

  /** Ends every thread; queued and running tasks reject. */
  async close(): Promise<void> {
    this.closed = true;
    for (const job of this.queue.splice(0)) {
      this.finish(job);
      job.reject(new Error('The app is closing.'));
    }
    const threads = this.threads.splice(0);
    for (const t of threads) {
      if (t.job) {
        this.finish(t.job);
        t.job.reject(new Error('The app is closing.'));
      }
    }
    await Promise.all(threads.map((t) => t.worker.terminate()));
  }
}
