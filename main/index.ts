import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { Notification, app } from 'electron';
import nodeLog from 'electron-log/node';
import iconPath from '../build/icons/512x512.png?asset';
import trayIconPath from '../build/icons/32x32.png?asset';
import { LogRedactor, catchProcessErrors, configureLog } from './logging';
import { SecretRegistry } from './platform/secrets';
import { systemClock } from './platform/clock';
import { ignoredDevEnv, loadPolicy, policyPath, userDataOverride } from './policy';
import { diagnosticsFileName } from './diagnostics/report';
import { writeReport } from './diagnostics/handlers';
import { BUILD_PUBLISHER_NAMES, BUILD_UPDATE_URL, UpdateService } from './updates';
import { createApp } from './app/app';
import { electronNotifications } from './notifications/electron';
import { startElectronApp } from './hosts/electron-host';

/**
 * The Electron entry: where the built files are, the log file, and the app core made with what only
 * the entry wires (notifications, updates, the diagnostics report). The app's life is the Electron
 * host's (main/hosts/electron-host.ts).
 */

// Development and tests only: SWATH_USER_DATA_DIR gives a run its own state (and its own single-instance
// lock), SWATH_POLICY_FILE its own policy. An installed build ignores both (the policy is IT's, per OS).
const packaged = app.isPackaged;
const userDataDir = userDataOverride(process.env, { packaged });
if (userDataDir) app.setPath('userData', userDataDir);

// The app core's one secret registry, made here so the log file redacts against it from the first line;
// createApp adds every key the core learns, and the dispatcher, events, log and diagnostics mask them.
const secrets = new SecretRegistry();
// The clock the app core and the entry's own file names read.
const clock = systemClock;
// The rotating log file in the OS log folder (Linux/Windows: <userData>/logs, macOS: ~/Library/Logs/Swath).
const mainLog = configureLog(nodeLog, { dir: app.getPath('logs'), redactor: new LogRedactor(secrets), console: true });
catchProcessErrors(mainLog);
const log = (message: string): void => mainLog.info(message);
for (const name of ignoredDevEnv(process.env, { packaged })) log(`${name} is set but ignored: an installed build uses only its own folders and the machine policy.`);

/** A built file next to this one (out/main/index.js). */
const built = (file: string): string => fileURLToPath(new URL(file, import.meta.url));

startElectronApp({
  packaged,
  files: { preload: built('../preload/index.cjs'), renderer: built('../renderer/'), simulatorChild: built('./simulator-child.js'), icon: iconPath, trayIcon: trayIconPath },
  loadPolicy: () => loadPolicy(policyPath(process.platform, process.env, { packaged }), log),
  reportName: () => diagnosticsFileName(new Date(clock.now())),
  writeReport,
  log,
  logError: (message, error) => mainLog.error(message, error),
  createCore: (parts, { policy, saveText }) => createApp({
    ...parts,
    userDataDir: app.getPath('userData'),
    downloadsDir: join(app.getPath('downloads'), 'Swath'),
    version: app.getVersion(),
    platform: process.platform,
    // Native OS notifications; a click brings the window forward and opens the target.
    showNotification: electronNotifications(Notification),
    log,
    secrets,
    clock,
    distribution: {
      policy,
      log: mainLog,
      licensesFile: built('./licenses.json'),
      versions: { electron: process.versions.electron, chrome: process.versions.chrome, node: process.versions.node },
      saveText,
      // electron-updater is loaded only when updates are on (a packaged build with a feed URL).
      updates: async (onState, clock) => UpdateService.open({
        updater: async () => (await import('electron-updater')).default.autoUpdater,
        stateDir: join(app.getPath('userData'), 'updates'),
        currentVersion: app.getVersion(),
        inputs: { buildUrl: BUILD_UPDATE_URL, policy, packaged },
        publisherNames: BUILD_PUBLISHER_NAMES,
        onState,
        log,
        clock,
      }),
    },
  }),
});
