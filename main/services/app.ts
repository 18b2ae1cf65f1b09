import path from 'node:path';
import type { EventPayload } from '../../preload/contract';
import { RedirectRefusedError, refuseRedirects, type HttpFetch } from '../api';
import { redactText, sealForRenderer } from '../api/redact';
import { DownloadQueue, createBatchRunner } from '../downloads';
import { clientBinarySource } from './binary-source';
import type { Emit } from '../platform/emit';
import { randomDemoKey, startEmbeddedService, type EmbeddedService, type StartSimulator } from './embedded-service';
import type { HandlerTable } from '../ipc';
import { Keychain, ProfileStore, type KeychainBackend, type KeyProbe } from '../keychain';
import { AnalysisService, AnalysisWorkers } from '../analysis';
import { LibraryCatalog, type RasterFileLookup } from '../library';
import { openDatabase } from '../shared/database';
import { OverviewCache } from '../library/overview-cache';
import { setupDistribution, type DistributionOptions } from './distribution';
import type { ExportTargetRequest } from '../exports/handlers';
import { createAppHandlers, publicJob } from './handlers';
import { ServiceSession } from './session';
import type { HostConfirm } from '../platform/confirm';
import { SettingsStore } from './settings';
import { Notifier, type ShowNativeNotification } from '../notifications/notifier';
import { budgetCeilingEur, budgetProblem, policySettings, type PolicyState } from '../policy';
import { Estimator, SpendGuard, SpendStore, spendHandlers } from '../spend';
import { openWatches } from '../watches';
import { openTeamLibrary, teamHandlers } from '../team';

/**
 * The app without its window: the embedded demo service, profiles and keys,
 * the service session, the download queue, the library and settings, wired to
 * one handler table. The Electron host and the browser host both mount this,
 * so they serve the same contract with the same behaviour.
 */

export type { Emit } from '../platform/emit';

/** What {@link createApp} needs from its host. */
export interface AppOptions {
  userDataDir: string;
  /** Default folder for downloads. */
  downloadsDir: string;
  version: string;
  platform: string;
  startSimulator: StartSimulator;
  emit: Emit;
  /** The host's HTTP implementation: Electron's net.fetch (system proxy, OS certificates) or undici. */
  fetch?: HttpFetch;
  /** Keychain backend; the real OS keychain by default. */
  keychainBackend?: KeychainBackend;
  /** The keychain service name (default "Swath"); tests give each app core its own. */
  keychainService?: string;
  /** The command that starts this Swath, named in keychain advice ("start it inside a D-Bus session"). */
  launchCommand?: string;
  revealFile?: (file: string) => boolean;
  /** The system "open files" dialog for GeoTIFFs; the browser host has none. */
  chooseFiles?: () => Promise<string[] | null>;
  /** Main's native question to the analyst (Electron's message box); the browser host has none, and refuses instead. */
  confirm?: HostConfirm;
  /** Where an export goes (Electron: the save dialog); absent: under the download folder. */
  chooseExportPath?: (request: ExportTargetRequest) => Promise<string | null>;
  log?: (message: string) => void;
  /** Admin policy, log file, updates, About and diagnostics inputs; safe defaults when absent. */
  distribution?: DistributionOptions;
  /** The host's native OS notification (Electron's Notification); absent: the window shows them. */
  showNotification?: ShowNativeNotification;
  /** Brings the window forward (a native notification was clicked). */
  focus?: () => void;
}

/** A running app core. */
export interface SwathApp {
  handlers: HandlerTable;
  /** The last connection state, for a host that connects a new window later. */
  connection(): EventPayload<'connection:state'>;
  /** The library catalog. */
  library: LibraryCatalog;
  /** What the raster protocol serves: library rasters and their overview copies. */
  rasters: RasterFileLookup;
  /** The diagnostics report (redacted), for the Help menu. */
  diagnostics(): Promise<string>;
  close(): Promise<void>;
}

/** Starts the app core. */
export async function createApp(options: AppOptions): Promise<SwathApp> {
  // Every log line and event leaves the core with the keys main holds masked.
  const log = (line: string): void => options.log?.(redactText(line));
  const dir = options.userDataDir;
  let connection: EventPayload<'connection:state'> = { state: 'connecting' };
  const emit: Emit = (event, raw) => {
    let payload: typeof raw;
    try {
      payload = sealForRenderer(raw, `The event "${event}"`);
    } catch (error) {
      // Too deep to check, or still holding a key: the window never gets it.
      log(`${(error as Error).message} It was not sent to the window.`);
      return;
    }
    if (event === 'connection:state') connection = payload as EventPayload<'connection:state'>;
    options.emit(event, payload);
  };

  const keychain = () => new Keychain({
    ...(options.keychainBackend ? { backend: options.keychainBackend } : {}),
    ...(options.keychainService ? { service: options.keychainService } : {}),
    launchCommand: options.launchCommand,
  });
  const profiles = await ProfileStore.open({
    dir,
    // Replaced by the embedded service's own key once it runs; until then no service accepts it.
    demoKey: randomDemoKey(),
    keychain: keychain(),
    log,
  });
  let embedded: EmbeddedService | null = null;
  try {
    embedded = await startEmbeddedService(dir, options.startSimulator, (line) => log(`simulator: ${line}`));
    profiles.setDemoBaseUrl(embedded.endpoint.baseUrl, embedded.endpoint.apiKey);
  } catch (error) {
    // Other profiles still work; the demo profile reports that its service did not start.
    log(`Demo service failed to start: ${String(error)}`);
    emit('connection:state', { state: 'offline', detail: 'The demo service failed to start.' });
  }

  const distribution = await setupDistribution(options.distribution ?? {}, {
    dir, version: options.version, platform: options.platform, profiles, queue: () => queue, emit, log,
  });

  // The effective settings, computed once: every reader in main gets the policy's download folder.
  const policyState: PolicyState = options.distribution?.policy ?? { status: 'none', file: '', problems: [], policy: {} };
  const settings = policySettings(await SettingsStore.open(dir, { downloadDir: options.downloadsDir, theme: 'system', osmLayer: false }, log), policyState);
  // One database for the app; a broken one is set aside with a notice, never a crash.
  const database = await openDatabase({ dir, onWarning: log });
  const library = await LibraryCatalog.open({ dir, db: database.db, onWarning: log });
  const session: ServiceSession = new ServiceSession({
    profiles,
    specCacheDir: path.join(dir, 'spec-cache'),
    fetch: options.fetch,
    emit,
    log,
    onConcurrency: (n) => queue.setConcurrency(n),
  });
  const source = clientBinarySource((signal) => session.client(signal));
  const queue: DownloadQueue = await DownloadQueue.open({
    stateDir: dir, source, library, concurrency: 2, onWarning: log,
    runBatch: createBatchRunner(source, { parallelism: () => queue.concurrency, nameTaken: (name) => library.hasFileName(name) }),
  });
  queue.on('progress', (p) => emit('download:progress', p));
  queue.on('job', (job) => emit('job:state', publicJob(job)));
  queue.on('warning', log);
  library.on('added', (e) => emit('library:changed', { upserted: [e], removed: [] }));
  library.on('removed', (e) => emit('library:changed', { upserted: [], removed: [e.id] }));
  library.on('updated', (e) => emit('library:changed', { upserted: [e], removed: [] }));
  // The one spend guard every path that spends asks, bound by the admin policy's ceiling (EUR).
  const guard = new SpendGuard({
    store: await SpendStore.open(dir, { onWarning: log, ceilingEur: budgetCeilingEur(policyState) }),
    activeProfile: async () => (await profiles.getActive()).id,
    billing: async (signal) => (await session.client(signal)).billingSummary(signal, { retry: false }),
    confirm: options.confirm,
    policyProblem: budgetProblem(policyState),
  });
  const estimator = new Estimator();
  queue.on('job', (job) => guard.jobEnded(job));
  const team = await openTeamLibrary({
    policy: policyState.policy, db: database.db, keychain: keychain(), library, emit, log,
    downloadDir: () => settings.get().downloadDir,
  });
  queue.on('job', (job) => team.jobEnded(job));
  const notifier = await Notifier.open(dir, { emit, showNative: options.showNotification, onOpen: () => options.focus?.(), offByPolicy: policyState.policy.notifications === false });
  const watches = await openWatches({ dir, queue, library, session, profiles, settings, notifier, emit, guard, estimator, log, team: (request, signal) => team.forWatch(request, signal) });
  const overviews = new OverviewCache({ dir: path.join(dir, 'overviews'), catalog: library, remote: team.remoteRasters(), onProgress: (p) => emit('library:overview-progress', p), log });
  void overviews.prune().catch(() => undefined);
  const analysisWorkers = new AnalysisWorkers();
  const analysis = new AnalysisService({ library, workers: analysisWorkers, downloadDir: () => settings.get().downloadDir });

  // The probe carries the key, so it follows the same no-redirect rule as the client.
  const doFetch = refuseRedirects(options.fetch ?? fetch);
  const probe: KeyProbe = async ({ baseUrl, key, signal }) => {
    try {
      const res = await doFetch(`${baseUrl}/api/account/info`, { headers: { 'x-api-key': key, accept: 'application/json' }, signal });
      await res.arrayBuffer().catch(() => undefined);
      if (res.status === 401 || res.status === 403) return { status: 'auth', httpStatus: res.status };
      if (!res.ok) return { status: 'network', message: `The service answered HTTP ${res.status}.` };
      return { status: 'ok' };
    } catch (error) {
      if (error instanceof RedirectRefusedError) {
        return { status: 'network', message: `The service redirected the key test (HTTP ${error.status}); the key was not sent on. Set the base URL to the final address.` };
      }
      return { status: 'network', message: (error as Error).name === 'TimeoutError' ? 'The service did not answer in time.' : 'The service could not be reached.' };
    }
  };

  return {
    handlers: distribution.wrap({
      ...createAppHandlers({
        version: options.version, platform: options.platform, session, profiles, queue, library, settings, overviews, probe,
        revealFile: options.revealFile,
        chooseFiles: options.chooseFiles,
        confirm: options.confirm,
        chooseExportPath: options.chooseExportPath,
        analysis, guard, estimator, team,
      }),
      ...teamHandlers(team),
      ...spendHandlers(guard),
      ...distribution.handlers,
      ...watches.handlers(),
    }),
    diagnostics: () => distribution.diagnostics(),
    connection: () => connection,
    library,
    rasters: overviews.rasterLookup(),
    async close() {
      distribution.close();
      await watches.close();
      await team.close();
      await overviews.close();
      await analysisWorkers.close();
      await queue.close().catch((e: unknown) => log(`queue close: ${String(e)}`));
      await library.flush().catch(() => undefined);
      database.db.close();
      await session.close().catch(() => undefined);
      await embedded?.close();
    },
  };
}
