import { CONTRACT_VERSION } from '../../preload/contract';
import type { CompositeAvailableRequest, GeographyCompositeRequest, OpenOperationKey, SearchAvailableRequest } from '../api';
import type { DownloadJob, DownloadQueue } from '../downloads';
import {
  datesFromSearchAvailable, limitsFromAccountInfo, planComposite, sumEstimates, withDate, type CompositeBody,
} from '../downloads/batch';
import { downloadCost, orderCost } from '../../common/money.js';
import { analysisHandlers, type AnalysisService } from '../analysis';
import { exportHandlers, type ExportTargetRequest } from '../exports/handlers';
import { AppError } from '../../common/errors.js';
import type { HandlerTable } from '../ipc';
import { DEMO_PROFILE_ID, type KeyProbe, type ProfileStore } from '../keychain';
import type { LibraryCatalog } from '../library';
import type { OverviewCache } from '../library/overview-cache';
import type { DistributionChannel } from './distribution';
import type { ServiceSession } from './session';
import type { HostConfirm } from '../platform/confirm';
import type { SettingsPort } from '../platform/settings';
import type { DownloadToEstimate, Estimator, SpendChannel, SpendGuard } from '../spend';
import type { WatchChannel } from '../watches/service';
import type { TeamChannel, TeamLibrary } from '../team';

/**
 * The handler table of the whole contract: thin adapters from validated IPC
 * requests to the service session, profiles, download queue, library and
 * settings. No Electron here; host capabilities are injected.
 */

/** What the handlers need. */
export interface HandlerDeps {
  version: string;
  platform: string;
  session: ServiceSession;
  profiles: ProfileStore;
  queue: DownloadQueue;
  library: LibraryCatalog;
  /** The effective settings (the policy's over the user's). */
  settings: SettingsPort;
  /** The one spend guard, and main's own estimates it decides on. */
  guard: SpendGuard;
  estimator: Estimator;
  /** Overview copies for previewing non-COG library rasters. */
  overviews: OverviewCache;
  /** Calls account info with a key, for testing a stored key. */
  probe: KeyProbe;
  /** Asks the user for GeoTIFF files with the system dialog; absent where the host has none (browser host). */
  chooseFiles?: () => Promise<string[] | null>;
  /** Shows a file in the system file manager; absent where the host cannot (browser host). */
  revealFile?: (file: string) => boolean;
  /** Main's own native question to the analyst; absent in the browser host, where what needs it is refused. */
  confirm?: HostConfirm;
  /** Asks where an export goes (Electron: save dialog); absent: under the download folder. */
  chooseExportPath?: (request: ExportTargetRequest) => Promise<string | null>;
  /** Time series and change layers (main/analysis). */
  analysis: AnalysisService;
  /** The team library: asked before every purchase, told when a download finished. */
  team?: TeamLibrary;
  now?: () => number;
}

/** A job without main-internal fields (the .part path). */
export function publicJob(job: DownloadJob): Omit<DownloadJob, 'partPath'> {
  const { partPath: _partPath, ...rest } = job;
  return rest;
}

/** Builds the handler table (the distribution channels come from ./distribution, the monitoring ones from ../watches). */
export function createAppHandlers(deps: HandlerDeps): Omit<HandlerTable, DistributionChannel | WatchChannel | SpendChannel | TeamChannel> {
  const { session, profiles, queue, library, settings, guard, estimator } = deps;
  const now = deps.now ?? (() => performance.now());
  const client = (signal: AbortSignal) => session.client(signal);
  // Anything that changes which key or URL is used must drop the current connection.
  const changed = <T>(value: T): T => {
    session.invalidate();
    return value;
  };

  /** The request planned against the account's limits; a plan problem names the field at fault. */
  async function planFor(request: Record<string, unknown>, signal: AbortSignal) {
    const c = await client(signal);
    const info = (c.account ?? (await c.accountInfo(signal))) as Record<string, unknown>;
    // A PlanError is an AppError naming the field at fault: it reaches the form as it is.
    const limits = limitsFromAccountInfo(info);
    return { plan: planComposite(request as CompositeBody, limits), limits };
  }

  const profileId = async (): Promise<string> => (await profiles.getActive()).id;

  /**
   * A download through the spend guard: main estimates it (every part, every date), the guard
   * decides (asking in main's dialog where it must), then `queue` queues it; the cost counts as
   * spent until the job ends, and is written to the ledger when it finished.
   */
  async function guardedDownload(d: DownloadToEstimate, what: string, signal: AbortSignal, queueIt: () => Promise<DownloadJob>, buyAnyway = false) {
    // The team first: what a teammate owns or is buying now is not bought again (unless the analyst chose to).
    const purchase = d.batch?.type === 'series' || !deps.team ? null : await deps.team.beforePurchase(d.kind, d.request, buyAnyway, signal);
    let pass;
    let job: DownloadJob;
    try {
      const cost = await estimator.downloadCost(await client(signal), await profileId(), d, signal);
      pass = await guard.clear(cost, what, signal, { ask: true });
      try {
        job = await queueIt();
      } catch (error) {
        pass.release();
        throw error;
      }
      if (purchase) deps.team!.holdForJob(job.id, purchase, cost.state === 'known' ? cost.eur : null);
    } catch (error) {
      purchase?.abandoned();
      throw error;
    }
    guard.holdForJob(job.id, pass);
    // A job may have ended before it was held (a quick one): its end is taken now.
    const current = queue.get(job.id);
    if (current) {
      guard.jobEnded(current);
      deps.team?.jobEnded(current);
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
    'app:info': async () => {
      const status = await session.status();
      return {
        version: deps.version,
        platform: deps.platform,
        service: { label: status.label, baseUrl: status.baseUrl ?? '', demo: status.demo },
        contractVersion: CONTRACT_VERSION,
      };
    },
    'service:ping': async (_r, { signal }) => {
      const started = now();
      try {
        await (await client(signal)).accountInfo(signal, { retry: false });
        return { reachable: true, latencyMs: Math.max(0, now() - started) };
      } catch (error) {
        const kind = (error as { kind?: string }).kind;
        if (kind === 'auth' || kind === 'cancelled') throw error;
        return { reachable: false, latencyMs: Math.max(0, now() - started) };
      }
    },
    'service:status': () => session.status(),
    'service:reconnect': async (_r, { signal }) => {
      session.invalidate();
      await client(signal).catch(() => undefined);
      return session.status();
    },
    'service:operations': async (_r, { signal }) => {
      const c = await client(signal);
      return {
        operations: c.openOperations().map((op) => ({
          key: op.key, operationId: op.operationId, method: op.method, path: op.path, summary: op.summary,
          deprecated: op.deprecated, parameters: op.parameters as Record<string, unknown>,
          body: (op.body as Record<string, unknown> | null) ?? null, bodyRequired: op.bodyRequired,
        })),
      };
    },
    'service:call': async ({ key, params, body }, { signal }) => {
      const c = await client(signal);
      if (!c.openOperations().some((op) => op.key === key)) {
        throw new AppError('not-found', `The service's specification has no operation "${key}".`);
      }
      return { data: await c.callOpen(key as OpenOperationKey, { params, body }, signal) };
    },

    'profiles:list': () => profiles.list(),
    'profiles:create': async (r) => changed(await profiles.create(r)),
    'profiles:update': async ({ id, ...patch }) => changed(await profiles.update(id, patch)),
    'profiles:delete': async ({ id }) => {
      await profiles.delete(id);
      changed(null);
      return { deleted: true as const };
    },
    'profiles:activate': async ({ id }) => changed(await profiles.setActive(id)),
    'profiles:set-key': async ({ id, key }) => changed(await profiles.setKey(id, key)),
    'profiles:delete-key': async ({ id }) => changed(await profiles.deleteKey(id)),
    'profiles:test-key': ({ id }, { signal }) => profiles.testKey(id, deps.probe, { signal }),
    'profiles:confirm-origin': async ({ id }) => {
      const p = await profiles.get(id);
      if (!p.keyNeedsConfirm || !p.baseUrl) return p;
      const origin = new URL(p.baseUrl).origin;
      const reEnter = { key: [`Key entered for ${p.keyOrigin}; enter it again for ${origin}.`] };
      if (!deps.confirm) {
        throw new AppError('validation', `This window cannot confirm sending the key of "${p.name}" to ${origin}; enter the key again.`, { fields: reEnter });
      }
      // Main's own dialog: the renderer asked, but only the analyst answers.
      const agreed = await deps.confirm({
        title: 'Send the API key to a new address?',
        message: `Send the API key of "${p.name}" to ${origin}?`,
        detail: `The key was entered for ${p.keyOrigin}. The profile now points at ${origin}.\n\nIf you did not change the address yourself, choose Cancel and check the profile.`,
        confirmLabel: `Send key to ${origin}`,
      });
      if (!agreed) throw new AppError('cancelled', `The key stays bound to ${p.keyOrigin}.`);
      return changed(await profiles.confirmKeyOrigin(id, origin));
    },

    'account:info': async (_r, { signal }) => ({ data: await (await client(signal)).accountInfo(signal) }),
    'account:settings': async (_r, { signal }) => ({ data: await (await client(signal)).accountSettings(signal) }),
    'billing:summary': async (_r, { signal }) => ({ data: await (await client(signal)).billingSummary(signal) }),
    'billing:orders': async (period, { signal }) => ({ data: await (await client(signal)).billingOrders(period, signal) }),
    'billing:transactions': async (period, { signal }) => ({ data: await (await client(signal)).billingTransactions(period, signal) }),

    'imagery:search': async ({ request }, { signal }) => ({ data: await (await client(signal)).searchAvailable(request as unknown as SearchAvailableRequest, signal) }),
    'imagery:available': async ({ request }, { signal }) => ({ data: await (await client(signal)).compositeAvailable(request as unknown as CompositeAvailableRequest, signal) }),
    'imagery:estimate': async ({ request }, { signal }) => {
      // Kept briefly as main's own estimate of this exact request: a download of it right after is decided on this answer.
      const data = await estimator.composite(await client(signal), await profileId(), request, signal, true);
      return { data, verdict: await guard.verdict(downloadCost(data), signal) };
    },
    'imagery:legacy-composite': async ({ request }, { signal }) => ({
      // Deprecated by the service; reachable on purpose, under "legacy", with a notice in the UI.
      data: await (await client(signal)).geographyComposite(request as unknown as GeographyCompositeRequest, signal),
    }),

    'tasking:models': async (_r, { signal }) => ({ models: await (await client(signal)).taskingModels(signal) }),
    'tasking:estimate': async ({ request }, { signal }) => {
      const { estimate, payload } = await estimator.order(await client(signal), await profileId(), JSON.stringify(request), signal, true);
      return { estimate, payload, verdict: await guard.verdict(orderCost(estimate), signal) };
    },
    'tasking:create': async ({ payload, tileDeduplication }, { signal }) => {
      const c = await client(signal);
      // Main's own estimate of this exact payload (the one just made, else a new one): never a cost the page names.
      const cost = orderCost((await estimator.order(c, await profileId(), payload, signal)).estimate);
      const pass = await guard.clear(cost, 'This order', signal, { ask: true });
      try {
        const data = await c.createOrder(payload, signal, { tileDeduplication });
        await pass.spent();
        return { data };
      } finally {
        pass.release();
      }
    },

    'downloads:list': () => ({ jobs: queue.list().map(publicJob) }),
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
          return guardedDownload({ kind, request, batch }, what, signal, () => queue.add({ kind, request, targetDir: dir, batch }, signal), buyAnyway);
        }
      }
      return guardedDownload({ kind, request }, what, signal, () => queue.add({ kind, request, targetDir: dir }, signal), buyAnyway);
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
      return guardedDownload({ kind: 'composite', request, batch }, `This time series (${dates.length} dates)`, signal, () => queue.add({ kind: 'composite', request, targetDir: dir, batch }, signal));
    },
    'downloads:cancel': async ({ id }, { signal }) => publicJob(await queue.cancel(id, signal)),
    'downloads:retry': async ({ id }, { signal }) => {
      const job = queue.get(id);
      if (!job) throw new AppError('not-found', `No download ${id}.`);
      if (job.state !== 'failed' && job.state !== 'cancelled') return publicJob(await queue.retry(id, signal));
      // Downloading again spends again: the guard decides on main's estimate of the whole job.
      // The analyst already chose to buy it; the team's claim still keeps a teammate from buying it at the same moment.
      return guardedDownload({ kind: job.kind, request: job.request, batch: job.batch }, 'This retried download', signal, () => queue.retry(id, signal), true);
    },
    'downloads:remove': async ({ id }, { signal }) => {
      await queue.remove(id, signal);
      return { removed: true as const };
    },
    'downloads:reveal': ({ id }) => {
      const job = queue.get(id);
      if (!job) throw new AppError('not-found', `No download ${id}.`);
      if (!job.file) throw new AppError('validation', 'This download has no file yet.');
      return { revealed: deps.revealFile ? deps.revealFile(job.file) : false };
    },

    'library:query': (q) => library.query(q),
    'library:cover': ({ bbox, limit }) => {
      const all = library.covering(bbox);
      return { total: all.length, entries: all.slice(0, limit) };
    },
    'library:import': async ({ paths }, { signal }) => {
      const entries = [];
      for (const file of paths) entries.push(await library.importFile(file, signal));
      return { entries };
    },
    'library:import-dialog': async (_r, { signal }) => {
      if (!deps.chooseFiles) {
        throw new AppError('validation', 'This window has no system file dialog; paste the file path instead.', { fields: { paths: ['Enter the path of a .tif or .tiff file.'] } });
      }
      const paths = await deps.chooseFiles();
      if (!paths || paths.length === 0) return { entries: [], cancelled: true };
      const entries = [];
      for (const file of paths) entries.push(await library.importFile(file, signal));
      return { entries, cancelled: false };
    },
    'library:remove': async ({ id, deleteFile }, { signal }) => {
      const ask = deps.confirm;
      const confirmDelete = ask
        ? (entry: { path: string }) => ask({
          title: 'Delete file',
          message: 'Delete this file from disk?',
          detail: `${entry.path}\n\nSwath did not download this file; it was imported. It will be deleted permanently.`,
          confirmLabel: 'Delete file',
        })
        : undefined;
      await library.remove(id, { deleteFile, confirmDelete }, signal);
      return { removed: true as const };
    },

    ...exportHandlers({ library, settings, chooseExportPath: deps.chooseExportPath, ...(deps.team ? { teamEntries: (signal: AbortSignal) => deps.team!.stacEntries(signal) } : {}) }),
    ...analysisHandlers(deps.analysis),

    'settings:get': () => settings.get(),
    'settings:set': (patch) => settings.set(patch),

    'library:preview': ({ id, quickLook }, { signal }) => deps.overviews.prepare(id, signal, { quickLook }),
    'library:reveal': ({ id }) => {
      const entry = library.get(id);
      if (!entry) throw new AppError('not-found', `No library entry with id ${id}.`);
      return { revealed: deps.revealFile ? deps.revealFile(entry.path) : false };
    },
  };
}

/** The demo profile's id, re-exported for hosts. */
export { DEMO_PROFILE_ID };
