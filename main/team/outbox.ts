/**
 * The team library's durable registration queue: registrations of rasters copied into the shared
 * store wait in main's SQLite database (`team_outbox`, see main/shared/database.ts) until the team
 * catalog has confirmed them, so they survive restarts and the catalog being down.
 *
 * One drain loop sends them to the catalog in the order they were queued, one at a time (an item is
 * never in flight twice), and deletes an item only after the catalog confirmed it. While the
 * catalog fails, the head of the queue waits and is retried after a growing pause (a few seconds at most
 * while the catalog does not answer at all, so it is sent soon after the catalog is back); {@link status}
 * says since when and why (no secrets). A registration the catalog refuses as invalid (an error
 * whose `kind` is `validation`) is parked with its reason instead of being retried for ever, and the
 * queue moves on. The catalog treats a registration (sha256 and storage path) idempotently, so an
 * item confirmed just before a crash and sent again after it is registered once.
 */
import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { abortError, isAbortError, sleep } from '../../common/abort.js';
import { backoffDelay, type BackoffPolicy } from '../../common/backoff.js';
import { AppError } from '../../common/errors.js';
import { oneLine } from '../shared/untrusted-text.js';
import { storagePathProblem } from './storage-path.js';
import type { TeamRasterInput } from './types.js';

/** Where registrations go: the team catalog (the real one, or a stand-in). */
export interface RegistrationPort {
  /** Registers one raster; resolves once the catalog has stored it. `signal` fires when the outbox closes. */
  register(input: TeamRasterInput, signal?: AbortSignal): Promise<unknown>;
}

/** What the outbox reports for the status line. */
export interface OutboxStatus {
  /** Registrations waiting to be sent (parked ones not counted). */
  pending: number;
  /** Registrations the catalog refused as invalid, set aside. */
  parked: number;
  /** ISO 8601 UTC: since when sending fails; null while it does not. */
  failingSince: string | null;
  /** Why the last attempt failed, one line, without secrets; null while it does not fail. */
  lastReason: string | null;
}

/** A registration the catalog refused as invalid. */
export interface ParkedRegistration {
  id: number;
  sha256: string;
  storagePath: string;
  reason: string;
  /** ISO 8601 UTC. */
  parkedAt: string;
}

/** Options of {@link RegistrationOutbox}. */
export interface OutboxOptions {
  /** Main's open database (schema step "team registration outbox" applied). */
  db: DatabaseSync;
  port: RegistrationPort;
  /** Pause before retry `failures` (1, 2, …), in ms; default 1 s doubling up to 5 min. */
  backoff?: (failures: number) => number;
  /**
   * Whether a failure is the catalog not answering (a refused or lost connection, the server down). Those pauses
   * are at most {@link OutboxOptions.probeMs}, so a registration queued during an outage reaches the catalog within
   * seconds of its return, whether or not anything else asks the catalog meanwhile. Default: the error's
   * `unreachable` is true (TeamCatalogError).
   */
  isUnreachable?: (e: unknown) => boolean;
  /** The longest pause after an unreachable catalog, in ms; default {@link PROBE_MS}. */
  probeMs?: number;
  /** How the loop pauses; default a timer. Rejects with an AbortError when the signal fires. */
  wait?: (ms: number, signal: AbortSignal) => Promise<void>;
  now?: () => number;
  /** Whether an error is the catalog refusing the registration as invalid (default: its `kind` is 'validation'). */
  isRefusal?: (e: unknown) => boolean;
  /** Masks secrets the caller knows (the catalog password, …) out of a failure's text. */
  redact?: (text: string) => string;
  /** Told whenever the status changes. */
  onStatus?: (status: OutboxStatus) => void;
}

/** Largest registration the outbox stores, as JSON (match.ts keeps real ones far below). */
export const MAX_REGISTRATION_JSON_BYTES = 1024 * 1024;
/** Longest failure reason kept. */
const MAX_REASON_CHARS = 300;

/** The longest pause while the catalog does not answer: one connection attempt every few seconds is cheap. */
export const PROBE_MS = 5_000;

/** The default pauses: 1 s, 2 s, 4 s … up to 5 minutes, without jitter (one queue per app). */
const OUTBOX_BACKOFF: BackoffPolicy = { baseMs: 1000, maxMs: 5 * 60_000, jitter: 'none' };

/** Default pause after `failures` failures in a row (common/backoff.ts with {@link OUTBOX_BACKOFF}). */
export function defaultBackoff(failures: number): number {
  return backoffDelay(failures, OUTBOX_BACKOFF, Math.random);
}

function kindOf(e: unknown): unknown {
  return e && typeof e === 'object' && 'kind' in e ? (e as { kind: unknown }).kind : undefined;
}

/** A failure's text on one line, without credentials in URLs or `password=` pairs, bounded. */
export function scrubReason(e: unknown, redact: (text: string) => string = (t) => t): string {
  const raw = e instanceof Error ? e.message : typeof e === 'string' ? e : 'unknown error';
  const masked = redact(raw)
    .replace(/(\b[a-z][a-z0-9+.-]*:\/\/)[^/\s@]*@/gi, '$1***@')
    .replace(/\b(password|passwd|pwd|secret|token)(\s*[=:]\s*)("[^"]*"|'[^']*'|\S+)/gi, '$1$2***');
  return oneLine(masked.trim() || 'unknown error', MAX_REASON_CHARS);
}

interface Row {
  seq: number;
  input: string;
}

/** The durable queue of registrations and its drain loop. */
export class RegistrationOutbox {
  private readonly db: DatabaseSync;
  private readonly port: RegistrationPort;
  private readonly backoff: (failures: number) => number;
  private readonly wait: (ms: number, signal: AbortSignal) => Promise<void>;
  private readonly now: () => number;
  private readonly isRefusal: (e: unknown) => boolean;
  private readonly isUnreachable: (e: unknown) => boolean;
  private readonly probeMs: number;
  private readonly redact: (text: string) => string;
  private readonly onStatus: ((s: OutboxStatus) => void) | undefined;
  private readonly stmts: {
    insert: StatementSync;
    existing: StatementSync;
    remove: StatementSync;
    head: StatementSync;
    failed: StatementSync;
    park: StatementSync;
    countReady: StatementSync;
    countParked: StatementSync;
    listParked: StatementSync;
    unpark: StatementSync;
  };
  private readonly closing = new AbortController();
  private loop: Promise<void> | null = null;
  /** Aborts the current pause so the next attempt is made now. */
  private pause: AbortController | null = null;
  private failures = 0;
  private failingSince: number | null = null;
  private lastReason: string | null = null;
  private idleWaiters: (() => void)[] = [];

  /** An outbox over `options.db`; call {@link start} (or {@link enqueue}) to begin sending. */
  constructor(options: OutboxOptions) {
    this.db = options.db;
    this.port = options.port;
    this.backoff = options.backoff ?? defaultBackoff;
    this.wait = options.wait ?? sleep;
    this.now = options.now ?? Date.now;
    this.isRefusal = options.isRefusal ?? ((e) => kindOf(e) === 'validation');
    this.isUnreachable = options.isUnreachable ?? ((e) => !!e && typeof e === 'object' && (e as { unreachable?: unknown }).unreachable === true);
    this.probeMs = options.probeMs ?? PROBE_MS;
    this.redact = options.redact ?? ((t) => t);
    this.onStatus = options.onStatus;
    const db = this.db;
    this.stmts = {
      insert: db.prepare('INSERT INTO team_outbox (idem, input, queued_at) VALUES (?, ?, ?)'),
      existing: db.prepare('SELECT seq, parked_at FROM team_outbox WHERE idem = ?'),
      remove: db.prepare('DELETE FROM team_outbox WHERE seq = ?'),
      head: db.prepare('SELECT seq, input FROM team_outbox WHERE parked_at IS NULL ORDER BY seq LIMIT 1'),
      failed: db.prepare('UPDATE team_outbox SET attempts = attempts + 1, last_error = ? WHERE seq = ?'),
      park: db.prepare('UPDATE team_outbox SET attempts = attempts + 1, parked_at = ?, parked_reason = ? WHERE seq = ?'),
      countReady: db.prepare('SELECT COUNT(*) AS n FROM team_outbox WHERE parked_at IS NULL'),
      countParked: db.prepare('SELECT COUNT(*) AS n FROM team_outbox WHERE parked_at IS NOT NULL'),
      listParked: db.prepare('SELECT seq, input, parked_at, parked_reason FROM team_outbox WHERE parked_at IS NOT NULL ORDER BY seq LIMIT ?'),
      unpark: db.prepare('UPDATE team_outbox SET parked_at = NULL, parked_reason = NULL WHERE seq = ? AND parked_at IS NOT NULL'),
    };
  }

  /**
   * Queues a registration (durably: it is in the database when this returns) and makes sure the
   * loop is sending. The same raster at the same storage path queued again is one item; queued
   * again after it was parked, it replaces the parked one. Throws a validation AppError for an
   * input without a sha256, with a bad storage path, or too big to store.
   */
  enqueue(input: TeamRasterInput): void {
    if (this.closing.signal.aborted) throw new AppError('io', 'The team registration queue is closed.');
    if (typeof input?.sha256 !== 'string' || !/^[0-9a-f]{64}$/.test(input.sha256)) {
      throw new AppError('validation', 'A team registration needs the file\'s sha256 (64 lower-case hex digits).');
    }
    const problem = storagePathProblem(input.storagePath);
    if (problem) throw new AppError('validation', `A team registration's storage path is not valid: ${problem}.`);
    const json = JSON.stringify(input);
    if (Buffer.byteLength(json, 'utf8') > MAX_REGISTRATION_JSON_BYTES) {
      throw new AppError('validation', `The team registration of ${input.storagePath} is larger than ${MAX_REGISTRATION_JSON_BYTES / 1024 / 1024} MiB as JSON.`);
    }
    const idem = `${input.sha256}\n${input.storagePath}`;
    const before = this.stmts.existing.get(idem) as { seq: number; parked_at: string | null } | undefined;
    if (before && before.parked_at === null) return this.start();
    this.db.exec('BEGIN IMMEDIATE');
    try {
      if (before) this.stmts.remove.run(before.seq);
      this.stmts.insert.run(idem, json, new Date(this.now()).toISOString());
      this.db.exec('COMMIT');
    } catch (e) {
      if (this.db.isTransaction) this.db.exec('ROLLBACK');
      throw e;
    }
    this.emit();
    this.start();
  }

  /** Registrations waiting to be sent (parked ones not counted). */
  pending(): number {
    return (this.stmts.countReady.get() as { n: number }).n;
  }

  /** Where the registration of `input` stands: waiting to be sent, parked (refused as invalid), or sent (confirmed, or never queued). */
  stateOf(input: Pick<TeamRasterInput, 'sha256' | 'storagePath'>): 'waiting' | 'parked' | 'sent' {
    const row = this.stmts.existing.get(`${input.sha256}\n${input.storagePath}`) as { parked_at: string | null } | undefined;
    return !row ? 'sent' : row.parked_at === null ? 'waiting' : 'parked';
  }

  /** Since when sending fails and why, and how much waits. */
  get status(): OutboxStatus {
    return {
      pending: this.pending(),
      parked: (this.stmts.countParked.get() as { n: number }).n,
      failingSince: this.failingSince === null ? null : new Date(this.failingSince).toISOString(),
      lastReason: this.lastReason,
    };
  }

  /** The registrations the catalog refused as invalid (at most `limit`, oldest first). */
  parked(limit = 100): ParkedRegistration[] {
    const rows = this.stmts.listParked.all(limit) as { seq: number; input: string; parked_at: string; parked_reason: string }[];
    return rows.map((r) => {
      let input: Partial<TeamRasterInput> = {};
      try {
        input = JSON.parse(r.input) as TeamRasterInput;
      } catch {
        // Parked because it is unreadable: listed without its names.
      }
      return { id: r.seq, sha256: input.sha256 ?? '', storagePath: input.storagePath ?? '', reason: r.parked_reason, parkedAt: r.parked_at };
    });
  }

  /** Puts a parked registration back in its place in the queue (after the catalog was fixed); false when there is none with that id. */
  retryParked(id: number): boolean {
    const changed = Number(this.stmts.unpark.run(id).changes) > 0;
    if (changed) {
      this.emit();
      this.start();
    }
    return changed;
  }

  /** Starts the drain loop when it is not running (nothing happens once closed). */
  start(): void {
    if (this.loop || this.closing.signal.aborted) return;
    this.loop = this.drain()
      .catch((e: unknown) => {
        // The database failed under the loop (busy, disk full): said in the status; the next enqueue or retryNow starts again.
        this.failingSince ??= this.now();
        this.lastReason = `The registration queue could not be read or updated: ${scrubReason(e, this.redact)}`;
        this.emit();
      })
      .finally(() => {
        this.loop = null;
        // An item queued while the loop was finishing.
        if (!this.closing.signal.aborted && this.failingSince === null && this.pending() > 0) this.start();
        else this.settleIdle();
      });
  }

  /** Tries the head of the queue now instead of after the current pause (e.g. when the catalog is known to be back). */
  retryNow(): void {
    this.pause?.abort();
    this.start();
  }

  /** Resolves when the loop has nothing left it can send (the queue is empty, or the outbox closed). */
  idle(): Promise<void> {
    if (!this.loop && (this.pending() === 0 || this.closing.signal.aborted)) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Stops the loop: a pause ends, a registration in flight is abandoned (it stays queued for the next start). */
  async close(): Promise<void> {
    this.closing.abort();
    this.pause?.abort();
    await this.loop;
    this.settleIdle();
  }

  private settleIdle(): void {
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const w of waiters) w();
  }

  private emit(): void {
    if (!this.onStatus) return;
    try {
      this.onStatus(this.status);
    } catch {
      // A listener's failure is not the queue's.
    }
  }

  /** Sends until the queue is empty or the outbox closes; one item at a time, in order. */
  private async drain(): Promise<void> {
    const closing = this.closing.signal;
    while (!closing.aborted) {
      const row = this.stmts.head.get() as Row | undefined;
      if (!row) return;
      let input: TeamRasterInput;
      try {
        input = JSON.parse(row.input) as TeamRasterInput;
      } catch {
        this.stmts.park.run(new Date(this.now()).toISOString(), 'The queued registration is not readable JSON.', row.seq);
        this.emit();
        continue;
      }
      try {
        await this.send(input);
      } catch (e) {
        if (closing.aborted) return;
        const reason = scrubReason(e, this.redact);
        if (this.isRefusal(e)) {
          this.stmts.park.run(new Date(this.now()).toISOString(), reason, row.seq);
          this.emit();
          continue;
        }
        this.stmts.failed.run(reason, row.seq);
        this.failures++;
        this.failingSince ??= this.now();
        this.lastReason = reason;
        this.emit();
        const pause = new AbortController();
        this.pause = pause;
        const onClose = () => pause.abort();
        closing.addEventListener('abort', onClose, { once: true });
        try {
          const ms = this.backoff(this.failures);
          await this.wait(this.isUnreachable(e) ? Math.min(ms, this.probeMs) : ms, pause.signal);
        } catch (w) {
          if (!isAbortError(w)) throw w;
        } finally {
          closing.removeEventListener('abort', onClose);
          this.pause = null;
        }
        continue;
      }
      if (closing.aborted) return; // Confirmed after close began: it stays queued and is sent once more, idempotently.
      this.stmts.remove.run(row.seq);
      this.failures = 0;
      this.failingSince = null;
      this.lastReason = null;
      this.emit();
    }
  }

  /** The port's answer, or an AbortError as soon as the outbox closes (the port is told through its signal). */
  private send(input: TeamRasterInput): Promise<unknown> {
    const closing = this.closing.signal;
    if (closing.aborted) return Promise.reject(abortError(closing));
    return new Promise((resolve, reject) => {
      const onClose = () => reject(abortError(closing));
      closing.addEventListener('abort', onClose, { once: true });
      Promise.resolve()
        .then(() => this.port.register(input, closing))
        .then(resolve, reject)
        .finally(() => closing.removeEventListener('abort', onClose));
    });
  }
}
