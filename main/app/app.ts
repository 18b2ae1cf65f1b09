import path from 'node:path';
import type { EventPayload } from '../../preload/contract';
import type { HttpFetch, RetryPolicy } from '../api';
import { DownloadQueue, createBatchRunner, downloadHandlers, publicJob } from '../downloads';
import type { Emit } from '../platform/emit';
import { SecretRegistry } from '../platform/secrets';
import { systemClock, type Clock } from '../platform/clock';
import { randomDemoKey, startEmbeddedService, type EmbeddedService, type StartSimulator } from './embedded-service';
import { joinSlices, sealedEmit, type HandlerTable } from '../ipc';
import { Keychain, ProfileStore, httpKeyProbe, profileHandlers, type KeychainBackend } from '../profiles';
import { AnalysisService, AnalysisWorkers, analysisHandlers } from '../analysis';
import { LibraryCatalog, LibraryQueryThread, libraryHandlers, type RasterFileLookup } from '../library';
import { openDatabase } from '../shared/database';
import { OverviewCache } from '../library/overview-cache';
import { aboutHandlers } from '../about';
import { openDiagnostics } from '../diagnostics/handlers';
import { openUpdates, type OpenUpdateService } from '../updates';
import type { SwathLog } from '../logging';
import { exportHandlers, type ExportTargetRequest } from '../exports/handlers';
import { ServiceSession, clientBinarySource, connectionHandlers } from '../connection';
import { imageryHandlers } from '../imagery';
import { taskingHandlers } from '../tasking';
import { accountHandlers } from '../account';
import { billingHandlers } from '../billing';
import type { HostConfirm } from '../platform/confirm';
import type { HostPrinter } from '../platform/printer';
import { briefHandlers } from '../brief';
import { SettingsStore, settingsHandlers } from '../settings';
import { Notifier, notificationHandlers, type ShowNativeNotification } from '../notifications';
import { budgetCeilingEur, budgetProblem, confirmSpendAboveEur, policyHandlers, policySettings, policyView, seedPolicyProfiles, type PolicyState } from '../policy';
import { Estimator, SpendGuard, SpendStore, profileAccounts, spendHandlers } from '../spend';
import { openWatches } from '../watches';
import { openTeamLibrary, teamHandlers } from '../team';
import { openFields } from '../fields';
import { FilmWriter, timelapseHandlers } from '../timelapse';

/**
 * The app without its window: the embedded demo service, profiles and keys,
 * the service session, the download queue, the library and settings, wired to
 * one handler table. The Electron host and the browser host both mount this,
 * so they serve the same contract with the same behaviour.
 */

export type { Emit } from '../platform/emit';

/** What a host adds for internal distribution; safe defaults (no policy, no log file, updates off) when absent. */
export interface DistributionOptions {
  policy?: PolicyState;
  log?: SwathLog | null;
  /** Creates the update service (with the app's clock); absent where the host cannot update itself (browser host, tests). */
  updates?: OpenUpdateService;
  /** out/main/licenses.json, written at build time. */
  licensesFile?: string;
  /** Electron, Chrome and Node versions of the host. */
  versions?: Record<string, string | undefined>;
  /** The system save dialog writing `text`; returns the path, or null when cancelled. Absent in the browser host. */
  saveText?: (defaultName: string, text: string) => Promise<string | null>;
}

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
  /** Overrides of the API client's retry policy (tests that take the service away wait less between attempts). */
  retry?: Partial<RetryPolicy>;
  /** Keychain backend; the real OS keychain by default. */
  keychainBackend?: KeychainBackend;
  /** The keychain service name (default "Swath"); tests give each app core its own. */
  keychainService?: string;
  /** The command that starts this Swath, named in keychain advice ("start it inside a D-Bus session"). */
  launchCommand?: string;
  revealFile?: (file: string) => boolean;
  /** The system "open files" dialog for GeoTIFFs; the browser host has none. */
  chooseFiles?: () => Promise<string[] | null>;
  /** The system "open file" dialog for a parcel file (GeoPackage, Shapefile, GeoJSON, FlatGeobuf); the browser host has none. */
  chooseParcelFile?: () => Promise<string | null>;
  /** Main's native question to the analyst (Electron's message box); the browser host has none, and refuses instead. */
  confirm?: HostConfirm;
  /** The host's printer for briefs (Electron: printToPDF in a hidden window); absent: briefs are refused. */
  printer?: HostPrinter;
  /** Where an export goes (Electron: the save dialog); absent: under the download folder. */
  chooseExportPath?: (request: ExportTargetRequest) => Promise<string | null>;
  log?: (message: string) => void;
  /**
   * This core's secret registry: every key it learns is added, every egress masks against it. The
   * Electron entry passes the one its log file redacts against; absent: a fresh one. Never shared
   * between two cores.
   */
  secrets?: SecretRegistry;
  /** The clock every feature reads the time from (the system clock by default; tests fix or advance it). */
  clock?: Clock;
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
  /** This core's secret registry: the host's dispatcher seals every answer against it. */
  secrets: SecretRegistry;
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
  // One secret registry for this core, handed to everything that learns a key or masks one.
  const secrets = options.secrets ?? new SecretRegistry();
  // One clock for every feature that reads the time.
  const clock = options.clock ?? systemClock;
  const now = (): number => clock.now();
  // Every log line and event leaves the core with the keys main holds masked.
  const log = (line: string): void => options.log?.(secrets.redactText(line));
  const dir = options.userDataDir;
  let connection: EventPayload<'connection:state'> = { state: 'connecting' };
  // Every event leaves the core sealed; the last connection state is kept for a window that connects later.
  const emit: Emit = sealedEmit((event, payload) => {
    if (event === 'connection:state') connection = payload as EventPayload<'connection:state'>;
    options.emit(event, payload);
  }, secrets, log);

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
    secrets,
    clock,
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

  // Every key Swath knows is masked in logs and reports: the profile store registers the demo key and
  // every key it reads or is given; the stored ones are read once here. Then the admin policy's
  // profiles are seeded and locked, and the store hides the demo profile if the policy says so.
  const distributionOptions = options.distribution ?? {};
  const policyState: PolicyState = distributionOptions.policy ?? { status: 'none', file: '', problems: [], policy: {} };
  await profiles.maskStoredKeys();
  const policy = policyView(policyState, await seedPolicyProfiles(profiles, policyState, log));
  const updates = await openUpdates(distributionOptions.updates, { version: options.version, emit, clock });

  // The effective settings, computed once: every reader in main gets the policy's download folder.
  const settings = policySettings(await SettingsStore.open(dir, { downloadDir: options.downloadsDir, theme: 'system', osmLayer: false }, log), policyState);
  // One database for the app; a broken one is set aside with a notice, never a crash.
  const database = await openDatabase({ dir, onWarning: log, now, checkpointInWorker: true });
  const library = await LibraryCatalog.open({ dir, db: database.db, onWarning: log, now });
  // The list's pages are read on a thread of their own: main's event loop never waits on them.
  const libraryQueries = new LibraryQueryThread({ file: database.file, fallback: (q) => library.query(q), version: () => library.changeVersion(), onWarning: log });
  void libraryQueries.warm();
  const session: ServiceSession = new ServiceSession({
    profiles,
    specCacheDir: path.join(dir, 'spec-cache'),
    fetch: options.fetch,
    secrets,
    clock,
    retry: options.retry,
    emit,
    log,
    onConcurrency: (n) => queue.setConcurrency(n),
  });
  const { confirm, revealFile } = options;
  const profileId = async (): Promise<string> => (await profiles.getActive()).id;
  const client = (signal: AbortSignal) => session.client(signal);
  // The one spend guard every path that spends asks, bound by the admin policy's ceiling (EUR). Made
  // before the queue: the queue's jobs, those brought back at start too, are cleared by it before they are sent.
  const guard = new SpendGuard({
    store: await SpendStore.open(dir, { db: database.db, onWarning: log, ceilingEur: budgetCeilingEur(policyState), now }),
    activeProfile: profileId,
    // Counted per account (service and key fingerprint): profiles holding one key share a month.
    account: profileAccounts(profiles),
    billing: async (signal) => (await session.client(signal)).billingSummary(signal, { retry: false }),
    confirm,
    policyProblem: budgetProblem(policyState),
    confirmAboveEur: confirmSpendAboveEur(policyState),
    changed: () => emit('spend:changed', {}),
    now,
  });
  // Each job is sent with the client of the profile it was cleared under, and only while it is the active one.
  const source = clientBinarySource(client, profileId);
  const team = await openTeamLibrary({
    policy: policyState.policy, db: database.db, keychain: keychain(), library, emit, log, secrets, clock,
    downloadDir: () => settings.get().downloadDir,
  });
  const queue: DownloadQueue = await DownloadQueue.open({
    stateDir: dir, db: database.db, source, library, concurrency: 2, onWarning: log, now, spend: guard,
    // A job's change is told to the window, then the spend guard (its ledger line) and the team library (its copy).
    onJob: { emit: (job) => emit('job:state', publicJob(job)), spend: (job) => guard.jobEnded(job), team: (job) => team.jobEnded(job) },
    runBatch: createBatchRunner(source, { parallelism: () => queue.concurrency, nameTaken: (name) => library.hasFileName(name) }),
  });
  queue.on('progress', (p) => emit('download:progress', p));
  queue.on('warning', log);
  library.on('added', (e) => emit('library:changed', { upserted: [e], removed: [] }));
  library.on('removed', (e) => emit('library:changed', { upserted: [], removed: [e.id] }));
  library.on('updated', (e) => emit('library:changed', { upserted: [e], removed: [] }));
  const estimator = new Estimator(now);
  const notifier = await Notifier.open(dir, { emit, showNative: options.showNotification, onOpen: () => options.focus?.(), offByPolicy: policyState.policy.notifications === false });
  const fields = openFields({ database, library, notifier, emit, log, now, downloadDir: () => settings.get().downloadDir, chooseParcelFile: options.chooseParcelFile });
  // A watch's change is told to the window, then to the fields monitor (its new dates' statistics).
  const watchEmit: Emit = (event, payload) => {
    emit(event, payload);
    if (event === 'watch:changed') fields.monitor.watchChanged(payload as EventPayload<'watch:changed'>);
  };
  const watches = await openWatches({ dir, db: database.db, queue, library, session, profiles, settings, notifier, emit: watchEmit, guard, estimator, log, now, team: (request, signal) => team.forWatch(request, signal) });
  const overviews = new OverviewCache({ dir: path.join(dir, 'overviews'), catalog: library, remote: team.remoteRasters(), onProgress: (p) => emit('library:overview-progress', p), log });
  void overviews.prune().catch(() => undefined);
  const analysisWorkers = new AnalysisWorkers();
  const films = new FilmWriter(() => settings.get().downloadDir);
  const analysis = new AnalysisService({ library, workers: analysisWorkers, downloadDir: () => settings.get().downloadDir });

  const diagnostics = openDiagnostics({
    dir, version: options.version, platform: options.platform, versions: distributionOptions.versions,
    profiles: async () => (await profiles.list()).profiles,
    jobs: () => queue.page({ limit: 500 }).jobs.reverse(),
    policy, updates: () => updates.state(), logFile: distributionOptions.log, log, saveText: distributionOptions.saveText, secrets, clock,
  });

  // Each feature serves its own channels; a channel two features claim stops the start.
  const handlers: HandlerTable = joinSlices(
    connectionHandlers({ version: options.version, platform: options.platform, session, guard }),
    accountHandlers(client),
    billingHandlers(client),
    imageryHandlers({ client, profileId, guard, estimator, library }),
    taskingHandlers({ client, profileId, guard, estimator }),
    profileHandlers({ profiles, probe: httpKeyProbe(options.fetch), onChange: () => session.invalidate(), confirm }),
    downloadHandlers({ client, profileId, queue, settings, guard, estimator, team, library, revealFile }),
    libraryHandlers({ library, queries: libraryQueries, overviews, chooseFiles: options.chooseFiles, revealFile, confirm }),
    exportHandlers({ library, settings, chooseExportPath: options.chooseExportPath, teamEntries: (signal) => team.stacEntries(signal), clock }),
    briefHandlers({ settings, printer: options.printer }),
    analysisHandlers(analysis),
    timelapseHandlers(films),
    settingsHandlers(settings),
    spendHandlers(guard),
    teamHandlers(team),
    watches.handlers(),
    fields.handlers,
    notificationHandlers({ notifier, log, now }),
    aboutHandlers({ version: options.version, platform: options.platform, versions: distributionOptions.versions, licensesFile: distributionOptions.licensesFile }),
    policyHandlers(policy),
    diagnostics.handlers,
    updates.handlers,
  );

  return {
    handlers,
    secrets,
    diagnostics: () => diagnostics.report(),
    connection: () => connection,
    library,
    rasters: overviews.rasterLookup(),
    async close() {
      updates.close();
      await watches.close();
      await fields.close();
      await team.close();
      await overviews.close();
      await analysisWorkers.close();
      await films.close();
      await libraryQueries.close();
      await queue.close().catch((e: unknown) => log(`queue close: ${String(e)}`));
      await library.flush().catch(() => undefined);
      await database.close();
      await session.close().catch(() => undefined);
      await embedded?.close();
    },
  };
}
