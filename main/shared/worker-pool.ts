/**
 * A small pool of long-lived worker threads (worker_threads) for main's heavy work: decoding and
 * writing rasters, analysis. Threads start on first use and stay, idle and unreferenced, for the
 * next task, so only the first task pays for a thread's start (its module graph: geotiff.js and
 * ours). Tasks queue for a free thread, one task per thread at a time.
 *
 * Cancelling: a queued task is dropped at once. A running one is either ended with its thread
 * (`cancelGraceMs` unset: nothing to clean up, so the caller gets its AbortError at once), or told
 * to stop (its signal in the worker fires) and given `cancelGraceMs` to answer before its thread is
 * terminated; the caller's promise settles only then, so whatever the task cleans up (a partial
 * file) is gone when it does.
 *
 * The worker side is {@link serveTasks}.
 */
import type { ResourceLimits, Worker } from 'node:worker_threads';
import { parentPort } from 'node:worker_threads';
import { abortError } from '../../common/abort.js';
import { startWorkerEntry, type EntryPoint } from './entry-point.js';

/** Main to a worker. */
export type ToWorker<T> = { id: number; task: T } | { id: number; cancel: true };

/** A worker to main: progress of a task, or its end. A failure carries what it needs to be rebuilt as an error. */
export type FromWorker<R> =
  | { id: number; progress: unknown }
  | { id: number; ok: true; result: R }
  | { id: number; ok: false; failure: WorkerFailure };

/** A task's failure as it crosses the thread boundary. */
export interface WorkerFailure {
  message: string;
  /** The system error's code (ENOSPC, EACCES...), when there is one. */
  code?: string;
  /** The error's name (AbortError, or a task-specific one the caller maps back). */
  name: string;
}

/** Options of {@link WorkerPool}. */
export interface WorkerPoolOptions<T = unknown> {
  /** The worker module. */
  entry: () => EntryPoint;
  /** Threads at most. */
  size: number;
  /** What the pool is, for error messages ("overview", "analysis"). */
  name: string;
  /** Time a cancelled running task has to stop before its thread is terminated; unset: terminated at once. */
  cancelGraceMs?: number;
  /** Rebuilds a task's failure as the error its caller expects; default: an Error with the message and code. */
  toError?: (failure: WorkerFailure) => Error;
  /** Each thread's V8 heap bounds (worker_threads resourceLimits); unset: V8's defaults. */
  resourceLimits?: ResourceLimits;
  /**
   * The error a task's caller gets when its thread died under it (out of memory: `code`
   * ERR_WORKER_OUT_OF_MEMORY; or exited); default: that error.
   */
  lostError?: (error: Error & { code?: unknown }, task: T) => Error;
}

interface Job<T> {
  id: number;
  task: T;
  resolve: (v: unknown) => void;
  reject: (e: unknown) => void;
  signal: AbortSignal;
  onAbort: () => void;
  onProgress?: (p: unknown) => void;
  transfer?: ArrayBuffer[];
}

interface Thread<T> {
  worker: Worker;
  job: Job<T> | null;
  killer?: ReturnType<typeof setTimeout>;
}

const defaultError = (f: WorkerFailure): Error => Object.assign(new Error(f.message), f.code ? { code: f.code } : {});

/** The pool: `run` a task on a thread, `close` with the app. */
export class WorkerPool<T, R> {
  private readonly threads: Thread<T>[] = [];
  private readonly queue: Job<T>[] = [];
  private nextId = 1;
  private closed = false;

  constructor(private readonly opts: WorkerPoolOptions<T>) {}

  /**
   * Runs `task` on a thread; rejects with an AbortError when `signal` fires first, else with the task's error.
   * `transfer`: buffers of the task moved to the thread, not copied (the caller no longer reads them).
   */
  run(task: T, signal: AbortSignal, onProgress?: (p: unknown) => void, transfer?: ArrayBuffer[]): Promise<R> {
    if (signal.aborted) return Promise.reject(abortError(signal));
    if (this.closed) return Promise.reject(new Error(`The ${this.opts.name} workers are closed.`));
    return new Promise<R>((resolve, reject) => {
      const job: Job<T> = { id: this.nextId++, task, resolve: resolve as (v: unknown) => void, reject, signal, onAbort: () => this.abort(job), onProgress, transfer };
      signal.addEventListener('abort', job.onAbort, { once: true });
      this.queue.push(job);
      this.pump();
    });
  }

  /** Starts every thread now, idle and unreferenced, so the first tasks do not wait for a thread to load its modules. */
  prestart(): void {
    while (!this.closed && this.threads.length < this.opts.size) this.spawn();
  }

  /** Threads running now (for tests). */
  get threadCount(): number {
    return this.threads.length;
  }

  private settle(t: Thread<T> | null, job: Job<T>, f: () => void): void {
    job.signal.removeEventListener('abort', job.onAbort);
    if (t) {
      clearTimeout(t.killer);
      t.killer = undefined;
      t.job = null;
      t.worker.unref(); // an idle thread does not keep the process alive
    }
    f();
    this.pump();
  }

  private end(t: Thread<T>): void {
    const i = this.threads.indexOf(t);
    if (i >= 0) this.threads.splice(i, 1);
    clearTimeout(t.killer);
    void t.worker.terminate();
  }

  private abort(job: Job<T>): void {
    const q = this.queue.indexOf(job);
    if (q >= 0) {
      this.queue.splice(q, 1);
      return this.settle(null, job, () => job.reject(abortError(job.signal)));
    }
    const t = this.threads.find((x) => x.job === job);
    if (!t) return;
    if (this.opts.cancelGraceMs == null) {
      // Nothing to clean up: end the thread (the only way to stop a decode in progress); the next task starts a fresh one.
      this.end(t);
      return this.settle(null, job, () => job.reject(abortError(job.signal)));
    }
    t.worker.postMessage({ id: job.id, cancel: true } satisfies ToWorker<T>);
    t.killer = setTimeout(() => {
      this.end(t);
      this.settle(null, job, () => job.reject(abortError(job.signal)));
    }, this.opts.cancelGraceMs);
  }

  private spawn(): Thread<T> {
    // workerData must be an object: geotiff.js imports web-worker, which reads workerData.mod in any worker thread.
    // execArgv is not inherited: a test runner's flags are not for this thread.
    const t: Thread<T> = { worker: startWorkerEntry(this.opts.entry(), { execArgv: [], workerData: {}, resourceLimits: this.opts.resourceLimits }), job: null };
    t.worker.on('message', (m: FromWorker<R>) => {
      const job = t.job;
      if (!job || job.id !== m.id) return;
      if ('progress' in m) return void job.onProgress?.(m.progress);
      if (m.ok) return this.settle(t, job, () => job.resolve(m.result));
      const error = m.failure.name === 'AbortError' || job.signal.aborted ? abortError(job.signal) : (this.opts.toError ?? defaultError)(m.failure);
      this.settle(t, job, () => job.reject(error));
    });
    const lost = (e: unknown): void => {
      const i = this.threads.indexOf(t);
      if (i < 0) return; // ended on purpose
      this.threads.splice(i, 1);
      clearTimeout(t.killer);
      const job = t.job;
      if (!job) return;
      const error = e instanceof Error ? e : new Error(`The ${this.opts.name} worker stopped (${String(e)}).`);
      this.settle(null, job, () => job.reject(job.signal.aborted ? abortError(job.signal) : this.opts.lostError ? this.opts.lostError(error, job.task) : error));
    };
    t.worker.on('error', lost);
    t.worker.on('exit', (code) => lost(new Error(`The ${this.opts.name} worker exited with code ${code}.`)));
    t.worker.unref();
    this.threads.push(t);
    return t;
  }

  private pump(): void {
    while (this.queue.length && !this.closed) {
      let t = this.threads.find((x) => x.job === null);
      if (!t) {
        if (this.threads.length >= this.opts.size) return;
        t = this.spawn();
      }
      const job = this.queue.shift()!;
      t.job = job;
      t.worker.ref(); // a running task keeps the process alive
      t.worker.postMessage({ id: job.id, task: job.task } satisfies ToWorker<T>, job.transfer);
    }
  }

  /** Ends every thread; queued and running tasks reject. */
  async close(): Promise<void> {
    this.closed = true;
    const closing = (job: Job<T>): void => {
      job.signal.removeEventListener('abort', job.onAbort);
      job.reject(new Error('The app is closing.'));
    };
    for (const job of this.queue.splice(0)) closing(job);
    const threads = this.threads.splice(0);
    for (const t of threads) {
      clearTimeout(t.killer);
      if (t.job) closing(t.job);
    }
    await Promise.all(threads.map((t) => t.worker.terminate()));
  }
}

/** What a task hands back: its result, and the buffers to move rather than copy. */
export interface TaskResult<R> {
  result: R;
  transfer?: ArrayBuffer[];
}

/**
 * The worker side of a {@link WorkerPool}: runs each task it is sent with a signal that fires on
 * cancel, and posts progress, the result or the failure back.
 */
export function serveTasks<T, R>(run: (task: T, signal: AbortSignal, progress: (p: unknown) => void) => Promise<TaskResult<R>>): void {
  const port = parentPort;
  if (!port) throw new Error('serveTasks runs in a worker thread.');
  const running = new Map<number, AbortController>();
  port.on('message', (m: ToWorker<T>) => {
    if ('cancel' in m) return void running.get(m.id)?.abort();
    const stop = new AbortController();
    running.set(m.id, stop);
    const post = (msg: FromWorker<R>, transfer: ArrayBuffer[] = []): void => port.postMessage(msg, transfer);
    run(m.task, stop.signal, (progress) => post({ id: m.id, progress })).then(
      ({ result, transfer }) => post({ id: m.id, ok: true, result }, transfer),
      (e: unknown) => {
        const err = e as { message?: unknown; code?: unknown; name?: unknown };
        const code = typeof err?.code === 'string' ? err.code : undefined;
        const name = stop.signal.aborted ? 'AbortError' : typeof err?.name === 'string' ? err.name : 'Error';
        post({ id: m.id, ok: false, failure: { message: e instanceof Error ? e.message : String(e), name, ...(code ? { code } : {}) } });
      },
    ).finally(() => running.delete(m.id));
  });
}
