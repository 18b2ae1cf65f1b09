import { isAbortError, throwIfAborted } from '../../common/abort.js';
import type { Cost } from '../../common/money.js';
import type { ServiceClient } from '../api';
import type { DownloadJob, JobPass } from '../downloads';
import { datesFromSearchAvailable, limitsFromAccountInfo, planComposite, type BatchLimits, type BatchPlan, type CompositeBody } from '../batch-plan';
import type { NotificationInput } from '../notifications/notifier';
import { SpendRefusedError, type BatchEstimate, type SpendPass } from '../spend';
import {
  announcement, classify, emptyTally, failed, finished, fullyAvailable, paused, resumeDate, startDate, tallied, transition,
  type DateEvent, type DateState, type Failure, type OwnLibraryAnswer, type RunTally, type WatchTeamAnswer,
} from './run-machine';
import type { Watch, WatchDate } from './store';

/**
 * One run of a watch: search/available over the watch's area and period, then every date not in
 * the watch yet through the run's state machine (run-machine.ts: the analyst's library, composite/
 * available, the team library, main's estimate, the watch's cap, the app's spend guard, the queue),
 * this file performing each state's one call through the ports below. The client bounds requests
 * by the account's MaxConcurrentConnections and waits out 429/Retry-After; the queue retries
 * transient transfer failures. What the run cannot fix itself ends as a notice on the watch: a
 * refusal (no credit, key rejected, settings refused) stops it until the analyst acts, a date the
 * service will not serve (not covered by an order) is set aside once, and transient failures are
 * retried with backoff a few times before asking for attention. Nothing is retried in a loop.
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
  library?(request: CompositeBody, signal: AbortSignal): Promise<OwnLibraryAnswer>;
  /** Records a cost Swath spent in its ledger (a download a run before this one queued). */
  record(costEur: number, what: string): Promise<void>;
  /** Applies a change to the stored watch and returns it. */
  save(change: (w: Watch) => void): Promise<Watch>;
  notify(n: NotificationInput): void;
  now(): number;
  /** 0..1, for backoff jitter. */
  random?: () => number;
}

const FINAL = new Set(['done', 'failed', 'cancelled']);

function kindOf(e: unknown): string | null {
  const k = (e as { kind?: unknown } | null)?.kind;
  return typeof k === 'string' ? k : null;
}

function messageOf(e: unknown): string {
  return e instanceof Error ? e.message : String((e as { message?: unknown } | null)?.message ?? e);
}

/** How a run ended before its last date: paused (its cap or the spend guard) or stopped by a failure; null: it went through. */
type RunEnd = { kind: 'paused'; notice: string } | { kind: 'stop'; failure: Failure } | null;

/** What a date holds while it is driven: the team's purchase, the guard's pass, the job just queued. */
interface Held {
  purchase: Extract<WatchTeamAnswer, { kind: 'buy' }>['purchase'];
  pass: SpendPass | null;
  job: DownloadJob | null;
}

/**
 * Runs a watch once and returns it as stored afterwards (state, notice, dates, next run). Rejects
 * only with an AbortError (the app is closing: the run resumes at the next start).
 */
export async function runWatch(watch: Watch, deps: WatchRunDeps, signal: AbortSignal): Promise<Watch> {
  let current = watch;
  let tally: RunTally = emptyTally();
  const save = async (change: (w: Watch) => void) => (current = await deps.save(change));
  const setDate = (d: WatchDate) => save((w) => {
    w.dates = [...w.dates.filter((x) => x.date !== d.date), d].sort((a, b) => a.date.localeCompare(b.date));
  });

  /** The one call of a date's state, as the event it answers with; a failed call rejects. */
  async function perform(c: WatchClient, s: DateState, held: Held): Promise<DateEvent> {
    switch (s.at) {
      case 'library':
        return { type: 'library', answer: deps.library ? await deps.library(s.request, signal) : null };
      case 'available':
        return { type: 'available', fully: fullyAvailable(await c.compositeAvailable(s.request as never, signal)) };
      case 'team': {
        const answer = deps.team ? await deps.team(s.request, signal) : { kind: 'buy' as const, purchase: null };
        if (answer.kind === 'buy') held.purchase = answer.purchase;
        return { type: 'team', answer };
      }
      case 'estimate': {
        const limits = limitsFromAccountInfo((c.account ?? (await c.accountInfo(signal))) as Record<string, unknown>);
        const plan = planComposite(s.request, limits);
        const { cost } = await deps.estimate(plan, signal);
        return { type: 'estimated', plan, limits, cost };
      }
      case 'guard':
        try {
          held.pass = await deps.clear(s.cost, s.what, s.agreed, signal);
          return { type: 'cleared' };
        } catch (e) {
          if (e instanceof SpendRefusedError) return { type: 'refused', verdict: e.verdict };
          throw e;
        }
      case 'download': {
        const batch = s.plan.kind === 'split' ? { batch: { limits: s.limits, parts: s.plan.parts.length } } : {};
        const job = await deps.download({ request: s.request, ...batch, pass: held.pass!.stored }, current, signal);
        if ('pendingJob' in job) return { type: 'pending', jobId: job.pendingJob };
        held.job = job;
        return { type: 'queued', jobId: job.id };
      }
      case 'job': {
        const final = held.job && FINAL.has(held.job.state) ? held.job : await deps.awaitJob(s.jobId, signal);
        return { type: 'ended', job: final, libraryIds: final?.state === 'done' ? deps.libraryIdsFor(final) : [] };
      }
      case 'settled':
        throw new Error('A settled date has nothing to perform.');
    }
  }

  /**
   * Drives a date from `start` to its end and applies the end (stored record, ledger, team, tally).
   * `failuresAreEvents`: a failed call is fed to the machine (a new date); else it ends the run (a
   * date an earlier run queued). An abort always rejects.
   */
  async function drive(c: WatchClient, start: DateState, failuresAreEvents: boolean): Promise<RunEnd> {
    const held: Held = { purchase: null, pass: null, job: null };
    let teamDone = false;
    try {
      let s = start;
      while (s.at !== 'settled') {
        let e: DateEvent;
        try {
          e = await perform(c, s, held);
        } catch (err) {
          if (isAbortError(err) || !failuresAreEvents) throw err;
          e = { type: 'error', kind: kindOf(err), message: messageOf(err) };
        }
        s = transition({ watch: current, now: deps.now() }, s, e);
        if ('record' in s && s.record) await setDate(s.record);
      }
      const { date, outcome: o } = s;
      if (o.kind === 'downloaded') {
        if (o.spend === 'pass') await held.pass!.spent();
        else if (o.spend) await deps.record(o.spend.record, `Watch "${current.name}" ${date}`);
        if (o.teamCopy) {
          held.purchase?.done(o.teamCopy.libraryId, o.teamCopy.costEur);
          teamDone = true;
        }
      }
      if (o.kind === 'dropped') await save((w) => {
        w.dates = w.dates.filter((x) => x.date !== date);
      });
      tally = tallied(tally, date, o);
      return o.kind === 'paused' || o.kind === 'stop' ? o : null;
    } finally {
      held.pass?.release();
      if (!teamDone) held.purchase?.abandoned();
    }
  }

  async function run(): Promise<RunEnd> {
    throwIfAborted(signal);
    await save((w) => {
      w.running = true;
    });
    const c = await deps.client(signal);

    // A download queued by a run the app did not see finish: take its outcome first.
    for (const d of current.dates.filter((x) => x.state === 'queued' && x.jobId)) {
      const end = await drive(c, resumeDate({ ...d, jobId: d.jobId! }), false);
      if (end) return end;
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
        const end = await drive(c, startDate(current, date), true);
        if (end) return end;
      }
    }
    return null;
  }

  try {
    let failure: Failure;
    try {
      const end = await run();
      if (end === null) return await save(finished(tally, deps.now()));
      if (end.kind === 'paused') {
        const p = paused(current, tally, end.notice, deps.now());
        const w = await save(p.change);
        deps.notify(p.note);
        return w;
      }
      failure = end.failure;
    } catch (e) {
      if (isAbortError(e) || signal.aborted) {
        await deps.save((w) => {
          w.running = false;
        }).catch(() => undefined);
        throw e;
      }
      failure = classify(kindOf(e), messageOf(e));
    }
    const f = failed(current, tally, failure, deps.now(), (deps.random ?? Math.random)());
    const w = await save(f.change);
    if (f.note) deps.notify(f.note);
    return w;
  } finally {
    // One notification for the run's new dates (however the run ends), never one per date.
    const n = announcement(current, tally);
    if (n) deps.notify(n);
  }
}
