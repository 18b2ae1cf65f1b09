import { rm } from 'node:fs/promises';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { abortable } from '../../common/abort.js';
import { AppError } from '../../common/errors.js';
import type { ServiceClient } from '../api';
import { identicalActiveJob, type DownloadJob, type DownloadQueue } from '../downloads';
import type { HandlerTable } from '../ipc';
import type { ProfileStore } from '../profiles';
import type { LibraryCatalog } from '../library';
import type { Notifier } from '../notifications/notifier';
import type { Emit } from '../platform/emit';
import { namePart } from '../shared/files.js';
import type { SettingsPort } from '../platform/settings';
import { monthOf, type Estimator, type SpendGuard } from '../spend';
import { runWatch, type WatchClient, type WatchRunDeps } from './runner';
import { summarize, type Watch, type WatchStore, type WatchSummary } from './store';

/** Channels served here. */
export type WatchChannel =
  | 'watches:list' | 'watches:dates' | 'watches:create' | 'watches:update' | 'watches:delete' | 'watches:pause' | 'watches:resume' | 'watches:run';

/** What the watch service needs from the app. */
export interface WatchServiceDeps {
  store: WatchStore;
  /** The app's one spend guard, and main's own estimates it decides on. */
  guard: SpendGuard;
  estimator: Estimator;
  notifier: Notifier;
  queue: DownloadQueue;
  library: LibraryCatalog;
  /** The active profile's connection (main/connection/session.ts `ServiceSession`). */
  session: { client(signal?: AbortSignal): Promise<ServiceClient> };
  profiles: ProfileStore;
  /** The effective settings (the policy's download folder over the user's). */
  settings: SettingsPort;
  emit: Emit;
  /** The team library: dates the team owns are taken from the share, dates a teammate is buying wait (see WatchRunDeps.team). */
  team?: Pick<WatchRunDeps, 'team'>['team'];
  log?: (line: string) => void;
  now?: () => number;
  /** How often due watches are looked for, ms (default 30 s). */
  tickMs?: number;
}

const FINAL = new Set(['done', 'failed', 'cancelled']);

/** What a watch buys: its source, area, model, constellations, period and composite settings. */
const PURCHASE = ['source', 'area', 'model', 'constellations', 'from', 'to', 'settings'] as const;
const purchaseOf = (w: Watch): Pick<Watch, (typeof PURCHASE)[number]> => Object.fromEntries(PURCHASE.map((k) => [k, w[k]])) as Pick<Watch, (typeof PURCHASE)[number]>;

/** A folder name from a watch name: letters, digits, dashes; never empty, never a path. */
export function watchFolder(w: Pick<Watch, 'name' | 'id'>): string {
  return `${namePart(w.name, 'watch', 40)}-${w.id.slice(0, 8)}`;
}

/**
 * Runs the active profile's watches on schedule: due ones (next run in the past, so also those the
 * app missed while closed or offline) one at a time, each with the app's service client and
 * download queue; and serves the watch channels.
 */
export class WatchService {
  private readonly controller = new AbortController();
  private timer: NodeJS.Timeout | null = null;
  private chain: Promise<void> = Promise.resolve();
  private readonly pending = new Set<string>();
  private readonly now: () => number;

  constructor(private readonly deps: WatchServiceDeps) {
    this.now = deps.now ?? Date.now;
  }

  /** Starts the schedule (catching up at once). */
  start(): void {
    if (this.timer) return;
    void this.tick();
    this.timer = setInterval(() => void this.tick(), this.deps.tickMs ?? 30_000);
    this.timer.unref?.();
  }

  /** Stops the schedule and aborts a running watch (it resumes at the next start). */
  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.controller.abort();
    await this.chain.catch(() => undefined);
    await this.deps.store.flush().catch(() => undefined);
  }

  /** Queues every due watch of the active profile. */
  async tick(): Promise<void> {
    if (this.controller.signal.aborted) return;
    const now = this.now();
    const due = this.deps.store.due(now);
    // A quiet tick (nothing due) reads nothing: the active profile comes from the keychain-backed store.
    if (!due.length) return;
    const profileId = await this.activeProfile().catch(() => null);
    for (const w of due) if (w.profileId === profileId) this.schedule(w.id);
  }

  /** Runs a watch soon (after the one running now). */
  schedule(id: string): void {
    if (this.pending.has(id) || this.controller.signal.aborted) return;
    this.pending.add(id);
    this.chain = this.chain.then(() => this.runOne(id)).catch((e: unknown) => this.deps.log?.(`watch ${id}: ${String(e)}`));
  }

  /** Resolves once every run queued so far has finished. */
  idle(): Promise<void> {
    return this.chain;
  }

  private async activeProfile(): Promise<string> {
    return (await this.deps.profiles.getActive()).id;
  }

  /** Tells the window a watch changed, with its new summary (or that it is gone). */
  private changed(id: string, deleted = false): WatchSummary | undefined {
    const watch = deleted ? undefined : this.deps.store.summary(id);
    this.deps.emit('watch:changed', watch ? { id, watch } : { id, deleted: true });
    return watch;
  }

  private async runOne(id: string): Promise<void> {
    this.pending.delete(id);
    const w = this.deps.store.get(id);
    if (!w || w.state !== 'active' || this.controller.signal.aborted) return;
    if (w.profileId !== (await this.activeProfile())) return;
    try {
      await runWatch(w, this.runDeps(w), this.controller.signal);
    } catch (e) {
      if (!this.controller.signal.aborted) this.deps.log?.(`watch "${w.name}": ${String(e)}`);
    } finally {
      this.changed(id);
    }
  }

  /** A job's end: at once when it already ended, else at its final 'job' event; null when the queue does not have it. */
  private awaitJob(jobId: string, signal: AbortSignal): Promise<DownloadJob | null> {
    const { queue } = this.deps;
    const now = queue.get(jobId);
    if (!now) return Promise.resolve(null);
    if (FINAL.has(now.state)) return Promise.resolve(now);
    const ended = new Promise<DownloadJob>((resolve) => {
      const stop = () => queue.off('job', onJob);
      const onJob = (job: DownloadJob) => {
        if (job.id !== jobId || !FINAL.has(job.state)) return;
        stop();
        signal.removeEventListener('abort', stop);
        resolve(job);
      };
      queue.on('job', onJob);
      signal.addEventListener('abort', stop, { once: true });
    });
    return abortable(ended, signal);
  }

  private runDeps(w: Watch): WatchRunDeps {
    const { store, queue, library, settings, guard, estimator, notifier, session } = this.deps;
    return {
      client: (signal) => session.client(signal) as Promise<WatchClient>,
      download: async ({ request, batch, pass }, watch, signal) => {
        await (await session.client(signal)).checkBinaryRequest('composite', request, signal);
        const targetDir = path.join(settings.get().downloadDir, 'watches', watchFolder(watch));
        // Looked at again with nothing awaited before queueing: the analyst may have queued this date meanwhile.
        const active = identicalActiveJob(queue, 'composite', request);
        if (active) return { pendingJob: active.id };
        return queue.add({ kind: 'composite', request, targetDir, pass, ...(batch ? { batch: { type: 'split', ...batch } } : {}) }, signal);
      },
      awaitJob: (jobId, signal) => this.awaitJob(jobId, signal),
      // The job knows its first file's entry; a batch's other files are found by path (indexed).
      libraryIdsFor: (job) => {
        const files = job.files ?? (job.file ? [job.file] : []);
        return files.flatMap((f, i) => (i === 0 && job.libraryId && library.get(job.libraryId)?.path === f ? [job.libraryId] : library.findByPath(f)?.id ?? []));
      },
      estimate: async (plan, signal) => estimator.batch(await session.client(signal), w.profileId, plan, signal),
      clear: (cost, what, agreed, signal) => guard.clear(cost, what, signal, { ask: false, agreed }),
      record: (cost, what) => guard.record(w.profileId, cost, what),
      save: async (change) => {
        const saved = await store.update(w.id, change);
        this.changed(w.id);
        return saved;
      },
      notify: (n) => notifier.notify(n),
      now: this.now,
      library: async (request) => {
        const e = await library.findIdentical('composite', request);
        if (e) return { libraryId: e.id, path: e.path };
        const job = identicalActiveJob(queue, 'composite', request);
        return job ? { pendingJob: job.id } : null;
      },
      ...(this.deps.team ? { team: this.deps.team } : {}),
    };
  }

  /** The channels of watches and notifications. */
  handlers(): Pick<HandlerTable, WatchChannel> {
    const { store, library, guard } = this.deps;
    const month = () => monthOf(this.now());
    const profile = () => this.activeProfile();
    const mine = async (id: string): Promise<Watch> => {
      const w = store.need(id);
      if (w.profileId !== (await profile())) throw new AppError('not-found', `Watch ${id} belongs to another profile; switch to it first.`);
      return w;
    };
    const changed = (w: Watch): WatchSummary => this.changed(w.id) ?? summarize(w, month());

    return {
      'watches:list': async () => ({ watches: store.summaries(await profile()) }),
      'watches:dates': async ({ id, offset, limit }) => store.datesPage(id, await profile(), offset, limit),
      'watches:create': async (input) => {
        const w = await store.create(await profile(), input);
        this.schedule(w.id);
        return changed(w);
      },
      'watches:update': async ({ id, patch }) => {
        const before = await mine(id);
        // Raising or clearing a cap lets the watch spend more without asking: main's dialog decides.
        if (patch.capEur !== undefined && before.capEur !== null && (patch.capEur === null || patch.capEur > before.capEur)) {
          const change = patch.capEur === null ? `clear the ${before.capEur.toFixed(2)} EUR cap of "${before.name}"` : `raise the cap of "${before.name}" from ${before.capEur.toFixed(2)} to ${patch.capEur.toFixed(2)} EUR`;
          await guard.consent(
            { title: 'Change the watch’s cap?', message: `${change.charAt(0).toUpperCase()}${change.slice(1)}?`, detail: 'The watch can then spend more each month without asking.', confirmLabel: patch.capEur === null ? 'Clear cap' : 'Raise cap' },
            `The cap stays at ${before.capEur.toFixed(2)} EUR.`,
          );
        }
        const w = await store.update(id, (x) => {
          const bought = purchaseOf(x);
          Object.assign(x, patch);
          // Spending past the limit was agreed for what the watch bought then: other purchases ask again.
          if (!isDeepStrictEqual(bought, purchaseOf(x))) x.allowOverMonth = null;
          // New settings deserve another try at what was set aside or failed.
          x.dates = x.dates.filter((d) => d.state === 'downloaded' || d.state === 'queued');
          if (x.state === 'attention') x.state = 'active';
          if (x.state === 'active') {
            x.notice = null;
            x.failures = 0;
            x.nextRunAt = new Date(this.now()).toISOString();
          }
        });
        if (w.state === 'active') this.schedule(id);
        return changed(w);
      },
      'watches:delete': async ({ id, deleteFiles }, { signal }) => {
        const w = await mine(id);
        let filesDeleted = 0;
        if (deleteFiles) {
          // Only the files this watch downloaded (a date with a job), through the library (which deletes
          // only its own downloads); a date linked to the library's or the team's copy keeps that file.
          for (const d of w.dates.filter((x) => x.jobId !== null)) {
            for (const libId of d.libraryIds) {
              if (!library.get(libId)) continue;
              await library.remove(libId, { deleteFile: true }, signal);
              filesDeleted++;
            }
            for (const f of d.files.filter((x) => !/\.tiff?$/i.test(x))) await rm(f, { force: true });
          }
        }
        await store.delete(id);
        this.changed(id, true);
        return { deleted: true as const, filesDeleted };
      },
      'watches:pause': async ({ id }) => {
        await mine(id);
        return changed(await store.update(id, (x) => Object.assign(x, { state: 'paused', notice: 'Paused by you.', nextRunAt: null })));
      },
      'watches:resume': async ({ id, pastCap }) => {
        const before = await mine(id);
        let allowOverMonth = before.allowOverMonth;
        if (pastCap) {
          await guard.consent({
            title: 'Spend past the limit?',
            message: `Let "${before.name}" download past its cap or the monthly budget for ${month()}?`,
            detail: `${before.notice ?? ''}\n\nUntil the end of the month, this watch downloads every new date of a known cost past its cap and the budget, as long as its area, period and settings stay as they are (never past your organisation's ceiling; a date whose cost is not known still pauses it).`,
            confirmLabel: 'Spend past the limit',
          }, 'The watch stays paused; raise the cap or the budget instead.');
          allowOverMonth = month();
        }
        const w = await store.update(id, (x) => Object.assign(x, {
          state: 'active', notice: null, failures: 0, allowOverMonth, nextRunAt: new Date(this.now()).toISOString(),
        }));
        this.schedule(id);
        return changed(w);
      },
      'watches:run': async ({ id }) => {
        const before = await mine(id);
        if (before.state === 'paused') throw new AppError('validation', `"${before.name}" is paused; resume it first.`);
        const w = await store.update(id, (x) => Object.assign(x, { state: 'active', nextRunAt: new Date(this.now()).toISOString() }));
        this.schedule(id);
        return changed(w);
      },
    };
  }
}
