import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import path from 'node:path';
import { z } from 'zod';
import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { afterCommit, importJsonOnce, inTransaction, openDatabase } from '../shared/database.js';
import { abortError, sleep, throwIfAborted } from '../../common/abort.js';
import { backoffDelay } from '../../common/backoff.js';
import type { DownloadSink } from '../library/download-sink.js';
import { describedFileName } from './file-name.js';
import { numberedName } from '../shared/files.js';
import { PART_SUFFIX, downloadToFile, removeIfExists } from './stream-to-file.js';
import {
  DOWNLOAD_KINDS, DownloadError, errorKind, errorMessage, serviceDidNothing, withoutSecrets,
  type BatchJobRunner, type BatchSpec, type BinarySource, type DownloadJob, type DownloadKind, type JobPass, type JobSpend, type ProgressEvent,
} from './types.js';

/** Name of the queue file of earlier versions inside the userData directory: imported once into swath.db, then kept as `downloads.json.imported-<ms>`. */
export const QUEUE_FILE = 'downloads.json';

/** Most jobs one {@link DownloadQueue.page} returns. */
export const MAX_PAGE = 500;

/** Finished states: such a job lives only in the database (history), never in memory. */
const FINISHED: ReadonlySet<string> = new Set(['done', 'failed', 'cancelled']);

/** How many jobs are in each state (active and history). */
export type JobCounts = Record<DownloadJob['state'], number>;

/** One page of jobs: the active ones first (oldest first), then the history (newest first). */
export interface JobPage {
  /** Jobs matching the filter, in all pages. */
  total: number;
  jobs: DownloadJob[];
  /** Where the next page starts (pass it as `after`), or null after the last page. */
  next: string | null;
}

/** What {@link DownloadQueue.page} is asked. */
export interface PageQuery {
  limit: number;
  state?: DownloadJob['state'];
  /** A `next` of an earlier page: the page starts after that job; absent: the first page. */
  after?: string;
}

/**
 * A position in the list: after this active job (by creation time, then id) or after this
 * history job (by end time, newest first, then id). Positions are values, not offsets: a job that
 * starts, ends or is removed while the analyst scrolls never shifts a page, so none is skipped.
 */
type Cursor = { in: 'active'; at: string; id: string } | { in: 'history'; at: string; id: string };

const cursorSchema = z.strictObject({ in: z.enum(['active', 'history']), at: z.string().max(64), id: z.string().max(128) });

function encodeCursor(c: Cursor): string {
  return Buffer.from(JSON.stringify(c)).toString('base64url');
}

function decodeCursor(after: string): Cursor {
  let parsed: unknown = null;
  try {
    parsed = after.length <= 400 ? JSON.parse(Buffer.from(after, 'base64url').toString('utf8')) : null;
  } catch {
    parsed = null;
  }
  const c = cursorSchema.safeParse(parsed);
  if (!c.success) throw new DownloadError('validation', 'after: not a position this list gave (ask for the first page again).');
  return c.data;
}

/** Active jobs in list order: oldest first, ties by id. */
const activeOrder = (a: DownloadJob, b: DownloadJob): number => (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/** Events of the queue: throttled progress of running jobs, and every job change (state, attempts, reason). */
export type QueueEvents = { progress: [ProgressEvent]; job: [DownloadJob]; warning: [string] };

/** Options of {@link DownloadQueue.open}. */
export interface DownloadQueueOptions {
  /** userData directory (an old downloads.json there is imported once). */
  stateDir: string;
  /** The app's open database; absent: the queue opens (and owns) swath.db in `stateDir` itself. */
  db?: DatabaseSync;
  source: BinarySource;
  /** Finished downloads are recorded here; without it jobs just end with a file. */
  library?: DownloadSink | null;
  /** Runs jobs that carry a batch spec (parts, mosaic, time series). */
  runBatch?: BatchJobRunner;
  /** Parallel transfers: the account's MaxConcurrentConnections (see {@link DownloadQueue.setConcurrency}). */
  concurrency: number;
  /**
   * The spend guard: every job is cleared by it before its first POST of a run (a job brought back at
   * start included), and told of every attempt the service charged. Absent (tests of the transfer
   * alone): jobs are sent as they are.
   */
  spend?: JobSpend;
  /**
   * What reacts to every change of a job (its end above all), told in this order before the 'job'
   * event: the window (`emit`), the spend guard (`spend`: a finished job's held pass is recorded, a
   * failed or cancelled one's released) and the team library (`team`: a finished job is shared with
   * the team, a failed or cancelled one ends its claim). They share one copy of the job: read it, never change it.
   */
  onJob?: JobReactions;
  /** Attempts per job before it fails (default 8); only attempts the service surely did nothing with are made again. */
  maxAttempts?: number;
  /** Exponential backoff with full jitter (common/backoff.ts): delay = random(0, min(maxMs, baseMs · 2^(attempt-1))); a Retry-After waited for up to maxMs. */
  backoff?: { baseMs?: number; maxMs?: number };
  /** Minimum time between progress events of one job (default 250 ms). */
  progressIntervalMs?: number;
  /** Abandon (and fail) a transfer that receives nothing for this long (default 60 s). */
  stallTimeoutMs?: number;
  /** Start transfers right after open() resolves (default true); otherwise call {@link DownloadQueue.start}. */
  autoStart?: boolean;
  now?: () => number;
  random?: () => number;
  /** Told when the old queue file was unreadable and set aside (before listeners can be attached). */
  onWarning?: (message: string) => void;
}

/** The reactions to a job's changes (see {@link DownloadQueueOptions.onJob}). */
export interface JobReactions {
  emit?(job: DownloadJob): void;
  spend?(job: DownloadJob): void;
  team?(job: DownloadJob): void;
}

/** What a caller gives to enqueue a download. */
export interface NewDownload {
  kind: DownloadKind;
  request: Record<string, unknown>;
  targetDir: string;
  /** Present for a large job run by the batch runner. */
  batch?: BatchSpec;
  /** The spend guard's pass it was cleared with, stored with the job. */
  pass?: JobPass;
}

const batchSchema = z.object({
  type: z.enum(['split', 'series']),
  limits: z.object({ maxCompositeAreaKm2: z.number().positive(), maxTotalBands: z.number().int().positive() }),
  dates: z.array(z.string()).optional(),
  parts: z.number().int().positive(),
});

const passSchema = z.object({
  id: z.string().min(1).max(128),
  profileId: z.string().min(1).max(256),
  costEur: z.number().nonnegative().nullable(),
  at: z.string().max(64),
  what: z.string().max(500),
});

const newDownloadSchema = z.object({
  kind: z.enum(DOWNLOAD_KINDS as [DownloadKind, ...DownloadKind[]]),
  request: z.record(z.string(), z.unknown()),
  batch: batchSchema.optional(),
  pass: passSchema.optional(),
  targetDir: z.string().min(1).refine((p) => path.isAbsolute(p), 'must be an absolute path'),
});

const jobSchema = z.object({
  id: z.string().min(1),
  kind: z.enum(DOWNLOAD_KINDS as [DownloadKind, ...DownloadKind[]]),
  request: z.record(z.string(), z.unknown()),
  targetDir: z.string().min(1),
  state: z.enum(['queued', 'running', 'done', 'failed', 'cancelled']),
  reason: z.string().optional(),
  errorKind: z.string().optional(),
  bytes: z.number().nonnegative(),
  total: z.number().nonnegative().nullable(),
  attempts: z.number().int().nonnegative(),
  file: z.string().optional(),
  libraryId: z.string().optional(),
  partPath: z.string().optional(),
  batch: batchSchema.optional(),
  pass: passSchema.optional(),
  sending: z.boolean().optional(),
  charged: z.number().int().nonnegative().optional(),
  mayHaveCharged: z.boolean().optional(),
  files: z.array(z.string()).optional(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
const fileSchema = z.object({ version: z.literal(1), jobs: z.array(jobSchema) });

interface Running {
  controller: AbortController;
  /** Why the transfer is being stopped: the user cancelled it, or the queue is closing (the job resumes next start). */
  stop: 'cancel' | 'close' | null;
  /** The current attempt's POST was answered with the file: the service charged it, so it is never sent again on its own. */
  answered: boolean;
  done: Promise<void>;
  progress: { lastEmit: number; samples: { t: number; bytes: number }[] };
}

/** Only a `.part` directly inside the job's own folder may be deleted, whatever a (possibly edited) queue file says. */
function isOwnPart(job: DownloadJob): boolean {
  const p = job.partPath;
  return !!p && p.endsWith(PART_SUFFIX) && path.dirname(path.resolve(p)) === path.resolve(job.targetDir);
}

/**
 * The persistent download queue: jobs survive crashes and restarts (table `download_jobs` of
 * swath.db, each change one small transaction), run with bounded concurrency, send a paid request
 * again (with backoff) only when the service surely did nothing with it, and hand finished, verified
 * files to the library. Only active jobs
 * (queued, running) are held in memory; finished ones are history, read a page at a time.
 */
export class DownloadQueue extends EventEmitter<QueueEvents> {
  private readonly jobs = new Map<string, DownloadJob>();
  private readonly running = new Map<string, Running>();
  private readonly sql: Record<'put' | 'one' | 'del' | 'active' | 'history' | 'historyOf' | 'count' | 'countOf' | 'clearOf', StatementSync>;
  private readonly source: BinarySource;
  private readonly library: DownloadSink | null;
  private readonly batchRunner: BatchJobRunner | null;
  private readonly spend: JobSpend | null;
  private readonly reactions: JobReactions;
  private readonly maxAttempts: number;
  private readonly baseMs: number;
  private readonly maxMs: number;
  private readonly progressMs: number;
  private readonly stallMs: number | undefined;
  private readonly now: () => number;
  private readonly random: () => number;
  private limit: number;
  private started = false;
  private closed = false;
  private idleWaiters: (() => void)[] = [];

  private constructor(readonly file: string, private readonly db: DatabaseSync, private readonly ownsDb: boolean, opts: DownloadQueueOptions) {
    super();
    this.source = opts.source;
    this.library = opts.library ?? null;
    this.batchRunner = opts.runBatch ?? null;
    this.spend = opts.spend ?? null;
    this.reactions = opts.onJob ?? {};
    this.maxAttempts = opts.maxAttempts ?? 8;
    this.baseMs = opts.backoff?.baseMs ?? 500;
    this.maxMs = opts.backoff?.maxMs ?? 30_000;
    this.progressMs = opts.progressIntervalMs ?? 250;
    this.stallMs = opts.stallTimeoutMs;
    this.now = opts.now ?? Date.now;
    this.random = opts.random ?? Math.random;
    this.limit = DownloadQueue.checkLimit(opts.concurrency);
    const p = (q: string): StatementSync => db.prepare(q);
    this.sql = {
      put: p(`INSERT INTO download_jobs (id, state, finished, created_at, updated_at, job) VALUES (?, ?, ?, ?, ?, ?)
        ON CONFLICT (id) DO UPDATE SET state = excluded.state, finished = excluded.finished, updated_at = excluded.updated_at, job = excluded.job`),
      one: p('SELECT job FROM download_jobs WHERE id = ?'),
      del: p('DELETE FROM download_jobs WHERE id = ?'),
      active: p('SELECT job FROM download_jobs WHERE finished = 0 ORDER BY created_at, rowid'),
      history: p('SELECT job, updated_at AS at, id FROM download_jobs WHERE finished = 1 AND (updated_at, id) < (?, ?) ORDER BY updated_at DESC, id DESC LIMIT ?'),
      historyOf: p('SELECT job, updated_at AS at, id FROM download_jobs WHERE state = ? AND (updated_at, id) < (?, ?) ORDER BY updated_at DESC, id DESC LIMIT ?'),
      count: p('SELECT COUNT(*) AS n FROM download_jobs WHERE finished = 1'),
      countOf: p('SELECT COUNT(*) AS n FROM download_jobs WHERE state = ?'),
      clearOf: p('DELETE FROM download_jobs WHERE finished = 1 AND state = ?'),
    };
  }

  private static checkLimit(n: number): number {
    if (!Number.isInteger(n) || n < 1) throw new DownloadError('validation', `concurrency must be a positive integer, got ${n}.`);
    return n;
  }

  /**
   * Loads the queue from `opts.stateDir` and recovers from a crash, before anything new starts:
   * stale `.part` files are deleted; a job whose paid POST was out when the app stopped fails, and is
   * not sent again (the service may have rendered and charged it; an answer it gave was charged and
   * written to the ledger when it came); a job that had sent nothing goes back to queued, and the
   * spend guard clears it again before it is sent ({@link JobSpend.clearJob}).
   */
  static async open(opts: DownloadQueueOptions, signal?: AbortSignal): Promise<DownloadQueue> {
    const db = opts.db ?? (await openDatabase({ dir: opts.stateDir, onWarning: opts.onWarning, now: opts.now })).db;
    const q = new DownloadQueue(path.join(opts.stateDir, QUEUE_FILE), db, !opts.db, opts);
    await q.importJson(signal, opts.onWarning);
    for (const r of q.sql.active.all() as { job: string }[]) {
      const job = JSON.parse(r.job) as DownloadJob;
      q.jobs.set(job.id, job);
    }
    for (const job of q.jobs.values()) {
      let changed = false;
      if (job.partPath) {
        if (isOwnPart(job)) await removeIfExists(job.partPath).catch(() => undefined);
        delete job.partPath;
        changed = true;
      }
      // Written by every version that stores passes; an older job that was running may have been sending.
      if (job.state === 'running' && job.sending !== false) {
        job.state = 'failed';
        job.reason = `Interrupted: Swath stopped while this paid request was with the service. It was not sent again, since the service may have charged it already${job.charged ? ' (it answered, so it charged)' : ''}. Retry sends it again, through the spend guard.`;
        job.errorKind = 'transient';
        job.sending = false;
        job.mayHaveCharged = true;
        job.updatedAt = new Date(q.now()).toISOString();
        changed = true;
      } else if (job.state === 'running') {
        job.state = 'queued';
        job.reason = 'Interrupted (the app stopped during the transfer); re-queued.';
        delete job.errorKind;
        job.bytes = 0;
        job.updatedAt = new Date(q.now()).toISOString();
        changed = true;
      }
      if (changed) q.write(job);
    }
    // Deferred so listeners attached right after `await open()` see the first state changes.
    if (opts.autoStart ?? true) setImmediate(() => q.start());
    return q;
  }

  /**
   * Imports an old downloads.json once, in one transaction, then renames it
   * `downloads.json.imported-<ms>` and keeps it; an unreadable one is renamed `.corrupt-<ms>` with a
   * warning and the queue starts without it.
   */
  private async importJson(signal: AbortSignal | undefined, warn: ((m: string) => void) | undefined): Promise<void> {
    await importJsonOnce(this.db, {
      file: this.file, subject: 'the queue', format: 'queue', schema: fileSchema, now: this.now, warn, signal,
      write: ({ jobs }) => {
        for (const j of jobs as DownloadJob[]) this.put(j);
      },
    });
  }

  /** Writes one job's row (the caller's transaction, or its own). */
  private put(job: DownloadJob): void {
    this.sql.put.run(job.id, job.state, FINISHED.has(job.state) ? 1 : 0, job.createdAt, job.updatedAt, JSON.stringify(job));
  }

  /** Writes one job (its own small transaction); a finished job then leaves memory. */
  private write(job: DownloadJob): void {
    this.put(job);
    afterCommit(this.db);
    if (FINISHED.has(job.state) && !this.running.has(job.id)) this.jobs.delete(job.id);
  }

  /** Current concurrency limit. */
  get concurrency(): number {
    return this.limit;
  }

  /** Changes the concurrency limit at runtime (e.g. when account info reports a new MaxConcurrentConnections). */
  setConcurrency(n: number): void {
    this.limit = DownloadQueue.checkLimit(n);
    this.pump();
  }

  /** Starts transferring queued jobs (open() does this unless autoStart is false). */
  start(): void {
    if (this.closed) return;
    this.started = true;
    this.pump();
  }

  /** The active jobs (queued, running), oldest first; the finished ones are in {@link page}. */
  list(): DownloadJob[] {
    return [...this.jobs.values()].map((j) => structuredClone(j));
  }

  /**
   * One page of every job (or of one state): the active ones first, oldest first, then the
   * history newest first, read from the database's indexes (`limit` ≤ {@link MAX_PAGE}). Pages
   * follow each other by position ({@link PageQuery.after}), so none is skipped or repeated when
   * jobs start, end or are removed in between.
   */
  page(query: PageQuery): JobPage {
    const limit = Math.min(Math.max(1, Math.floor(query.limit)), MAX_PAGE);
    const { state } = query;
    const from = query.after === undefined ? null : decodeCursor(query.after);
    const wantsActive = state === undefined || !FINISHED.has(state);
    const wantsHistory = state === undefined || FINISHED.has(state);
    const active = wantsActive ? [...this.jobs.values()].filter((j) => !FINISHED.has(j.state) && (state === undefined || j.state === state)).sort(activeOrder) : [];
    const jobs: DownloadJob[] = [];
    let next: Cursor | null = null;
    if (from === null || from.in === 'active') {
      const start = from === null ? 0 : active.findIndex((j) => activeOrder(j, { createdAt: from.at, id: from.id } as DownloadJob) > 0);
      const slice = start < 0 ? [] : active.slice(start, start + limit);
      jobs.push(...slice.map((j) => structuredClone(j)));
      const last = slice.at(-1);
      if (last && start + slice.length < active.length) next = { in: 'active', at: last.createdAt, id: last.id };
    }
    const finished = !wantsHistory ? 0 : state === undefined ? (this.sql.count.get() as { n: number }).n : (this.sql.countOf.get(state) as { n: number }).n;
    const rest = limit - jobs.length;
    if (next === null && wantsHistory && rest > 0 && finished > 0) {
      // '\uffff' sorts after every stored time: the history from its newest job.
      const [at, id] = from?.in === 'history' ? [from.at, from.id] : ['\uffff', ''];
      const rows = (state === undefined ? this.sql.history.all(at, id, rest + 1) : this.sql.historyOf.all(state, at, id, rest + 1)) as { job: string; at: string; id: string }[];
      const page = rows.slice(0, rest);
      jobs.push(...page.map((r) => JSON.parse(r.job) as DownloadJob));
      const last = page.at(-1);
      if (rows.length > rest && last) next = { in: 'history', at: last.at, id: last.id };
    } else if (next === null && wantsHistory && rest === 0 && finished > 0 && (from === null || from.in === 'active')) {
      // The page ended exactly at the last active job: the history follows.
      next = { in: 'history', at: '\uffff', id: '' };
    }
    return { total: active.length + finished, jobs, next: next && encodeCursor(next) };
  }

  /** How many jobs are in each state, active and history. */
  counts(): JobCounts {
    const counts: JobCounts = { queued: 0, running: 0, done: 0, failed: 0, cancelled: 0 };
    for (const j of this.jobs.values()) if (!FINISHED.has(j.state)) counts[j.state]++;
    if (this.db.isOpen) for (const s of FINISHED) counts[s as DownloadJob['state']] = (this.sql.countOf.get(s) as { n: number }).n;
    return counts;
  }

  /** Forgets every finished job in these states (one transaction; their files stay where they are); returns how many. */
  clearFinished(states: readonly DownloadJob['state'][]): number {
    let removed = 0;
    inTransaction(this.db, () => {
      for (const s of new Set(states)) if (FINISHED.has(s)) removed += Number(this.sql.clearOf.run(s).changes);
    });
    return removed;
  }

  /** One job by id (active, or from the history), or undefined. */
  get(id: string): DownloadJob | undefined {
    const j = this.jobs.get(id);
    if (j) return structuredClone(j);
    if (!this.db.isOpen) return undefined;
    const r = this.sql.one.get(id) as { job: string } | undefined;
    return r ? (JSON.parse(r.job) as DownloadJob) : undefined;
  }

  /** Enqueues a download and returns it as queued; the request is stored without any key, and the job (with its pass) is on disk before this resolves. */
  async add(input: NewDownload, signal?: AbortSignal): Promise<DownloadJob> {
    throwIfAborted(signal);
    if (this.closed) throw new DownloadError('validation', 'The download queue is closed.');
    const parsed = newDownloadSchema.safeParse(input);
    if (!parsed.success) {
      const i = parsed.error.issues[0]!;
      throw new DownloadError('validation', `Invalid download: ${i.path.join('.') || 'input'} ${i.message}.`);
    }
    const at = new Date(this.now()).toISOString();
    const job: DownloadJob = {
      id: randomUUID(),
      kind: parsed.data.kind,
      request: withoutSecrets(parsed.data.request),
      targetDir: path.resolve(parsed.data.targetDir),
      state: 'queued',
      bytes: 0,
      total: null,
      attempts: 0,
      ...(parsed.data.batch ? { batch: parsed.data.batch } : {}),
      ...(parsed.data.pass ? { pass: parsed.data.pass } : {}),
      createdAt: at,
      updatedAt: at,
    };
    // On disk before it can run: a crash must never lose a job that already started.
    try {
      this.put(job);
    } catch (e) {
      throw new DownloadError('io', `Could not save the download queue: ${errorMessage(e)}`, { cause: e });
    }
    this.jobs.set(job.id, job);
    this.tell(job);
    const queued = structuredClone(job);
    this.pump();
    return queued;
  }

  /** Cancels a queued or running job; a running transfer is aborted and its `.part` removed before this resolves. */
  async cancel(id: string, signal?: AbortSignal): Promise<DownloadJob> {
    throwIfAborted(signal);
    const job = this.need(id);
    const run = this.running.get(id);
    if (run) {
      run.stop = 'cancel';
      run.controller.abort(new DownloadError('cancelled', `Download ${id} was cancelled.`));
      await run.done;
      return structuredClone(job);
    }
    if (job.state !== 'queued') {
      throw new DownloadError('validation', `Download ${id} is ${job.state}; only queued or running downloads can be cancelled.`);
    }
    this.finish(job, 'cancelled', { reason: 'Cancelled.', errorKind: 'cancelled' });
    this.checkIdle();
    return structuredClone(job);
  }

  /** Puts a failed or cancelled job back in the queue with a fresh attempt budget, under `pass` (the spend guard's clearance of the retry) when given. */
  async retry(id: string, signal?: AbortSignal, pass?: JobPass): Promise<DownloadJob> {
    throwIfAborted(signal);
    const job = this.need(id);
    if (job.state !== 'failed' && job.state !== 'cancelled') {
      throw new DownloadError('validation', `Download ${id} is ${job.state}; only failed or cancelled downloads can be retried.`);
    }
    if (pass) {
      const p = passSchema.safeParse(pass);
      if (!p.success) throw new DownloadError('validation', `Invalid pass: ${p.error.issues[0]!.path.join('.') || 'pass'} ${p.error.issues[0]!.message}.`);
      job.pass = p.data;
      // Charges are counted per pass: the retry's own are its ledger lines.
      delete job.charged;
    }
    job.state = 'queued';
    job.attempts = 0;
    job.bytes = 0;
    job.total = null;
    delete job.reason;
    delete job.errorKind;
    delete job.mayHaveCharged;
    this.touch(job);
    this.jobs.set(job.id, job);
    this.changed(job);
    const queued = structuredClone(job);
    this.pump();
    return queued;
  }

  /** Forgets a job that is not running (its file, if any, stays where it is). */
  async remove(id: string, signal?: AbortSignal): Promise<void> {
    throwIfAborted(signal);
    const job = this.need(id);
    if (job.state === 'running') throw new DownloadError('validation', `Download ${id} is running; cancel it first.`);
    this.sql.del.run(id);
    afterCommit(this.db);
    this.jobs.delete(id);
    this.checkIdle();
  }

  /** Resolves when no job is queued or running. */
  onIdle(signal?: AbortSignal): Promise<void> {
    throwIfAborted(signal);
    if (this.isIdle()) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const onAbort = (): void => {
        this.idleWaiters = this.idleWaiters.filter((w) => w !== done);
        reject(abortError(signal!));
      };
      const done = (): void => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      };
      this.idleWaiters.push(done);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** Stops all transfers (their jobs stay queued and resume on the next open) and writes the queue. */
  async close(signal?: AbortSignal): Promise<void> {
    throwIfAborted(signal);
    this.closed = true;
    const runs = [...this.running.values()];
    for (const r of runs) {
      r.stop = 'close';
      r.controller.abort(new DownloadError('cancelled', 'The download queue is closing.'));
    }
    await Promise.all(runs.map((r) => r.done));
    if (this.ownsDb && this.db.isOpen) this.db.close();
  }

  /** The live job (active), or the finished one read from the history. */
  private need(id: string): DownloadJob {
    const job = this.jobs.get(id) ?? this.get(id);
    if (!job) throw new DownloadError('not-found', `No download job with id ${id}.`);
    return job;
  }

  private isIdle(): boolean {
    if (this.running.size > 0) return false;
    for (const j of this.jobs.values()) if (j.state === 'queued') return false;
    return true;
  }

  private checkIdle(): void {
    if (!this.isIdle()) return;
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const w of waiters) w();
  }

  private touch(job: DownloadJob): void {
    job.updatedAt = new Date(this.now()).toISOString();
  }

  /** Persists the change (one small transaction) and tells listeners; a failing disk is reported, the queue keeps working in memory. */
  private changed(job: DownloadJob): void {
    this.save(job);
    this.tell(job);
  }

  /** Tells the job's reactions of its change, then the 'job' event's listeners. */
  private tell(job: DownloadJob): void {
    const { emit, spend, team } = this.reactions;
    const copy = structuredClone(job);
    for (const react of [emit, spend, team]) react?.(copy);
    this.emit('job', copy);
  }

  private save(job: DownloadJob): void {
    if (!this.db.isOpen) return;
    try {
      this.write(job);
    } catch (e) {
      this.emit('warning', `Could not save the download queue: ${errorMessage(e)}`);
    }
  }

  private finish(job: DownloadJob, state: 'done' | 'failed' | 'cancelled' | 'queued', extra: { reason?: string; errorKind?: string } = {}): void {
    job.state = state;
    if (extra.reason) job.reason = extra.reason;
    else delete job.reason;
    if (extra.errorKind) job.errorKind = extra.errorKind;
    else delete job.errorKind;
    delete job.partPath;
    job.sending = false;
    this.touch(job);
    this.changed(job);
  }

  private pump(): void {
    if (!this.started || this.closed) return;
    for (const job of this.jobs.values()) {
      if (this.running.size >= this.limit) break;
      if (job.state === 'queued' && !this.running.has(job.id)) this.launch(job);
    }
  }

  private launch(job: DownloadJob): void {
    const run: Running = {
      controller: new AbortController(),
      stop: null,
      answered: false,
      done: Promise.resolve(),
      progress: { lastEmit: 0, samples: [] },
    };
    this.running.set(job.id, run);
    job.state = 'running';
    job.sending = false;
    delete job.reason;
    delete job.errorKind;
    this.touch(job);
    this.changed(job);
    run.done = this.execute(job, run)
      .catch((e: unknown) => {
        // execute() handles every expected failure; this is a bug guard so a job never stays "running".
        this.finish(job, 'failed', { reason: `Internal error: ${errorMessage(e)}`, errorKind: 'io' });
      })
      .finally(() => {
        this.running.delete(job.id);
        // Finished: written already; now it leaves memory.
        if (FINISHED.has(job.state)) this.jobs.delete(job.id);
        this.pump();
        this.checkIdle();
      });
  }

  private async execute(job: DownloadJob, run: Running): Promise<void> {
    const signal = run.controller.signal;
    if (this.spend) {
      try {
        job.pass = await this.spend.clearJob(job, signal);
      } catch (e) {
        if (signal.aborted) return this.stopped(job, run, false);
        this.finish(job, 'failed', { reason: errorMessage(e), errorKind: errorKind(e) ?? 'validation' });
        return;
      }
    }
    for (;;) {
      job.attempts++;
      job.bytes = 0;
      job.total = null;
      run.answered = false;
      this.touch(job);
      this.changed(job);
      try {
        await this.attempt(job, run, signal);
        return;
      } catch (e) {
        delete job.partPath;
        const wasOut = job.sending === true;
        job.sending = false;
        if (signal.aborted) return this.stopped(job, run, wasOut);
        // Sent again on its own only when the service surely did nothing with it: never after it answered (and charged).
        const again = !run.answered && serviceDidNothing(e);
        if (!again || job.attempts >= this.maxAttempts) {
          const tries = job.attempts > 1 ? ` (after ${job.attempts} attempts)` : '';
          // A refusal (4xx, a check before sending) charged nothing; a lost or broken answer may have.
          const unsure = !again && (errorKind(e) === 'transient' || (e as { mayHaveCharged?: unknown }).mayHaveCharged === true);
          const note = run.answered
            ? ' The service answered, so it charged this download; Swath did not send it again. Retry downloads it again, and pays again.'
            : unsure ? ' Swath did not send it again: the service may have acted on it (and charged). Retry sends it again.' : '';
          if (run.answered || unsure) job.mayHaveCharged = true;
          this.finish(job, 'failed', { reason: `${errorMessage(e)}${tries}${note}`, errorKind: errorKind(e) ?? 'io' });
          return;
        }
        job.reason = `Attempt ${job.attempts} failed, retrying: ${errorMessage(e)}`;
        job.errorKind = errorKind(e) ?? 'transient';
        this.touch(job);
        this.changed(job);
        try {
          await sleep(this.backoffMs(job.attempts, e), signal);
        } catch {
          return this.stopped(job, run, false);
        }
      }
    }
  }

  /** The run was stopped; `wasOut`: a paid POST of it was with the service, which may have acted on it. */
  private stopped(job: DownloadJob, run: Running, wasOut: boolean): void {
    if (run.stop === 'close' && wasOut) {
      const charged = run.answered ? ' The service answered, so it charged this download.' : ' The service may have charged it.';
      job.mayHaveCharged = true;
      this.finish(job, 'failed', { reason: `Interrupted: Swath was closing while this paid request was with the service; it is not sent again on its own.${charged} Retry sends it again.`, errorKind: 'transient' });
    } else if (run.stop === 'close') {
      job.bytes = 0;
      this.finish(job, 'queued', { reason: 'Interrupted (the app was closing); will resume.' });
    } else {
      this.finish(job, 'cancelled', { reason: 'Cancelled.', errorKind: 'cancelled' });
    }
  }

  private backoffMs(attempt: number, e: unknown): number {
    const after = (e as { retryAfterMs?: unknown } | null)?.retryAfterMs;
    // A Retry-After is waited for up to maxMs: a job never sleeps longer than the queue's own longest wait.
    const policy = { baseMs: this.baseMs, maxMs: this.maxMs, maxRetryAfterMs: this.maxMs };
    return backoffDelay(attempt, policy, this.random, typeof after === 'number' ? after : null);
  }

  /** The service answered an attempt with the file: counted on the job and written to the ledger before anything else happens. */
  private async charge(job: DownloadJob): Promise<void> {
    job.charged = (job.charged ?? 0) + 1;
    this.save(job);
    try {
      await this.spend?.jobCharged(job);
    } catch (e) {
      this.emit('warning', `Could not write the spend ledger for download ${job.id}: ${errorMessage(e)}`);
    }
  }

  private async attempt(job: DownloadJob, run: Running, signal: AbortSignal): Promise<void> {
    // On disk before the POST: a crash from here on must not send it again at the next start.
    job.sending = true;
    this.save(job);
    if (job.batch) return this.attemptBatch(job, run, signal);
    const res = await this.source.fetchBinary(job.kind, job.request, signal, job.pass?.profileId);
    run.answered = true;
    await this.charge(job);
    if (signal.aborted) {
      if (res.kind === 'stream') await res.body.cancel().catch(() => undefined);
      throw abortError(signal);
    }
    if (res.kind === 'uploaded') {
      this.finish(job, 'done', { reason: 'Uploaded by the service to the UploadUrl; no local file.' });
      return;
    }
    job.total = res.contentLength;
    const fileName = this.uniqueInLibrary(describedFileName(job.kind, job.request, res.fileName, this.now()));
    const startedAt = performance.now();
    run.progress = { lastEmit: startedAt, samples: [{ t: startedAt, bytes: 0 }] };
    const out = await downloadToFile({
      body: res.body,
      dir: job.targetDir,
      fileName,
      contentLength: res.contentLength,
      signal,
      onPart: async (partPath) => {
        job.partPath = partPath;
        this.save(job);
      },
      onProgress: (bytes) => this.progress(job, run, bytes, false),
      stallTimeoutMs: this.stallMs,
      // With a library, the sha256 is computed there after publishing, off the transfer's critical path.
      hash: !this.library,
    });
    delete job.partPath;
    job.file = out.path;
    job.bytes = out.bytes;
    this.progress(job, run, out.bytes, true);
    const note = await this.record(job, [out]);
    this.finish(job, 'done', note ? { reason: note } : {});
  }

  /** The first of `name`, "name (1)", … that no library entry has (the folder's own collisions are settled when publishing). */
  private uniqueInLibrary(name: string): string {
    let n = 0;
    while (this.library?.hasFileName?.(numberedName(name, n, 'copy'))) n++;
    return numberedName(name, n, 'copy');
  }

  /** A batch: the injected runner plans, downloads the parts and mosaics; the queue keeps state, retries and the library. */
  private async attemptBatch(job: DownloadJob, run: Running, signal: AbortSignal): Promise<void> {
    if (!this.batchRunner) throw new DownloadError('validation', 'This app cannot run batch downloads.');
    const startedAt = performance.now();
    run.progress = { lastEmit: startedAt, samples: [{ t: startedAt, bytes: 0 }] };
    const { outputs, note } = await this.batchRunner(job, signal, (bytes, total) => {
      job.total = total;
      this.progress(job, run, bytes, false);
    }, () => this.charge(job));
    job.files = outputs.map((o) => o.path);
    job.file = outputs[0]?.path;
    job.bytes = outputs.reduce((n, o) => n + o.bytes, 0);
    this.progress(job, run, job.bytes, true);
    const libraryNote = await this.record(job, outputs.filter((o) => /\.tiff?$/i.test(o.path)));
    const reason = [note, libraryNote].filter(Boolean).join(' ');
    this.finish(job, 'done', reason ? { reason } : {});
  }

  /** Adds finished files to the library; returns a note when that failed (the files themselves are fine). */
  private async record(job: DownloadJob, outputs: { path: string; bytes: number; sha256: string | null; content?: Uint8Array | null; request?: Record<string, unknown> }[]): Promise<string | undefined> {
    if (!this.library) return undefined;
    // The files are published and verified: a library problem must not turn the download into a failure.
    try {
      for (const out of outputs) {
        const entry = await this.library.addDownload(
          { path: out.path, size: out.bytes, sha256: out.sha256, kind: job.kind, request: out.request ?? job.request, ...(out.content ? { content: out.content } : {}) },
          new AbortController().signal,
        );
        job.libraryId ??= entry.id;
      }
      return undefined;
    } catch (e) {
      return `Downloaded, but not added to the library: ${errorMessage(e)}`;
    }
  }

  private progress(job: DownloadJob, run: Running, bytes: number, final: boolean): void {
    job.bytes = bytes;
    const now = performance.now();
    const p = run.progress;
    if (!final && now - p.lastEmit < this.progressMs) return;
    p.lastEmit = now;
    p.samples.push({ t: now, bytes });
    // Rate over the last ~3 s: responsive to stalls, yet steady enough to read.
    while (p.samples.length > 2 && now - p.samples[0]!.t > 3000) p.samples.shift();
    const first = p.samples[0]!;
    const dt = (now - first.t) / 1000;
    const rate = dt > 0 ? (bytes - first.bytes) / dt : 0;
    const total = job.total;
    const eta = total != null && rate > 0 ? Math.max(0, (total - bytes) / rate) : total != null && bytes >= total ? 0 : null;
    this.emit('progress', { jobId: job.id, bytes, total, rateBytesPerSec: rate, etaSec: eta });
  }
}
