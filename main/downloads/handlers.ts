import { AppError } from '../../common/errors.js';
import { canonicalBody, requireCanonical, type ServiceClient } from '../api';
import type { HandlerTable } from '../ipc';
import { identicalRequestKey, type LibraryCatalog } from '../library';
import type { SettingsPort } from '../platform/settings';
import { automaticOrderCost, sumEstimates, type DownloadToEstimate, type Estimator, type SpendGuard } from '../spend';
import type { TeamLibrary } from '../team';
import { datesFromSearchAvailable, limitsFromAccountInfo, planComposite, withDate, type CompositeBody } from '../batch-plan/index.js';
import { MAX_PAGE, type DownloadQueue } from './queue.js';
import type { DownloadJob, JobPass } from './types.js';

/**
 * The downloads:* channels. Every download that spends (composite, tile, mini-tile, split batch,
 * time series, retry) is asked of the team library first, then estimated by main and decided by the
 * one spend guard before it is queued.
 */

/** The channels of the download queue. */
export type DownloadChannel =
  | 'downloads:list' | 'downloads:enqueue' | 'downloads:plan' | 'downloads:enqueue-series'
  | 'downloads:cancel' | 'downloads:retry' | 'downloads:remove' | 'downloads:clear' | 'downloads:reveal';

/** What the download channels need. */
export interface DownloadHandlerDeps {
  /** The active profile's connected client. */
  client: (signal: AbortSignal) => Promise<ServiceClient>;
  /** The active profile's id (estimates are kept per profile). */
  profileId: () => Promise<string>;
  queue: DownloadQueue;
  /** The effective settings (the policy's download folder over the user's). */
  settings: SettingsPort;
  /** The one spend guard, and main's own estimates it decides on. */
  guard: SpendGuard;
  estimator: Estimator;
  /** The team library: asked before every purchase, told when a download ended. */
  team?: Pick<TeamLibrary, 'beforePurchase' | 'holdForJob' | 'jobEnded'>;
  /** The analyst's own library: an identical request already in it is not bought again (unless the analyst chose to). */
  library?: LibraryLookup;
  /** Shows a file in the system file manager; absent where the host cannot (browser host). */
  revealFile?: (file: string) => boolean;
}

/** A library raster an identical request would buy again, as the estimate and plan answers name it. */
export interface LibraryCopy {
  id: string;
  path: string;
  date: string | null;
}

/** The analyst's library as the purchase path asks it. */
export type LibraryLookup = Pick<LibraryCatalog, 'findIdentical'>;

/** The library's file of a request identical to `request` (one date), as the answers name it; null when none (or no library). */
export async function identicalInLibrary(library: LibraryLookup | undefined, kind: DownloadToEstimate['kind'], request: Record<string, unknown>): Promise<LibraryCopy | null> {
  const e = library ? await library.findIdentical(kind, request) : null;
  return e ? { id: e.id, path: e.path, date: e.date } : null;
}

/** A queued or running job of the queue that buys a request identical to `request` (a series: on one of its dates), or null. */
export function identicalActiveJob(queue: Pick<DownloadQueue, 'list'>, kind: DownloadToEstimate['kind'], request: Record<string, unknown>): DownloadJob | null {
  const key = identicalRequestKey(kind, request);
  if (key === null) return null;
  for (const job of queue.list()) {
    if (job.kind !== kind || (job.state !== 'queued' && job.state !== 'running')) continue;
    const dates = job.batch?.type === 'series' ? job.batch.dates ?? [] : [null];
    if (dates.some((date) => identicalRequestKey(job.kind, date ? { ...job.request, Date: date } : job.request) === key)) return job;
  }
  return null;
}

/** Main's refusal of a purchase whose identical file is in the analyst's library (a validation error naming `buyAnyway`). */
export class LibraryRefusal extends AppError<'validation'> {
  constructor(readonly copy: LibraryCopy) {
    const message = `Already in your library: ${copy.path}${copy.date ? ` (${copy.date})` : ''}, from an identical request (same date, area, model, constellations and output settings). Use that file (0 EUR), or choose “Buy anyway” to download it again.`;
    super('validation', message, { fields: { buyAnyway: [message] } });
    this.name = 'LibraryRefusal';
  }
}

/** A job without main-internal fields (the .part path). */
export function publicJob(job: DownloadJob): Omit<DownloadJob, 'partPath'> {
  const { partPath: _partPath, ...rest } = job;
  return rest;
}

/** The download queue's slice of the channel table. */
export function downloadHandlers(deps: DownloadHandlerDeps): Pick<HandlerTable, DownloadChannel> {
  const { client, profileId, queue, settings, guard, estimator, team, library } = deps;

  const inLibrary = (kind: DownloadToEstimate['kind'], request: Record<string, unknown>) => identicalInLibrary(library, kind, request);

  /** A series' dates split into those the library holds identically, those a job of the queue is buying now, and those left to buy. */
  async function seriesInLibrary(request: Record<string, unknown>, dates: readonly string[]): Promise<{ held: LibraryCopy[]; coming: string[]; toBuy: string[] }> {
    const held: LibraryCopy[] = [];
    const coming: string[] = [];
    const toBuy: string[] = [];
    for (const date of dates) {
      const copy = await inLibrary('composite', { ...request, Date: date });
      if (copy) held.push({ ...copy, date });
      else if (identicalActiveJob(queue, 'composite', { ...request, Date: date })) coming.push(date);
      else toBuy.push(date);
    }
    return { held, coming, toBuy };
  }

  /**
   * Refuses a purchase a queued or running job of the queue is making already (a series: on any of
   * its dates). Synchronous: called right before the job is queued, nothing can be queued between.
   */
  function refuseIdenticalActive(d: DownloadToEstimate): void {
    const requests = d.batch?.type === 'series' ? (d.batch.dates ?? []).map((date) => ({ ...d.request, Date: date })) : [d.request];
    for (const request of requests) {
      const active = identicalActiveJob(queue, d.kind, request);
      if (!active) continue;
      const message = `This is being downloaded now (download ${active.id}, ${active.state}), from an identical request; it goes into your library when done. Wait for it, or choose “Buy anyway” to download it twice.`;
      throw new AppError('validation', message, { fields: { buyAnyway: [message] } });
    }
  }

  /** The request planned against the account's limits; a plan problem names the field at fault. */
  async function planFor(request: Record<string, unknown>, signal: AbortSignal) {
    const c = await client(signal);
    const info = (c.account ?? (await c.accountInfo(signal))) as Record<string, unknown>;
    // A PlanError is an AppError naming the field at fault: it reaches the form as it is.
    const limits = limitsFromAccountInfo(info);
    return { plan: planComposite(request as CompositeBody, limits), limits };
  }

  /**
   * A download through the spend guard: main estimates it (every part, every date), the guard
   * decides (asking in main's dialog where it must), then `queue` queues it; the cost counts as
   * spent until the job ends, and is written to the ledger when it finished.
   */
  async function guardedDownload(d: DownloadToEstimate, what: string, signal: AbortSignal, queueIt: (pass: JobPass) => Promise<DownloadJob>, buyAnyway = false) {
    // The analyst's own library first, then the team: what is already owned is not bought again (unless the analyst chose to).
    // A series' dates were looked up one by one before (the ones held are not in its batch).
    if (!buyAnyway && d.batch?.type !== 'series') {
      const held = await inLibrary(d.kind, d.request);
      if (held) throw new LibraryRefusal(held);
      // Not in the library yet, but on its way there: a job of the queue buys it now.
      refuseIdenticalActive(d);
    }
    const purchase = d.batch?.type === 'series' || !team ? null : await team.beforePurchase(d.kind, d.request, buyAnyway, signal);
    let pass;
    let job: DownloadJob;
    try {
      const cost = await estimator.downloadCost(await client(signal), await profileId(), d, signal);
      pass = await guard.clear(cost, what, signal, { ask: true });
      try {
        // Looked at again with nothing awaited before the job is in the queue: an identical purchase
        // queued while this one was estimated or confirmed is not bought a second time.
        if (!buyAnyway) refuseIdenticalActive(d);
        job = await queueIt(pass.stored);
      } catch (error) {
        pass.release();
        throw error;
      }
      if (purchase) team!.holdForJob(job.id, purchase, cost.state === 'known' ? cost.eur : null);
    } catch (error) {
      purchase?.abandoned();
      throw error;
    }
    guard.holdForJob(job.id, pass);
    // A job may have ended before it was held (a quick one): its end is taken now.
    const current = queue.get(job.id);
    if (current) {
      guard.jobEnded(current);
      team?.jobEnded(current);
    }
    return publicJob(job);
  }

  /** Dates with imagery for the request's AOI and model in a period (search/available). */
  async function seriesDates(request: Record<string, unknown>, from: string, until: string | null, signal: AbortSignal): Promise<string[]> {
    const c = await client(signal);
    const aoi = request.Wkt != null ? { Wkt: request.Wkt } : { GeoJson: request.GeoJson };
    const found = await c.searchAvailable({ ...aoi, From: from, Until: until, Model: request.Model, SatelliteConstellations: request.SatelliteConstellations } as never, signal);
    return datesFromSearchAvailable(found, { model: typeof request.Model === 'string' ? request.Model : null });
  }

  return {
    'downloads:list': ({ after, limit, state }) => {
      const page = queue.page({ after, limit: limit ?? MAX_PAGE, state });
      return { total: page.total, jobs: page.jobs.map(publicJob), next: page.next, counts: queue.counts() };
    },
    'downloads:enqueue': async ({ kind, request: given, targetDir, buyAnyway }, { signal }) => {
      // The one spelling main checks, prices, matches and sends (an unknown or twice-given field is refused).
      const request = canonicalBody(kind, given);
      const dir = settings.downloadDir(targetDir);
      // Checked before queueing, so a bad field shows next to the form instead of as a failed job.
      await (await client(signal)).checkBinaryRequest(kind, request, signal);
      const what = kind === 'composite' ? 'This composite download' : kind === 'tile' ? 'This tile download' : 'This mini-tile download';
      if (kind === 'composite') {
        // Over the account's limits: one job that fetches parts and mosaics them.
        const { plan, limits } = await planFor(request, signal);
        if (plan.kind === 'split') {
          const batch = { type: 'split' as const, limits, parts: plan.parts.length };
          return guardedDownload({ kind, request, batch }, what, signal, (pass) => queue.add({ kind, request, targetDir: dir, batch, pass }, signal), buyAnyway);
        }
      }
      return guardedDownload({ kind, request }, what, signal, (pass) => queue.add({ kind, request, targetDir: dir, pass }, signal), buyAnyway);
    },
    'downloads:plan': async ({ request: given, series }, { signal }) => {
      const request = canonicalBody('composite', given);
      const c = await client(signal);
      await c.checkBinaryRequest('composite', request, signal);
      const { plan, limits } = await planFor(request, signal);
      const dates = series ? await seriesDates(request, series.from, series.until, signal) : null;
      // A series estimates only the dates it would buy: the ones the library holds identically are not downloaded again.
      const split = dates ? await seriesInLibrary(request, dates) : { held: [], coming: [], toBuy: [] };
      const held = dates ? split.held : [await inLibrary('composite', request)].filter((c): c is LibraryCopy => c !== null);
      const plans = dates ? split.toBuy.map((d) => withDate(plan, d)) : [plan];
      const pid = await profileId();
      const estimates = [];
      // Asked now (the analyst asked for this estimate), and kept for the download that follows.
      for (const p of plans) estimates.push(await estimator.batch(c, pid, p, signal, true));
      const total = sumEstimates(estimates);
      return {
        split: plan.kind === 'split', splitBy: plan.splitBy, parts: plan.parts.length, dates, areaKm2: plan.areaKm2, limits,
        estimate: {
          AreaEstimateKm2: total.AreaEstimateKm2, BilledAreaKm2: total.BilledAreaKm2, CreditEstimate: total.CreditEstimate,
          CurrencyCode: total.CurrencyCode, requests: plans.length * plan.parts.length,
        },
        verdict: await guard.verdict(automaticOrderCost(request) ?? total.cost, signal),
        inLibrary: held,
      };
    },
    'downloads:enqueue-series': async ({ request: given, from, until, targetDir }, { signal }) => {
      const request = canonicalBody('composite', given);
      const dir = settings.downloadDir(targetDir);
      await (await client(signal)).checkBinaryRequest('composite', { ...request, Date: request.Date ?? from }, signal);
      const { plan, limits } = await planFor({ ...request, Date: request.Date ?? from }, signal);
      const listed = await seriesDates(request, from, until, signal);
      if (listed.length === 0) throw new AppError('validation', 'No dates with imagery in this period.', { fields: { From: ['No dates with imagery between From and Until for this area.'] } });
      // Dates whose identical composite is in the library are not bought again.
      // Dates whose identical composite a job of the queue is buying now are not bought twice either.
      const { held, coming, toBuy: dates } = await seriesInLibrary(request, listed);
      if (dates.length === 0) {
        const where = [held.length ? `${held.length} already in your library` : '', coming.length ? `${coming.length} being downloaded now` : ''].filter(Boolean).join(', ');
        const message = `Every date of this series (${where}) is from an identical request: nothing to buy.`;
        throw new AppError('validation', message, { fields: { From: [message] } });
      }
      const batch = { type: 'series' as const, limits, dates, parts: plan.parts.length };
      return guardedDownload({ kind: 'composite', request, batch }, `This time series (${dates.length} dates)`, signal, (pass) => queue.add({ kind: 'composite', request, targetDir: dir, batch, pass }, signal));
    },
    'downloads:cancel': async ({ id }, { signal }) => publicJob(await queue.cancel(id, signal)),
    'downloads:retry': async ({ id }, { signal }) => {
      const job = queue.get(id);
      if (!job) throw new AppError('not-found', `No download ${id}.`);
      if (job.state !== 'failed' && job.state !== 'cancelled') return publicJob(await queue.retry(id, signal));
      // The stored request is sent as it is: only one already in the canonical spelling is priced and sent again.
      requireCanonical(job.kind, job.request);
      // Downloading again spends again: the guard decides on main's estimate of the whole job.
      // The analyst already chose to buy it; the team's claim still keeps a teammate from buying it at the same moment.
      return guardedDownload({ kind: job.kind, request: job.request, batch: job.batch }, 'This retried download', signal, (pass) => queue.retry(id, signal, pass), true);
    },
    'downloads:remove': async ({ id }, { signal }) => {
      await queue.remove(id, signal);
      return { removed: true as const };
    },
    'downloads:clear': ({ states }) => ({ removed: queue.clearFinished(states), counts: queue.counts() }),
    'downloads:reveal': ({ id }) => {
      const job = queue.get(id);
      if (!job) throw new AppError('not-found', `No download ${id}.`);
      if (!job.file) throw new AppError('validation', 'This download has no file yet.');
      return { revealed: deps.revealFile ? deps.revealFile(job.file) : false };
    },
  };
}
