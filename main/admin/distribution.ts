import { readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { CONTRACT_VERSION } from '../../preload/contract';
import { buildDiagnostics, DIAGNOSTICS_LOG_LINES, diagnosticsFileName } from '../diagnostics/report';
import type { DownloadQueue } from '../downloads';
import { AppError } from '../../common/errors.js';
import type { HandlerTable } from '../ipc';
import { DEMO_PROFILE_ID, type ProfileStore } from '../profiles';
import { LogRedactor, type SwathLog } from '../logging';
import { RateLimit, oneLine } from '../shared/untrusted-text';
import { enforcePolicy, policyView, seedPolicyProfiles, type PolicyState } from '../policy';
import type { UpdateService, UpdateStatus } from '../updates';
import type { Emit } from '../platform/emit';
import type { Clock } from '../platform/clock';
import type { SecretRegistry } from '../platform/secrets';

/**
 * What internal distribution adds to the app core: the admin policy (seeded and
 * locked profiles, the hidden demo service, its view and problems; the effective
 * settings and the budget ceiling are applied in app.ts), the secret registry every log line
 * and report is redacted against, About, diagnostics, renderer error reports
 * and the updater's channels. Hosts pass what they have; the rest has safe
 * defaults (no policy, no log file, updates off).
 */

/** What a host gives to {@link setupDistribution}. */
export interface DistributionOptions {
  policy?: PolicyState;
  log?: SwathLog | null;
  /** Creates the update service (with the app's clock); absent where the host cannot update itself (browser host, tests). */
  updates?: (onState: (status: UpdateStatus) => void, clock: Clock) => Promise<UpdateService>;
  /** out/main/licenses.json, written at build time. */
  licensesFile?: string;
  /** Electron, Chrome and Node versions of the host. */
  versions?: Record<string, string | undefined>;
  /** The system save dialog writing `text`; returns the path, or null when cancelled. Absent in the browser host. */
  saveText?: (defaultName: string, text: string) => Promise<string | null>;
}

/** The channels this module serves. */
export type DistributionChannel = 'app:about' | 'policy:get' | 'diagnostics:get' | 'diagnostics:save' | 'app:report-error' | 'updates:status' | 'updates:check' | 'updates:install' | 'updates:set-channel';

/** What the core needs from this module. */
export interface Distribution {
  handlers: Pick<HandlerTable, DistributionChannel>;
  /** Applies the policy and the secret registry to the complete handler table. */
  wrap(handlers: HandlerTable): HandlerTable;
  /** The diagnostics report (redacted; no absolute path: the home folder as ~, others masked; profile names only when asked for). */
  diagnostics(includeProfileNames?: boolean): Promise<string>;
  close(): void;
}

/** The core pieces distribution reads from. */
export interface DistributionCore {
  dir: string;
  version: string;
  platform: string;
  profiles: ProfileStore;
  queue: () => DownloadQueue;
  emit: Emit;
  log: (line: string) => void;
  /** The app's secret registry (the host's log redacts against the same one). */
  secrets: SecretRegistry;
  /** The app's clock (diagnostics, the error reports' rate limit, updates). */
  clock: Clock;
}

const OFF: Omit<UpdateStatus, 'currentVersion'> = {
  state: 'off', message: 'Updates are handled outside this window (development host).', version: null, releaseNotes: null, percent: null,
  url: null, channel: 'stable', channelFixed: false, checkedAt: null,
};

/** Renderer error reports logged per minute; more are counted and dropped. */
export const ERROR_REPORTS_PER_MINUTE = 10;
/** What of a renderer error report reaches the log (characters, after escaping): about 4 KB in all. */
export const REPORT_MESSAGE_MAX = 1_000;
export const REPORT_STACK_MAX = 2_800;
export const REPORT_INFO_MAX = 200;

/** Seeds the policy's profiles, fills the secret registry and builds the distribution channels. */
export async function setupDistribution(options: DistributionOptions, core: DistributionCore): Promise<Distribution> {
  const policy: PolicyState = options.policy ?? { status: 'none', file: '', problems: [], policy: {} };
  const { profiles, log, secrets } = core;
  const redactor = new LogRedactor(secrets);

  // Every key Swath knows is redacted from logs and reports: the profile store registers the demo
  // key and every key it reads; stored profile keys are read once here so a log line can't carry one.
  const listing = await profiles.list();
  for (const p of listing.profiles) {
    if (p.keySet && p.id !== DEMO_PROFILE_ID) secrets.add(await profiles.getKey(p.id).catch(() => null));
  }
  const locked = await seedPolicyProfiles(profiles, policy, log);
  const errorReports = new RateLimit(ERROR_REPORTS_PER_MINUTE, 60_000, () => core.clock.now());
  const view = policyView(policy, locked);

  const updates = options.updates ? await options.updates((s) => core.emit('updates:state', s), core.clock) : null;
  updates?.start();
  const updateState = (): UpdateStatus => updates?.state() ?? { ...OFF, currentVersion: core.version };
  const requireUpdates = (): UpdateService => {
    if (!updates) throw new AppError('validation', OFF.message);
    return updates;
  };

  const diagnostics = async (includeProfileNames = false): Promise<string> => {
    const all = await profiles.list();
    return buildDiagnostics({
      version: core.version, contractVersion: CONTRACT_VERSION, platform: core.platform, arch: process.arch, osRelease: os.release(),
      versions: options.versions ?? { node: process.versions.node },
      profiles: all.profiles.filter((p) => !(view.hideDemoService && p.id === DEMO_PROFILE_ID)),
      jobs: core.queue().page({ limit: 500 }).jobs.reverse(),
      userDataDir: core.dir,
      logFile: options.log?.file ?? null,
      logTail: options.log?.tail(DIAGNOSTICS_LOG_LINES) ?? [],
      policy: view,
      updates: updates?.state() ?? null,
      homeDir: os.homedir(),
      includeProfileNames,
    }, redactor, new Date(core.clock.now()));
  };

  const handlers: Distribution['handlers'] = {
    'app:about': async () => {
      const licensesFile = options.licensesFile ?? path.resolve('out/main/licenses.json');
      let licenses: { name: string; version: string; license: string }[] = [];
      let licensesNote: string | null = null;
      try {
        licenses = JSON.parse(await readFile(licensesFile, 'utf8')) as typeof licenses;
      } catch {
        licensesNote = `The licence list is generated at build time (${path.basename(licensesFile)}); this run has none.`;
      }
      const versions = options.versions ?? {};
      return {
        version: core.version, contractVersion: CONTRACT_VERSION, platform: core.platform, arch: process.arch,
        electron: versions.electron ?? null, chrome: versions.chrome ?? null, node: versions.node ?? process.versions.node,
        licenses, licensesNote,
      };
    },
    'policy:get': () => view,
    'diagnostics:get': async ({ includeProfileNames }) => ({ text: await diagnostics(includeProfileNames ?? false) }),
    'diagnostics:save': async ({ includeProfileNames }) => {
      if (!options.saveText) {
        throw new AppError('validation', 'This window has no save dialog; use “Copy diagnostics” and paste the report into a file.');
      }
      const saved = await options.saveText(diagnosticsFileName(new Date(core.clock.now())), await diagnostics(includeProfileNames ?? false));
      return { saved: saved !== null, path: saved };
    },
    'app:report-error': ({ source, message, stack, info }) => {
      // The page's text: a few lines at most a minute, each one log line (escaped) of bounded size,
      // so a page can neither forge log lines nor push the real ones out of the diagnostics tail.
      if (!errorReports.take()) return { logged: false };
      const dropped = errorReports.takeRefused();
      if (dropped) log(`renderer error reports: ${dropped} more were not logged (at most ${ERROR_REPORTS_PER_MINUTE} a minute).`);
      const where = info ? `, ${oneLine(info, REPORT_INFO_MAX)}` : '';
      log(`renderer error (${source}${where}): ${oneLine(message, REPORT_MESSAGE_MAX)}${stack ? ` | stack: ${oneLine(stack, REPORT_STACK_MAX)}` : ''}`);
      return { logged: true };
    },
    'updates:status': () => updateState(),
    'updates:check': () => requireUpdates().check(),
    'updates:install': () => requireUpdates().install(),
    'updates:set-channel': ({ channel }) => requireUpdates().setChannel(channel),
  };

  return {
    handlers,
    wrap(table) {
      const enforced = enforcePolicy(table, policy);
      return {
        ...enforced,
        // A key the user enters is known to the redaction from that moment on.
        'profiles:create': (request, context) => {
          secrets.add(request.key);
          return enforced['profiles:create'](request, context);
        },
        'profiles:set-key': (request, context) => {
          secrets.add(request.key);
          return enforced['profiles:set-key'](request, context);
        },
      };
    },
    diagnostics,
    close: () => updates?.stop(),
  };
}

/** Writes a report where the user chose (used by hosts with a save dialog). */
export async function writeReport(file: string, text: string): Promise<string> {
  await writeFile(file, text, 'utf8');
  return file;
}
