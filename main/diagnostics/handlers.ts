import os from 'node:os';
import { CONTRACT_VERSION } from '../../preload/contract';
import { AppError } from '../../common/errors.js';
import type { HandlerTable } from '../ipc';
import type { SwathLog } from '../logging';
import { LogRedactor } from '../logging/redact';
import { writeFileAtomic } from '../shared/files.js';
import type { Clock } from '../platform/clock';
import type { SecretRegistry } from '../platform/secrets';
import type { PolicyView } from '../policy';
import { RateLimit, oneLine } from '../shared/untrusted-text';
import type { UpdateStatus } from '../updates';
import { buildDiagnostics, DIAGNOSTICS_LOG_LINES, diagnosticsFileName, type DiagnosticsInput } from './report';

/**
 * The diagnostics channels (the report, shown or saved) and the renderer's error reports, which go
 * to the log the report's tail is read from. The report is redacted against the app's secret registry.
 */

/** The channels of diagnostics. */
export type DiagnosticsChannel = 'diagnostics:get' | 'diagnostics:save' | 'app:report-error';

/** Renderer error reports logged per minute; more are counted and dropped. */
export const ERROR_REPORTS_PER_MINUTE = 10;
/** What of a renderer error report reaches the log (characters, after escaping): about 4 KB in all. */
export const REPORT_MESSAGE_MAX = 1_000;
export const REPORT_STACK_MAX = 2_800;
export const REPORT_INFO_MAX = 200;

/** What diagnostics reads from. */
export interface DiagnosticsDeps {
  dir: string;
  version: string;
  platform: string;
  /** Electron, Chrome and Node versions of the host. */
  versions?: Record<string, string | undefined>;
  /** The profiles a window sees (a hidden demo profile is not among them). */
  profiles: () => Promise<DiagnosticsInput['profiles']>;
  /** The download queue's latest jobs, oldest first. */
  jobs: () => DiagnosticsInput['jobs'];
  policy: PolicyView;
  updates: () => UpdateStatus | null;
  /** The log file, when the host keeps one. */
  logFile?: SwathLog | null;
  log: (line: string) => void;
  /** The system save dialog writing `text`; returns the path, or null when cancelled. Absent in the browser host. */
  saveText?: (defaultName: string, text: string) => Promise<string | null>;
  secrets: SecretRegistry;
  clock: Clock;
}

/** Diagnostics: its slice of the channel table and the report itself (the Help menu's). */
export function openDiagnostics(deps: DiagnosticsDeps): { handlers: Pick<HandlerTable, DiagnosticsChannel>; report(includeProfileNames?: boolean): Promise<string> } {
  const { log, clock } = deps;
  const redactor = new LogRedactor(deps.secrets);
  const errorReports = new RateLimit(ERROR_REPORTS_PER_MINUTE, 60_000, () => clock.now());

  /** The diagnostics report (redacted; no absolute path: the home folder as ~, others masked; profile names only when asked for). */
  const report = async (includeProfileNames = false): Promise<string> => buildDiagnostics({
    version: deps.version, contractVersion: CONTRACT_VERSION, platform: deps.platform, arch: process.arch, osRelease: os.release(),
    versions: deps.versions ?? { node: process.versions.node },
    profiles: await deps.profiles(),
    jobs: deps.jobs(),
    userDataDir: deps.dir,
    logFile: deps.logFile?.file ?? null,
    logTail: deps.logFile?.tail(DIAGNOSTICS_LOG_LINES) ?? [],
    policy: deps.policy,
    updates: deps.updates(),
    homeDir: os.homedir(),
    includeProfileNames,
  }, redactor, new Date(clock.now()));

  return {
    report,
    handlers: {
      'diagnostics:get': async ({ includeProfileNames }) => ({ text: await report(includeProfileNames ?? false) }),
      'diagnostics:save': async ({ includeProfileNames }) => {
        if (!deps.saveText) {
          throw new AppError('validation', 'This window has no save dialog; use “Copy diagnostics” and paste the report into a file.');
        }
        const saved = await deps.saveText(diagnosticsFileName(new Date(clock.now())), await report(includeProfileNames ?? false));
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
    },
  };
}

/** Writes a report where the user chose (used by hosts with a save dialog), for the user to read and send (0o644). */
export async function writeReport(file: string, text: string): Promise<string> {
  await writeFileAtomic(file, text, { mode: 0o644 });
  return file;
}
