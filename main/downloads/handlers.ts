import { AppError } from '../../common/errors.js';
import type { ServiceClient } from '../api';
import type { HandlerTable } from '../ipc';
import type { SettingsPort } from '../platform/settings';
import type { SpendGuard } from '../spend';
import type { TeamLibrary } from '../team';
import { datesFromSearchAvailable, limitsFromAccountInfo, planComposite, sumEstimates, withDate, type CompositeBody } from './batch/index.js';
import type { DownloadToEstimate, Estimator } from './estimates.js';
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
  /** Shows a file in the system file manager; absent where the host cannot (browser host). */
  revealFile?: (file: string) => boolean;
}

/** A job without main-internal fields (the .part path). */
export function publicJob(job: DownloadJob): Omit<DownloadJob, 'partPath'> {
  const { partPath: _partPath, ...rest } = job;
  return rest;
}

/** The download queue's slice of the channel table. */
export function downloadHandlers(deps: DownloadHandlerDeps): Pick<HandlerTable, DownloadChannel> {
  const { client, profileId, queue, settings, guard, estimator, team } = deps;

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
    // The team first: what a teammate owns or is buying now is not bought again (unless the analyst chose to).
    const purchase = d.batch?.type === 'series' || !team ? null : await team.beforePurchase(d.kind, d.request, buyAnyway, signal);
    let pass;
    let job: DownloadJob;
    try {
      const cost = await estimator.downloadCost(await client(signal), await profileId(), d, signal);
      pass = await guard.clear(cost, what, signal, { ask: true });
      try {
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
    'downloads:enqueue': async ({ kind, request, targetDir, buyAnyway }, { signal }) => {
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
    'downloads:plan': async ({ request, series }, { signal }) => {
      const c = await client(signal);
      await c.checkBinaryRequest('composite', request, signal);
      const { plan, limits } = await planFor(request, signal);
      const dates = series ? await seriesDates(request, series.from, series.until, signal) : null;
      const plans = dates ? dates.map((d) => withDate(plan, d)) : [plan];
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
        verdict: await guard.verdict(total.cost, signal),
      };
    },
    'downloads:enqueue-series': async ({ request, from, until, targetDir }, { signal }) => {
      const dir = settings.downloadDir(targetDir);
      await (await client(signal)).checkBinaryRequest('composite', { ...request, Date: request.Date ?? from }, signal);
      const { plan, limits } = await planFor({ ...request, Date: request.Date ?? from }, signal);
      const dates = await seriesDates(request, from, until, signal);
      if (dates.length === 0) throw new AppError('validation', 'No dates with imagery in this period.', { fields: { From: ['No dates with imagery between From and Until for this area.'] } });
      const batch = { type: 'series' as const, limits, dates, parts: plan.parts.length };
      return guardedDownload({ kind: 'composite', request, batch }, `This time series (${dates.length} dates)`, signal, (pass) => queue.add({ kind: 'composite', request, targetDir: dir, batch, pass }, signal));
    },
    'downloads:cancel': async ({ id }, { signal }) => publicJob(await queue.cancel(id, signal)),
    'downloads:retry': async ({ id }, { signal }) => {
      const job = queue.get(id);
      if (!job) throw new AppError('not-found', `No download ${id}.`);
      if (job.state !== 'failed' && job.state !== 'cancelled') return publicJob(await queue.retry(id, signal));
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
