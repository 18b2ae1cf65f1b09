import { isUtmEpsg } from '../../common/geodesy.js';
import { backoffDelay } from '../../common/backoff.js';
import { describeCost, type Cost } from '../../common/money.js';
import type { DownloadJob } from '../downloads';
import type { BatchLimits, BatchPlan, CompositeBody } from '../batch-plan';
import type { NotificationInput } from '../notifications/notifier';
import { monthOf, type SpendVerdict } from '../spend';
import type { Watch, WatchDate } from './store';
import { SERVICE_TEXT_MAX, oneLine, serviceSaid } from '../shared/untrusted-text';

/**
 * One run of a watch as a pure state machine: no service, no queue, no store. The runner
 * (runner.ts) performs each state's one call through its ports and feeds the answer back here as
 * an event; the next state says what to ask next, or how the date ended. A date goes: the analyst's
 * own library (the identical request's file is the date at 0 EUR; one the queue is buying now waits),
 * composite/available, the team library (a teammate's copy at 0 EUR; a teammate buying it waits),
 * main's estimate, the watch's cap, the app's spend guard (past the cap or the budget, or at a cost
 * the estimate does not make clear, the watch pauses), the download queue, the job's end. A state
 * that carries `record` is stored on the watch on entering it (a queued date is on disk before its
 * job is awaited, so an interrupted run picks the job up again instead of queueing twice).
 */

/** Transient failures in a row before a watch asks for attention. */
export const MAX_FAILURES = 4;
/** First retry delay after a transient failure, ms (then x4 each time, capped by the watch's interval). */
export const RETRY_BASE_MS = 60_000;

/** How a failure is handled. */
export type Failure =
  | { handling: 'skip-date'; note: string }
  | { handling: 'attention'; notice: string }
  | { handling: 'retry'; message: string };

/** What the team library says about a watch's date (the runner's `team` port). */
export type WatchTeamAnswer =
  | { kind: 'owned'; libraryId: string; path: string; note: string }
  | { kind: 'wait'; note: string }
  | { kind: 'buy'; purchase: { done(libraryId: string, costEur: number | null): void; abandoned(): void } | null };

/** What the analyst's own library says about a date: the identical request's file, the queue's job buying it now, or nothing. */
export type OwnLibraryAnswer = { libraryId: string; path: string } | { pendingJob: string } | null;

/** How a date of a run ended. */
export type DateOutcome =
  /** In the library: bought now (`spend` says how the ledger hears of it), or a teammate's copy. */
  | { kind: 'downloaded'; libraryIds: string[]; spend: 'pass' | { record: number } | null; teamCopy: { libraryId: string; costEur: number | null } | null }
  /** Linked to the identical file already in the analyst's library (0 EUR). */
  | { kind: 'linked' }
  /** An identical download of the queue is buying it now: linked next run. */
  | { kind: 'coming' }
  /** Not fully available yet, or a teammate is buying it: checked again next run. */
  | { kind: 'not-yet' }
  /** Not served here: set aside. */
  | { kind: 'skipped' }
  /** The watch pauses (its cap, or the spend guard); `notice` says why. */
  | { kind: 'paused'; notice: string }
  /** The run stops with this failure. */
  | { kind: 'stop'; failure: Failure }
  /** Its job, queued by an earlier run, left the queue: the date leaves the watch (searched again this run). */
  | { kind: 'dropped' };

/** Where one date of a run stands. */
export type DateState =
  /** Asks the analyst's own library for the identical request. */
  | { at: 'library'; date: string; request: CompositeBody }
  /** Asks composite/available. */
  | { at: 'available'; date: string; request: CompositeBody }
  /** Asks the team library (skipped without one: the runner answers `buy` with no purchase). */
  | { at: 'team'; date: string; request: CompositeBody }
  /** Reads the account's limits, plans the request and asks main's estimate. */
  | { at: 'estimate'; date: string; request: CompositeBody }
  /** Asks the app's spend guard (the watch's cap let it through); `agreed`: the analyst confirmed going past the limits this month. */
  | { at: 'guard'; date: string; request: CompositeBody; plan: BatchPlan; limits: BatchLimits; cost: Cost; agreed: boolean; what: string }
  /** Queues the download with the guard's pass. */
  | { at: 'download'; date: string; request: CompositeBody; plan: BatchPlan; limits: BatchLimits; costEur: number | null }
  /** Awaits the job's end; `fresh`: queued by this run with a pass (else by an earlier run). */
  | { at: 'job'; date: string; jobId: string; costEur: number | null; fresh: boolean; record?: WatchDate }
  /** The date ended. */
  | { at: 'settled'; date: string; outcome: DateOutcome; record?: WatchDate };

export type DateEvent =
  | { type: 'library'; answer: OwnLibraryAnswer }
  | { type: 'available'; fully: boolean | null }
  | { type: 'team'; answer: WatchTeamAnswer }
  | { type: 'estimated'; plan: BatchPlan; limits: BatchLimits; cost: Cost }
  /** The spend guard gave a pass. */
  | { type: 'cleared' }
  /** The spend guard refused: the spend needs a confirmation, or the policy forbids it. */
  | { type: 'refused'; verdict: Pick<SpendVerdict, 'decision' | 'source' | 'reason' | 'costKnown'> }
  | { type: 'queued'; jobId: string }
  /** Nothing was queued: an identical download the analyst queued meanwhile is buying it (linked next run). */
  | { type: 'pending'; jobId: string }
  /** The job's end (null: the queue no longer has it); `libraryIds`: its files' library ids. */
  | { type: 'ended'; job: DownloadJob | null; libraryIds: string[] }
  /** A call failed (not an abort). */
  | { type: 'error'; kind: string | null; message: string };

/** What the machine reads of the world: the watch as stored and the clock. */
export interface RunContext {
  watch: Watch;
  now: number;
}

/** The composite body a watch sends for one date (AutomaticOrderCreation off: a watch never orders). */
export function watchRequest(w: Pick<Watch, 'area' | 'model' | 'constellations' | 'settings'>, date: string): CompositeBody {
  const s = w.settings;
  const body: CompositeBody = {
    ...w.area,
    Date: date,
    Model: w.model,
    SatelliteConstellations: [...w.constellations],
    Resolution: s.Resolution,
    EpsgProjection: s.EpsgProjection,
    FileType: 'tif',
    PixelSelectionMode: s.PixelSelectionMode,
    DataType: s.DataType,
    Bandnames: s.Bandnames,
    AllowPartialImage: false,
    AutomaticOrderCreation: false,
  };
  if (isUtmEpsg(s.EpsgProjection)) body.UtmDataSelectionMode = s.UtmDataSelectionMode ?? 'combined_utm';
  return body;
}

/** Whether a composite/available answer says the request can be fulfilled: its boolean named "fully…available"; null when it has none. */
export function fullyAvailable(data: unknown): boolean | null {
  if (!data || typeof data !== 'object') return null;
  const hit = Object.entries(data as Record<string, unknown>).find(([k, v]) => /^fully.*avail/i.test(k.replace(/[\s_-]/g, '')) && typeof v === 'boolean');
  return hit ? (hit[1] as boolean) : null;
}

/**
 * Sorts a failure (an error, or a failed job's kind and reason) into what the watch does about it.
 * The error's text may be the service's own: it comes last, attributed, quoted, on one line and
 * short ({@link serviceSaid}), after Swath's own words, so it never reads as Swath's instruction.
 */
export function classify(kind: string | null, message: string): Failure {
  const said = serviceSaid(message);
  switch (kind) {
    case 'coverage':
      return { handling: 'skip-date', note: `The service does not serve this date here. ${said}` };
    case 'credit':
      return { handling: 'attention', notice: `Not enough credit: redeem a voucher or top up (Billing), then resume the watch. ${said}` };
    case 'auth':
      return { handling: 'attention', notice: `The service rejected the API key: check the key in Settings, then resume the watch. ${said}` };
    case 'validation':
    case 'limit':
    case 'invalid':
    case 'not-found':
      return { handling: 'attention', notice: `The service refused the watch's request: edit the watch's settings (area, bands, resolution, EPSG), then save it. ${said}` };
    case 'io':
      return { handling: 'attention', notice: `The file could not be written: check the download folder (space, permissions), then resume the watch. The error was: “${oneLine(message.trim(), SERVICE_TEXT_MAX)}”` };
    default:
      return { handling: 'retry', message: oneLine(message.trim(), SERVICE_TEXT_MAX) };
  }
}

function cents(n: number): number {
  return Math.round(n * 100) / 100;
}

/** What the watch itself spent in a month (its downloaded dates' costs). */
export function watchMonthSpend(w: Pick<Watch, 'dates'>, month: string): number {
  return cents(w.dates.filter((d) => d.state === 'downloaded' && d.at.slice(0, 7) === month).reduce((s, d) => s + (d.costEur ?? 0), 0));
}

/** A date's first state. */
export function startDate(w: Watch, date: string): DateState {
  return { at: 'library', date, request: watchRequest(w, date) };
}

/** The state of a date an earlier run queued (its job is awaited first). */
export function resumeDate(d: WatchDate & { jobId: string }): DateState {
  return { at: 'job', date: d.date, jobId: d.jobId, costEur: d.costEur, fresh: false };
}

const row = (date: string, now: number, r: Omit<WatchDate, 'date' | 'at'>): WatchDate => ({ date, ...r, at: new Date(now).toISOString() });

/**
 * The watch's cap on a date's cost: null when it lets the cost through to the spend guard, else the
 * pause notice. Agreed (the analyst confirmed going past the limits this month): no cap.
 */
export function capNotice(w: Watch, date: string, cost: Cost, now: number): string | null {
  const month = monthOf(now);
  if (w.allowOverMonth === month || w.capEur === null) return null;
  if (cost.state !== 'known') {
    return `Paused at its cap: the cost of ${date} is ${describeCost(cost)}, so the watch cannot tell whether it stays within its ${w.capEur.toFixed(2)} EUR. Resume and confirm to download it.`;
  }
  const mine = watchMonthSpend(w, month);
  if (mine + cost.eur > w.capEur + 1e-9) {
    return `Paused at its cap: ${date} costs ${cost.eur.toFixed(2)} EUR and the watch has spent ${mine.toFixed(2)} of its ${w.capEur.toFixed(2)} EUR this month. Raise the cap, or resume and confirm to go past it.`;
  }
  return null;
}

/** The pause notice of a spend guard's refusal of a date. */
export function refusalNotice(date: string, v: Pick<SpendVerdict, 'decision' | 'source' | 'reason' | 'costKnown'>): string {
  const where = v.source === 'billing' ? "the service's billing" : "Swath's ledger";
  const reason = v.reason.replace(/^This /, `${date} `);
  if (v.decision === 'refused') return `Paused at the policy's ceiling: ${reason}`;
  if (!v.costKnown) return `Paused: ${reason} Download that date yourself to confirm its cost.`;
  return `Paused at the monthly budget: ${reason} (Spend from ${where}.) Raise the budget, or resume and confirm to go past it.`;
}

/** How a job's end settles its date. */
function jobEnded(c: RunContext, s: Extract<DateState, { at: 'job' }>, job: DownloadJob, libraryIds: string[]): DateState {
  const { date, costEur } = s;
  if (job.state === 'done') {
    const files = job.files ?? (job.file ? [job.file] : []);
    // A job with a stored pass was recorded by the spend guard when the service charged it.
    const spend = s.fresh ? 'pass' as const : !job.pass && costEur !== null && costEur > 0 ? { record: costEur } : null;
    return {
      at: 'settled', date,
      outcome: { kind: 'downloaded', libraryIds, spend, teamCopy: s.fresh && job.libraryId ? { libraryId: job.libraryId, costEur } : null },
      record: row(date, c.now, { state: 'downloaded', libraryIds, files, jobId: job.id, costEur }),
    };
  }
  const failure: Failure = job.state === 'cancelled'
    ? { handling: 'attention', notice: `The download of ${date} was cancelled in the download list. Resume the watch to download it again.` }
    // Bought again only by the analyst: the service may have charged it already.
    : job.mayHaveCharged
      ? { handling: 'attention', notice: `The download of ${date} failed after the service answered or may have acted on it, so it may be charged already; the watch does not buy it again on its own. Resume the watch to buy it again. The error was: “${oneLine((job.reason ?? '').trim(), SERVICE_TEXT_MAX)}”` }
      : classify(job.errorKind ?? null, job.reason ?? 'The download failed.');
  if (failure.handling === 'skip-date') {
    return { at: 'settled', date, outcome: { kind: 'skipped' }, record: row(date, c.now, { state: 'skipped', note: failure.note, libraryIds: [], files: [], jobId: job.id, costEur: null }) };
  }
  const note = failure.handling === 'retry' ? failure.message : failure.notice;
  return { at: 'settled', date, outcome: { kind: 'stop', failure }, record: row(date, c.now, { state: 'failed', note, libraryIds: [], files: [], jobId: job.id, costEur: null }) };
}

/** The next state of a date; an event that does not apply in the current state leaves it unchanged. */
export function transition(c: RunContext, s: DateState, e: DateEvent): DateState {
  if (s.at === 'settled') return s;
  const { date } = s;
  if (e.type === 'error') {
    const failure = classify(e.kind, e.message);
    if (failure.handling !== 'skip-date') return { at: 'settled', date, outcome: { kind: 'stop', failure } };
    return { at: 'settled', date, outcome: { kind: 'skipped' }, record: row(date, c.now, { state: 'skipped', note: failure.note, libraryIds: [], files: [], jobId: null, costEur: null }) };
  }
  switch (s.at) {
    case 'library':
      if (e.type !== 'library') return s;
      if (e.answer && 'pendingJob' in e.answer) return { at: 'settled', date, outcome: { kind: 'coming' } };
      if (e.answer) {
        const { libraryId, path } = e.answer;
        return { at: 'settled', date, outcome: { kind: 'linked' }, record: row(date, c.now, { state: 'downloaded', note: `Already in your library: ${path} (0 EUR).`, libraryIds: [libraryId], files: [path], jobId: null, costEur: 0 }) };
      }
      return { at: 'available', date, request: s.request };
    case 'available':
      if (e.type !== 'available') return s;
      return e.fully === false ? { at: 'settled', date, outcome: { kind: 'not-yet' } } : { at: 'team', date, request: s.request };
    case 'team':
      if (e.type !== 'team') return s;
      if (e.answer.kind === 'owned') {
        const { libraryId, path, note } = e.answer;
        return {
          at: 'settled', date,
          outcome: { kind: 'downloaded', libraryIds: [libraryId], spend: null, teamCopy: null },
          record: row(date, c.now, { state: 'downloaded', note, libraryIds: [libraryId], files: [path], jobId: null, costEur: 0 }),
        };
      }
      if (e.answer.kind === 'wait') return { at: 'settled', date, outcome: { kind: 'not-yet' } };
      return { at: 'estimate', date, request: s.request };
    case 'estimate': {
      if (e.type !== 'estimated') return s;
      const notice = capNotice(c.watch, date, e.cost, c.now);
      if (notice !== null) return { at: 'settled', date, outcome: { kind: 'paused', notice } };
      return {
        at: 'guard', date, request: s.request, plan: e.plan, limits: e.limits, cost: e.cost,
        agreed: c.watch.allowOverMonth === monthOf(c.now), what: `The watch's download of ${date}`,
      };
    }
    case 'guard':
      if (e.type === 'refused') return { at: 'settled', date, outcome: { kind: 'paused', notice: refusalNotice(date, e.verdict) } };
      if (e.type !== 'cleared') return s;
      return { at: 'download', date, request: s.request, plan: s.plan, limits: s.limits, costEur: s.cost.state === 'known' ? s.cost.eur : null };
    case 'download':
      if (e.type === 'pending') return { at: 'settled', date, outcome: { kind: 'coming' } };
      if (e.type !== 'queued') return s;
      return {
        at: 'job', date, jobId: e.jobId, costEur: s.costEur, fresh: true,
        record: row(date, c.now, { state: 'queued', libraryIds: [], files: [], jobId: e.jobId, costEur: s.costEur }),
      };
    case 'job':
      if (e.type !== 'ended') return s;
      if (!e.job) {
        if (!s.fresh) return { at: 'settled', date, outcome: { kind: 'dropped' } };
        return { at: 'settled', date, outcome: { kind: 'stop', failure: { handling: 'retry', message: `The download of ${date} left the queue before it finished.` } } };
      }
      return jobEnded(c, s, e.job, e.libraryIds);
  }
}

/** What a run has done so far, for its result line and its one notification. */
export interface RunTally {
  readonly downloaded: readonly string[];
  readonly newLibraryIds: readonly string[];
  readonly notYet: readonly string[];
  readonly skipped: readonly string[];
  /** Dates linked to the identical file already in the library (0 EUR). */
  readonly linked: readonly string[];
  /** Dates an identical download of the queue is buying now (linked next run). */
  readonly coming: readonly string[];
}

export const emptyTally = (): RunTally => ({ downloaded: [], newLibraryIds: [], notYet: [], skipped: [], linked: [], coming: [] });

/** The tally after a date ended (a pause or a stop ends the run: the runner reads them itself). */
export function tallied(t: RunTally, date: string, o: DateOutcome): RunTally {
  switch (o.kind) {
    case 'downloaded':
      return { ...t, downloaded: [...t.downloaded, date], newLibraryIds: [...t.newLibraryIds, ...o.libraryIds] };
    case 'linked':
      return { ...t, linked: [...t.linked, date] };
    case 'coming':
      return { ...t, coming: [...t.coming, date] };
    case 'not-yet':
      return { ...t, notYet: [...t.notYet, date] };
    case 'skipped':
      return { ...t, skipped: [...t.skipped, date] };
    default:
      return t;
  }
}

/** A change to the stored watch. */
export type WatchChange = (w: Watch) => void;

/** The change that ends a run that went through. */
export function finished(t: RunTally, now: number): WatchChange {
  const parts = [
    t.downloaded.length ? `Downloaded ${t.downloaded.join(', ')}.` : t.linked.length || t.coming.length ? '' : 'No new dates.',
    t.linked.length ? `Already in your library (0 EUR): ${t.linked.join(', ')}.` : '',
    t.coming.length ? `Being downloaded now by an identical download (${t.coming.join(', ')}); linked next run.` : '',
    t.notYet.length ? `${t.notYet.length === 1 ? '1 date is' : `${t.notYet.length} dates are`} not fully available yet (${t.notYet.join(', ')}); checked again next run.` : '',
    t.skipped.length ? `Set aside (not served): ${t.skipped.join(', ')}.` : '',
  ].filter(Boolean);
  return (w) => {
    w.running = false;
    w.failures = 0;
    w.lastRunAt = new Date(now).toISOString();
    w.lastResult = parts.join(' ');
    w.nextRunAt = new Date(now + w.everyHours * 3_600_000).toISOString();
    if (w.state === 'attention') w.state = 'active';
    if (w.state === 'active') w.notice = null;
  };
}

/** The change that pauses the watch (its cap or the spend guard), and its notification. */
export function paused(w: Pick<Watch, 'id' | 'name'>, t: RunTally, notice: string, now: number): { change: WatchChange; note: NotificationInput } {
  const lastResult = t.downloaded.length ? `Downloaded ${t.downloaded.join(', ')}; then paused.` : 'Paused by the spend guard.';
  return {
    change: (x) => Object.assign(x, { running: false, state: 'paused', notice, lastRunAt: new Date(now).toISOString(), lastResult, nextRunAt: null }),
    note: { kind: 'watchAttention', title: `Watch "${w.name}" paused`, body: notice, target: { panel: 'watches', watchId: w.id } },
  };
}

/**
 * The change that ends a failed run, and its notification when the watch needs attention: a
 * transient failure is retried with jittered backoff (`random`, 0..1) until {@link MAX_FAILURES} in
 * a row; anything else stops the watch with its notice.
 */
export function failed(w: Pick<Watch, 'id' | 'name' | 'failures' | 'everyHours'>, t: RunTally, failure: Failure, now: number, random: number): { change: WatchChange; note: NotificationInput | null } {
  const iso = new Date(now).toISOString();
  const doneNote = t.downloaded.length ? ` Downloaded before that: ${t.downloaded.join(', ')}.` : '';
  const attention = (notice: string, extra: Partial<Watch>, lastResult: string) => ({
    change: (x: Watch) => void Object.assign(x, { running: false, ...extra, state: 'attention', notice, lastRunAt: iso, lastResult, nextRunAt: null }),
    note: { kind: 'watchAttention' as const, title: `Watch "${w.name}" needs attention`, body: notice, target: { panel: 'watches' as const, watchId: w.id } },
  });
  if (failure.handling === 'retry') {
    const failures = w.failures + 1;
    if (failures >= MAX_FAILURES) {
      const notice = `The service failed ${failures} times in a row: check the connection or the service status, then use Run now. The last error: “${failure.message}”`;
      return attention(notice, { failures }, `Failed.${doneNote}`);
    }
    const next = new Date(now + backoffDelay(failures, { baseMs: RETRY_BASE_MS, factor: 4, maxMs: w.everyHours * 3_600_000, jitter: 'half' }, () => random)).toISOString();
    return {
      change: (x) => void Object.assign(x, {
        running: false, failures, lastRunAt: iso, nextRunAt: next,
        lastResult: `Attempt ${failures} failed (${failure.message}); retrying at ${next.slice(11, 16)} UTC.${doneNote}`,
      }),
      note: null,
    };
  }
  return attention(failure.handling === 'attention' ? failure.notice : failure.note, {}, `Stopped.${doneNote}`);
}

/** The run's one notification of its new dates (however it ended), never one per date; null when it has none. */
export function announcement(w: Pick<Watch, 'id' | 'name'>, t: RunTally): NotificationInput | null {
  const n = t.downloaded.length;
  if (n === 0) return null;
  const list = n > 3 ? `${t.downloaded.slice(0, 3).join(', ')} … ${t.downloaded.at(-1)}` : t.downloaded.join(', ');
  return {
    kind: 'watchDownloaded',
    title: `Watch "${w.name}": ${n === 1 ? '1 new date' : `${n} new dates`}`,
    body: `Downloaded into the library: ${list}.`,
    target: { panel: 'library', watchId: w.id, ...(n === 1 && t.newLibraryIds[0] ? { libraryId: t.newLibraryIds[0] } : {}) },
  };
}
