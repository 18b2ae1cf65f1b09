import type { DatabaseSync } from 'node:sqlite';
import type { Worker } from 'node:worker_threads';
import { entryPoint, startWorkerEntry, type EntryPoint } from './entry-point.js';
import type { CheckpointWorkerData } from './wal-checkpoint-worker.js';

/**
 * WAL checkpoints off main's event loop. SQLite copies the write-ahead log back into the database
 * file when the log passes 1,000 pages (its auto-checkpoint), inside whichever commit crossed the
 * line: with the library's indexes that makes one commit in thirty several times slower than the
 * rest (the fsyncs of the copy). Here main's connection turns auto-checkpoints off and a worker thread
 * with its own connection to the same file runs a PASSIVE checkpoint (it never waits for, nor
 * blocks, main's reads and writes) once main's commits pause for a second: a burst of commits (a
 * watch run, an import) makes one checkpoint after it, instead of one in its middle whose copy and
 * fsyncs compete with the burst's own commits for the machine's cores and disk. A steady stream of
 * commits gets its checkpoint at most ten seconds after the first of them, so the log stays
 * bounded. Should the worker fail, main's connection gets its auto-checkpoint back: the log never
 * grows without bound.
 */

/** What one checkpoint did (SQLite's `PRAGMA wal_checkpoint` row). */
export interface CheckpointResult {
  /** 1 when it could not run at all (another checkpoint in progress). */
  busy: number;
  /** Frames in the log. */
  log: number;
  /** Frames copied into the database (all of them unless a reader still needed some). */
  checkpointed: number;
}

/** How long main's commits must pause before the checkpoint runs, ms. */
const PAUSE_MS = 1000;
/** The longest a commit waits for its checkpoint while commits go on without a pause, ms. */
const MAX_WAIT_MS = 10_000;

/** SQLite's default auto-checkpoint, pages: what main's connection goes back to without the worker. */
const AUTO_CHECKPOINT_PAGES = 1000;

/** The worker's entry (wal-checkpoint-worker.ts; bundled, out/main/wal-checkpoint-worker.js). */
export function checkpointWorkerEntry(): EntryPoint {
  return entryPoint(import.meta.url, './wal-checkpoint-worker.ts', 'wal-checkpoint-worker');
}

/** Options of {@link WalCheckpointer.start}. */
export interface CheckpointerOptions {
  /** Told when the worker failed and main's connection took its checkpoints back. */
  onWarning?: (message: string) => void;
}

/** The checkpointer of each connection that has one: {@link afterCommit} finds it from the connection. */
const byConnection = new WeakMap<DatabaseSync, WalCheckpointer>();

/** Main's connection `db` committed: its checkpointer (if any) checkpoints soon. */
export function afterCommit(db: DatabaseSync): void {
  byConnection.get(db)?.nudge();
}

/** One worker thread checkpointing one database file for main's connection to it. */
export class WalCheckpointer {
  private worker: Worker | null;
  /** A nudge is with the worker and not answered yet (at most one in flight: bounded messages). */
  private pending = false;
  /** Main committed since the nudge in flight. */
  private dirty = false;
  /** The checkpoint due once the commits pause (see {@link nudge}). */
  private timer: NodeJS.Timeout | null = null;
  /** When the first commit the due checkpoint covers came (Date.now()). */
  private firstCommitAt: number | null = null;
  /** The last checkpoint's result (diagnostics, tests). */
  last: CheckpointResult | null = null;

  private constructor(
    private readonly db: DatabaseSync,
    file: string,
    private readonly opts: CheckpointerOptions,
  ) {
    this.worker = startWorkerEntry(checkpointWorkerEntry(), { workerData: { file } satisfies CheckpointWorkerData });
    // Idle, it must not keep a process alive (main's close stops it anyway).
    this.worker.unref();
    this.worker.on('message', (m: CheckpointResult | { error: string }) => {
      if ('error' in m) {
        this.fail(`its checkpoint failed: ${m.error}`);
        return;
      }
      this.pending = false;
      this.last = m;
      if (this.dirty) this.nudge();
    });
    this.worker.on('error', (e) => this.fail(e.message));
    this.worker.on('exit', (code) => {
      if (this.worker) this.fail(`it stopped (exit code ${code})`);
    });
  }

  /**
   * Moves `db`'s checkpoints to a worker thread for `file` (the connection's database file).
   * Returns null, leaving SQLite's auto-checkpoint on, when the worker cannot start.
   */
  static start(db: DatabaseSync, file: string, opts: CheckpointerOptions = {}): WalCheckpointer | null {
    let c: WalCheckpointer;
    try {
      c = new WalCheckpointer(db, file, opts);
    } catch (e) {
      opts.onWarning?.(`Database checkpoints stay on the main thread: the checkpoint worker did not start (${(e as Error).message}).`);
      return null;
    }
    db.exec('PRAGMA wal_autocheckpoint = 0');
    byConnection.set(db, c);
    return c;
  }

  /**
   * Main committed: the checkpoint runs once the commits pause for {@link PAUSE_MS}, or {@link MAX_WAIT_MS}
   * after the first commit it covers when they do not (one checkpoint for many commits).
   */
  nudge(): void {
    if (!this.worker) return;
    if (this.pending) {
      this.dirty = true;
      return;
    }
    const now = Date.now();
    this.firstCommitAt ??= now;
    if (this.timer) clearTimeout(this.timer);
    const wait = Math.min(PAUSE_MS, Math.max(0, this.firstCommitAt + MAX_WAIT_MS - now));
    this.timer = setTimeout(() => this.send(), wait);
    // Idle, it must not keep a process alive (close() checkpoints what is left anyway).
    this.timer.unref();
  }

  private send(): void {
    this.cancelDue();
    if (!this.worker) return;
    this.pending = true;
    this.dirty = false;
    this.worker.postMessage('go');
  }

  private cancelDue(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.firstCommitAt = null;
  }

  /** True while the worker does the checkpoints (false after a failure or {@link close}). */
  get running(): boolean {
    return this.worker !== null;
  }

  private fail(why: string): void {
    const w = this.worker;
    if (!w) return;
    this.worker = null;
    this.cancelDue();
    byConnection.delete(this.db);
    void w.terminate();
    try {
      this.db.exec(`PRAGMA wal_autocheckpoint = ${AUTO_CHECKPOINT_PAGES}`);
    } catch {
      // The connection is closed already: nothing left to checkpoint for.
    }
    this.opts.onWarning?.(`Database checkpoints moved back to the main thread: the checkpoint worker failed (${why}).`);
  }

  /** Stops the worker (before main's connection closes; closing it checkpoints what is left). */
  async close(): Promise<void> {
    const w = this.worker;
    if (!w) return;
    this.worker = null;
    this.cancelDue();
    byConnection.delete(this.db);
    const exited = new Promise<void>((resolve) => w.once('exit', () => resolve()));
    // Awaited now: it keeps the process up until the worker has closed its connection.
    w.ref();
    w.postMessage('close');
    await exited;
    try {
      this.db.exec(`PRAGMA wal_autocheckpoint = ${AUTO_CHECKPOINT_PAGES}`);
    } catch {
      // Closed already.
    }
  }
}
