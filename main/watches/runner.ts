import { isUtmEpsg } from '../../common/geodesy.js';
import { isAbortError, throwIfAborted } from '../../common/abort.js';
import { backoffDelay } from '../../common/backoff.js';
import { describeCost, type Cost } from '../../common/money.js';
import type { ServiceClient } from '../api';
import type { DownloadJob, JobPass } from '../downloads';
import {
  datesFromSearchAvailable, limitsFromAccountInfo, planComposite,
  type BatchEstimate, type BatchLimits, type BatchPlan, type CompositeBody,
} from '../downloads/batch';
import type { NotificationInput } from '../notifications/notifier';
import { monthOf, SpendRefusedError, type SpendPass } from '../spend';
import type { Watch, WatchDate } from './store';
import { SERVICE_TEXT_MAX, oneLine, serviceSaid } from '../shared/untrusted-text';

/**
 * One run of a watch: search/available over the watch's area and period, then for every date not
 * in the watch yet: the library's file of the identical request when it holds one (linked at 0 EUR),
 * else composite/available, main's estimate (the watch's cap, then the app's one spend
 * guard decide: past the cap or the budget, or at a cost the estimate does not make clear, the
 * watch pauses until the analyst confirms in main's dialog), and a
 * download through the app's queue into the library. The client bounds requests by the account's
 * MaxConcurrentConnections and waits out 429/Retry-After; the queue retries transient transfer
 * failures. What the run cannot fix itself ends as a notice on the watch: a refusal (no credit,
 * key rejected, settings refused) stops it until the analyst acts, a date the service will not
 * serve (not covered by an order) is set aside once, and transient failures are retried with
 * backoff a few times before asking for attention. Nothing is retried in a loop.
 */

/** The service calls a run makes (the app's ServiceClient). */
export type WatchClient = Pick<ServiceClient, 'searchAvailable' | 'compositeAvailable' | 'accountInfo' | 'account' | 'concurrency'>;

/** What a run needs from the app. */
export interface WatchRunDeps {
  client(signal: AbortSignal): Promise<WatchClient>;
  /**
   * Queues a download (a single composite or a split batch) and resolves with the job; with the
   * queue's job of an identical request instead when one is on its way (nothing is queued then).
   */
  download(input: { request: CompositeBody; batch?: { limits: BatchLimits; parts: number }; pass: JobPass }, watch: Watch, signal: AbortSignal): Promise<DownloadJob | { pendingJob: string }>;
  /** A job queued by an earlier run, awaited to its end; null when the queue no longer has it. */
  awaitJob(jobId: string, signal: AbortSignal): Promise<DownloadJob | null>;
  /** Library ids of a finished job's files. */
  libraryIdsFor(job: DownloadJob): string[];
  /** Main's own estimate of every part of a plan (the spend guard's source of costs). */
  estimate(plan: BatchPlan, signal: AbortSignal): Promise<BatchEstimate>;
  /**
   * The app's spend guard on a cost; `agreed`: the analyst confirmed going past the limits this month.
   * Rejects with a SpendRefusedError when the spend needs a confirmation (or the policy forbids it).
   */
  clear(cost: Cost, what: string, agreed: boolean, signal: AbortSignal): Promise<SpendPass>;
  /**
   * The team library on a date about to be bought: `owned` (a teammate's copy, now in the library:
   * the date is done at 0 EUR), `wait` (a teammate is buying it now: checked again next run) or
   * `buy` (with the purchase to tell how it ended). Absent: no team library.
   */
  team?(request: CompositeBody, signal: AbortSignal): Promise<WatchTeamAnswer>;
  /**
   * The analyst's own library on a date about to be bought: the file of an identical request
   * already in it (the date is linked to it at 0 EUR, never bought again), the download queue's job
   * buying it now (the date waits for the next run, which finds it in the library), or null.
   * Absent: no library.
   */
  library?(request: CompositeBody, signal: AbortSignal): Promise<{ libraryId: string; path: string } | { pendingJob: string } | null>;
  /** Records a cost Swath spent in its ledger (a download a run before this one queued). */
  record(costEur: number, what: string): Promise<void>;
  /** Applies a change to the stored watch and returns it. */
  save(change: (w: Watch) => void): Promise<Watch>;
  notify(n: NotificationInput): void;
  now(): number;
  /** 0..1, for backoff jitter. */
  random?: () => number;
}

/** What the team library says about a watch's date (see {@link WatchRunDeps.team}). */
export type WatchTeamAnswer =
  | { kind: 'owned'; libraryId: string; path: string; note: string }
  | { kind: 'wait'; note: string }
  | { kind: 'buy'; purchase: { done(libraryId: string, costEur: number | null): void; abandoned(): void } | null };

/** Transient failures in a row before a watch asks for attention. */
export const MAX_FAILURES = 4;
/** First retry delay after a transient failure, ms (then x4 each time, capped by the watch's interval). */
export const RETRY_BASE_MS = 60_000;

const FINAL = new Set(['done', 'failed', 'cancelled']);

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

/** How a failure is handled. */
type Failure =
  | { handling: 'skip-date'; note: string }
  | { handling: 'attention'; notice: string }
  | { handling: 'retry'; message: string };

function kindOf(e: unknown): string | null {
  const k = (e as { kind?: unknown } | null)?.kind;
  return typeof k === 'string' ? k : null;
}

function messageOf(e: unknown): string {
  return e instanceof Error ? e.message : String((e as { message?: unknown } | null)?.message ?? e);
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

class Stop extends Error {
  constructor(readonly failure: Failure) {
    super('stop');
  }
}

/**
 * Runs a watch once and returns it as stored afterwards (state, notice, dates, next run). Rejects
 * only with an AbortError (the app is closing: the run resumes at the next start).
 */
export async function runWatch(watch: Watch, deps: WatchRunDeps, signal: AbortSignal): Promise<Watch> {
  const now = () => deps.now();
  const iso = () => new Date(now()).toISOString();
  let current = watch;
  const save = async (change: (w: Watch) => void) => (current = await deps.save(change));
  const downloaded: string[] = [];
  const notYet: string[] = [];
  const skipped: string[] = [];
  /** Dates linked to the identical file already in the library (0 EUR). */
  const linked: string[] = [];
  /** Dates an identical download of the queue is buying now (linked next run). */
  const coming: string[] = [];
  const newLibraryIds: string[] = [];
  /** One notification for the run's new dates (however the run ends), never one per date. */
  const announce = () => {
    if (downloaded.length === 0) return;
    const n = downloaded.length;
    const list = n > 3 ? `${downloaded.slice(0, 3).join(', ')} … ${downloaded.at(-1)}` : downloaded.join(', ');
    deps.notify({
      kind: 'watchDownloaded',
      title: `Watch "${current.name}": ${n === 1 ? '1 new date' : `${n} new dates`}`,
      body: `Downloaded into the library: ${list}.`,
      target: { panel: 'library', watchId: current.id, ...(n === 1 && newLibraryIds[0] ? { libraryId: newLibraryIds[0] } : {}) },
    });
  };
  const setDate = (d: WatchDate) => save((w) => {
    w.dates = [...w.dates.filter((x) => x.date !== d.date), d].sort((a, b) => a.date.localeCompare(b.date));
  });

  try {
    try {
      throwIfAborted(signal);
      await save((w) => {
        w.running = true;
      });
      const c = await deps.client(signal);

      // A download queued by a run the app did not see finish: take its outcome first.
      for (const d of current.dates.filter((x) => x.state === 'queued' && x.jobId)) {
        const job = await deps.awaitJob(d.jobId!, signal);
        if (job) await settleJob(d.date, job, d.costEur);
        else await save((w) => {
          w.dates = w.dates.filter((x) => x.date !== d.date);
        });
      }

      // An open end asks up to the service's own "now" (Until null), so its clock decides what exists.
      const until = current.to;
      if (until === null || current.from <= until) {
        const found = await c.searchAvailable({
          ...current.area, From: current.from, Until: until, Model: current.model, SatelliteConstellations: current.constellations,
        } as never, signal);
        const dates = datesFromSearchAvailable(found, { model: current.model }).filter((d) => d >= current.from && (until === null || d <= until));
        const held = new Set(current.dates.filter((d) => d.state !== 'failed').map((d) => d.date));
        for (const date of dates.filter((d) => !held.has(d))) {
          throwIfAborted(signal);
          await oneDate(c, date);
        }
      }

      const parts = [
        downloaded.length ? `Downloaded ${downloaded.join(', ')}.` : linked.length || coming.length ? '' : 'No new dates.',
        linked.length ? `Already in your library (0 EUR): ${linked.join(', ')}.` : '',
        coming.length ? `Being downloaded now by an identical download (${coming.join(', ')}); linked next run.` : '',
        notYet.length ? `${notYet.length === 1 ? '1 date is' : `${notYet.length} dates are`} not fully available yet (${notYet.join(', ')}); checked again next run.` : '',
        skipped.length ? `Set aside (not served): ${skipped.join(', ')}.` : '',
      ].filter(Boolean);
      return await save((w) => {
        w.running = false;
        w.failures = 0;
        w.lastRunAt = iso();
        w.lastResult = parts.join(' ');
        w.nextRunAt = new Date(now() + w.everyHours * 3_600_000).toISOString();
        if (w.state === 'attention') w.state = 'active';
        if (w.state === 'active') w.notice = null;
      });
    } catch (e) {
      if (isAbortError(e) || signal.aborted) {
        await deps.save((w) => {
          w.running = false;
        }).catch(() => undefined);
        throw e;
      }
      // The spend guard already stored the pause and its notice.
      if (e instanceof Paused) return current;
      const failure = e instanceof Stop ? e.failure : classify(kindOf(e), messageOf(e));
      return finishWithFailure(failure);
    }
  } finally {
    announce();
  }

  async function finishWithFailure(failure: Failure): Promise<Watch> {
    const doneNote = downloaded.length ? ` Downloaded before that: ${downloaded.join(', ')}.` : '';
    if (failure.handling === 'retry') {
      const failures = current.failures + 1;
      if (failures >= MAX_FAILURES) {
        const notice = `The service failed ${failures} times in a row: check the connection or the service status, then use Run now. The last error: “${failure.message}”`;
        const w = await save((x) => Object.assign(x, { running: false, failures, state: 'attention', notice, lastRunAt: iso(), lastResult: `Failed.${doneNote}`, nextRunAt: null }));
        deps.notify({ kind: 'watchAttention', title: `Watch "${w.name}" needs attention`, body: notice, target: { panel: 'watches', watchId: w.id } });
        return w;
      }
      const delay = backoffDelay(failures, { baseMs: RETRY_BASE_MS, factor: 4, maxMs: current.everyHours * 3_600_000, jitter: 'half' }, deps.random ?? Math.random);
      return save((x) => Object.assign(x, {
        running: false, failures, lastRunAt: iso(), nextRunAt: new Date(now() + delay).toISOString(),
        lastResult: `Attempt ${failures} failed (${failure.message}); retrying at ${new Date(now() + delay).toISOString().slice(11, 16)} UTC.${doneNote}`,
      }));
    }
    const notice = failure.handling === 'attention' ? failure.notice : failure.note;
    const w = await save((x) => Object.assign(x, { running: false, state: 'attention', notice, lastRunAt: iso(), lastResult: `Stopped.${doneNote}`, nextRunAt: null }));
    deps.notify({ kind: 'watchAttention', title: `Watch "${w.name}" needs attention`, body: notice, target: { panel: 'watches', watchId: w.id } });
    return w;
  }

  async function settleJob(date: string, job: DownloadJob, costEur: number | null, pass?: SpendPass): Promise<void> {
    if (job.state === 'done') {
      const files = job.files ?? (job.file ? [job.file] : []);
      const libraryIds = deps.libraryIdsFor(job);
      await setDate({ date, state: 'downloaded', libraryIds, files, jobId: job.id, costEur, at: iso() });
      if (pass) await pass.spent();
      // A job with a stored pass was recorded by the spend guard when the service charged it.
      else if (!job.pass && costEur !== null && costEur > 0) await deps.record(costEur, `Watch "${current.name}" ${date}`);
      downloaded.push(date);
      newLibraryIds.push(...libraryIds);
      return;
    }
    const failure = job.state === 'cancelled'
      ? { handling: 'attention' as const, notice: `The download of ${date} was cancelled in the download list. Resume the watch to download it again.` }
      // Bought again only by the analyst: the service may have charged it already.
      : job.mayHaveCharged
        ? { handling: 'attention' as const, notice: `The download of ${date} failed after the service answered or may have acted on it, so it may be charged already; the watch does not buy it again on its own. Resume the watch to buy it again. The error was: “${oneLine((job.reason ?? '').trim(), SERVICE_TEXT_MAX)}”` }
        : classify(job.errorKind ?? null, job.reason ?? 'The download failed.');
    if (failure.handling === 'skip-date') {
      await setDate({ date, state: 'skipped', note: failure.note, libraryIds: [], files: [], jobId: job.id, costEur: null, at: iso() });
      skipped.push(date);
      return;
    }
    await setDate({ date, state: 'failed', note: failure.handling === 'retry' ? failure.message : failure.notice, libraryIds: [], files: [], jobId: job.id, costEur: null, at: iso() });
    throw new Stop(failure);
  }

  async function oneDate(c: WatchClient, date: string): Promise<void> {
    const request = watchRequest(current, date);
    try {
      // The analyst's own library first: the identical request's file there is the date, at 0 EUR.
      const own = deps.library ? await deps.library(request, signal) : null;
      if (own && 'pendingJob' in own) {
        coming.push(date);
        return;
      }
      if (own) {
        await setDate({ date, state: 'downloaded', note: `Already in your library: ${own.path} (0 EUR).`, libraryIds: [own.libraryId], files: [own.path], jobId: null, costEur: 0, at: iso() });
        linked.push(date);
        return;
      }
      const available = fullyAvailable(await c.compositeAvailable(request as never, signal));
      if (available === false) {
        notYet.push(date);
        return;
      }
      // The team first: a date a teammate owns is taken from the share, one a teammate is buying waits.
      const team = deps.team ? await deps.team(request, signal) : null;
      if (team?.kind === 'owned') {
        await setDate({ date, state: 'downloaded', note: team.note, libraryIds: [team.libraryId], files: [team.path], jobId: null, costEur: 0, at: iso() });
        downloaded.push(date);
        newLibraryIds.push(team.libraryId);
        return;
      }
      if (team?.kind === 'wait') {
        notYet.push(date);
        return;
      }
      const purchase = team?.purchase ?? null;
      let outcome: DownloadJob | null = null;
      try {
        const info = (c.account ?? (await c.accountInfo(signal))) as Record<string, unknown>;
        const limits = limitsFromAccountInfo(info);
        const plan = planComposite(request, limits);
        const { cost } = await deps.estimate(plan, signal);
        const pass = await guardSpend(date, cost);
        const costEur = cost.state === 'known' ? cost.eur : null;
        try {
          const job = await deps.download({ request, ...(plan.kind === 'split' ? { batch: { limits, parts: plan.parts.length } } : {}), pass: pass.stored }, current, signal);
          // Queued by the analyst while this run estimated it: linked from the library next run.
          if ('pendingJob' in job) {
            coming.push(date);
            return;
          }
          // On disk as queued first: a run interrupted now picks the job up again instead of queueing twice.
          await setDate({ date, state: 'queued', libraryIds: [], files: [], jobId: job.id, costEur, at: iso() });
          const final = FINAL.has(job.state) ? job : await deps.awaitJob(job.id, signal);
          if (!final) throw new Stop({ handling: 'retry', message: `The download of ${date} left the queue before it finished.` });
          outcome = final;
          await settleJob(date, final, costEur, pass);
          if (final.state === 'done' && final.libraryId) purchase?.done(final.libraryId, costEur);
        } finally {
          pass.release();
        }
      } finally {
        if (!(outcome?.state === 'done' && outcome.libraryId)) purchase?.abandoned();
      }
    } catch (e) {
      if (e instanceof Stop || e instanceof Paused || isAbortError(e)) throw e;
      const failure = classify(kindOf(e), messageOf(e));
      if (failure.handling !== 'skip-date') throw new Stop(failure);
      await setDate({ date, state: 'skipped', note: failure.note, libraryIds: [], files: [], jobId: null, costEur: null, at: iso() });
      skipped.push(date);
    }
  }

  /**
   * The watch's cap, then the app's spend guard, on a date's cost: a pass to download it, or the
   * watch pauses itself with a notice saying why (and throws {@link Paused}).
   */
  async function guardSpend(date: string, cost: Cost): Promise<SpendPass> {
    const month = monthOf(now());
    const agreed = current.allowOverMonth === month;
    const mine = watchMonthSpend(current, month);
    let notice: string;
    if (!agreed && current.capEur !== null && cost.state !== 'known') {
      notice = `Paused at its cap: the cost of ${date} is ${describeCost(cost)}, so the watch cannot tell whether it stays within its ${current.capEur.toFixed(2)} EUR. Resume and confirm to download it.`;
    } else if (!agreed && current.capEur !== null && cost.state === 'known' && mine + cost.eur > current.capEur + 1e-9) {
      notice = `Paused at its cap: ${date} costs ${cost.eur.toFixed(2)} EUR and the watch has spent ${mine.toFixed(2)} of its ${current.capEur.toFixed(2)} EUR this month. Raise the cap, or resume and confirm to go past it.`;
    } else {
      try {
        return await deps.clear(cost, `The watch's download of ${date}`, agreed, signal);
      } catch (e) {
        if (!(e instanceof SpendRefusedError)) throw e;
        const v = e.verdict;
        const where = v.source === 'billing' ? "the service's billing" : "Swath's ledger";
        const reason = v.reason.replace(/^This /, `${date} `);
        notice = v.decision === 'refused'
          ? `Paused at the policy's ceiling: ${reason}`
          : !v.costKnown
            ? `Paused: ${reason} Download that date yourself to confirm its cost.`
            : `Paused at the monthly budget: ${reason} (Spend from ${where}.) Raise the budget, or resume and confirm to go past it.`;
      }
    }
    const paused = notice;
    const w = await save((x) => Object.assign(x, { running: false, state: 'paused', notice: paused, lastRunAt: iso(), lastResult: downloaded.length ? `Downloaded ${downloaded.join(', ')}; then paused.` : 'Paused by the spend guard.', nextRunAt: null }));
    deps.notify({ kind: 'watchAttention', title: `Watch "${w.name}" paused`, body: notice, target: { panel: 'watches', watchId: w.id } });
    throw new Paused();
  }
}

class Paused extends Error {
  constructor() {
    super('paused');
  }
}
