import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { BrowserWindow, Notification, app, clipboard, dialog, session, shell } from 'electron';
import nodeLog from 'electron-log/node';
import iconPath from '../build/icons/512x512.png?asset';
import trayIconPath from '../build/icons/32x32.png?asset';
import { createTray } from './hosts/tray';
import { createElectronFetch } from './hosts/electron-fetch';
import { buildContentSecurityPolicy } from './hosts/security';
import { LogRedactor, catchProcessErrors, configureLog } from './logging';
import { SecretRegistry } from './platform/secrets';
import { systemClock } from './platform/clock';
import { basemapOrigins, ignoredDevEnv, loadPolicy, policyPath, userDataOverride } from './policy';
import { diagnosticsFileName } from './diagnostics/report';
import { writeReport } from './diagnostics/handlers';
import { BUILD_PUBLISHER_NAMES, BUILD_UPDATE_URL, UpdateService } from './updates';
import { createDispatcher, createSenderPolicy } from './ipc';
import { createApp } from './app/app';
import { electronNotifications } from './notifications/electron';
import {
  broadcast,
  createMainWindow,
  focusWindow,
  hardenSession,
  hardenWebContents,
  installMenu,
  mountDispatcher,
  mountAppProtocol,
  mountRasterProtocol,
  nativeConfirm,
  debuggerSwitches,
  refuseDebugger,
  registerSchemes,
  utilityProcessSimulator,
} from './hosts/electron-host';
import { APP_RENDERER_URL } from './hosts/app-protocol';

// Links the renderer may open in the system browser; empty until the app links to documentation.
const EXTERNAL_LINK_HOSTS: readonly string[] = [];
// Quitting must never hang on a stuck simulator.
const SHUTDOWN_TIMEOUT_MS = 3_000;

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

// An installed build never runs open to a debugger (--remote-debugging-port, --inspect…): checked first,
// before the app is ready, so it exits before opening a window or reading a key.
const debuggers = packaged ? debuggerSwitches(app.commandLine, process.argv, process.platform) : [];

// Every renderer is sandboxed, including any a future feature forgets to configure.
app.enableSandbox();
// Custom schemes (app:// for the renderer, swath-raster:// for rasters) must be declared before the app is ready.
registerSchemes();

if (debuggers.length) {
  refuseDebugger(debuggers, log);
} else if (!app.requestSingleInstanceLock()) {
  app.quit();
} else {
  run();
}

function run(): void {
  const isDev = !packaged;
  const devServerUrl = (isDev && process.env.ELECTRON_RENDERER_URL) || undefined;
  const preloadPath = fileURLToPath(new URL('../preload/index.cjs', import.meta.url));
  const rendererDir = fileURLToPath(new URL('../renderer/', import.meta.url));
  const rendererUrl = devServerUrl ?? APP_RENDERER_URL;

  let mainWindow: BrowserWindow | null = null;

  // The admin policy (read-only, machine-wide); a broken file is reported and ignored, never fatal.
  const policy = loadPolicy(policyPath(process.platform, process.env, { packaged }), log);
  const contentSecurityPolicy = policy.then((p) => buildContentSecurityPolicy(basemapOrigins(p)));

  // Created once the app is ready (userData is final by then); handlers wait for the embedded service.
  const core = app.whenReady().then(async () =>
    createApp({
      userDataDir: app.getPath('userData'),
      downloadsDir: join(app.getPath('downloads'), 'Swath'),
      version: app.getVersion(),
      platform: process.platform,
      // The demo service runs in a utility process, never on main's thread.
      startSimulator: utilityProcessSimulator(fileURLToPath(new URL('./simulator-child.js', import.meta.url))),
      emit: broadcast,
      // Named in keychain advice: the installed executable, or a checkout's `npm start`.
      launchCommand: app.isPackaged ? JSON.stringify(process.env.APPIMAGE ?? process.execPath) : 'npm start',
      // Electron's network stack: the system proxy settings and the OS certificate store.
      fetch: createElectronFetch(),
      revealFile: (file) => {
        shell.showItemInFolder(file);
        return true;
      },
      chooseFiles: async () => {
        const result = await dialog.showOpenDialog({
          title: 'Import GeoTIFF',
          properties: ['openFile', 'multiSelections'],
          filters: [{ name: 'GeoTIFF', extensions: ['tif', 'tiff'] }],
        });
        return result.canceled ? null : result.filePaths;
      },
      confirm: nativeConfirm(() => mainWindow),
      // Native OS notifications; a click brings the window forward and opens the target.
      showNotification: electronNotifications(Notification),
      focus: () => focusWindow(mainWindow),
      chooseExportPath: async ({ kind, title, defaultPath, extensions }) => {
        // A save dialog for both: a folder export names the new catalog folder.
        const result = await dialog.showSaveDialog({
          title,
          defaultPath,
          buttonLabel: 'Export',
          properties: ['createDirectory', 'showOverwriteConfirmation'],
          filters: kind === 'file' && extensions ? [{ name: 'GeoJSON', extensions }] : [],
        });
        return result.canceled || !result.filePath ? null : result.filePath;
      },
      log,
      secrets,
      clock,
      distribution: {
        policy: await policy,
        log: mainLog,
        licensesFile: fileURLToPath(new URL('./licenses.json', import.meta.url)),
        versions: { electron: process.versions.electron, chrome: process.versions.chrome, node: process.versions.node },
        saveText: (defaultName, text) => saveReport(defaultName, text),
        // electron-updater is loaded only when updates are on (a packaged build with a feed URL).
        updates: async (onState, clock) => {
          const p = await policy;
          return UpdateService.open({
            updater: async () => (await import('electron-updater')).default.autoUpdater,
            stateDir: join(app.getPath('userData'), 'updates'),
            currentVersion: app.getVersion(),
            inputs: { buildUrl: BUILD_UPDATE_URL, policy: p, packaged },
            publisherNames: BUILD_PUBLISHER_NAMES,
            onState,
            log,
            clock,
          });
        },
      },
    }),
  );

  const saveReport = async (defaultName: string, text: string): Promise<string | null> => {
    const result = await dialog.showSaveDialog({ title: 'Save diagnostics', defaultPath: join(app.getPath('documents'), defaultName), filters: [{ name: 'Text', extensions: ['txt'] }] });
    return result.canceled || !result.filePath ? null : writeReport(result.filePath, text);
  };

  app.on('second-instance', () => focusWindow(mainWindow));

  app.on('web-contents-created', (_event, contents) => {
    hardenWebContents(contents, { externalHosts: EXTERNAL_LINK_HOSTS, log });
  });

  let tray: ReturnType<typeof createTray> | null = null;
  const openWindow = (): void => {
    mainWindow = createMainWindow({ preloadPath, rendererUrl: devServerUrl, externalHosts: EXTERNAL_LINK_HOSTS, icon: iconPath, log });
    mainWindow.on('closed', () => {
      mainWindow = null;
    });
  };

  core.then(
    async (c) => {
      hardenSession(session.defaultSession, await contentSecurityPolicy);
      installMenu({
        appName: app.name, isMac: process.platform === 'darwin', isDev,
        help: {
          about: () => broadcast('app:command', { command: 'about' }),
          copyDiagnostics: () => void c.diagnostics().then((text) => clipboard.writeText(text), (e: unknown) => mainLog.error('Copy diagnostics failed', e)),
          saveDiagnostics: () => void c.diagnostics().then((text) => saveReport(diagnosticsFileName(new Date(clock.now())), text)).catch((e: unknown) => mainLog.error('Save diagnostics failed', e)),
        },
      });
      // Mounted before the window exists, so the renderer's first call always finds its handler.
      mountDispatcher(createDispatcher(c.handlers, { isAllowedSender: createSenderPolicy(rendererUrl), secrets: c.secrets }));
      mountAppProtocol(rendererDir, await contentSecurityPolicy);
      mountRasterProtocol(c.rasters);
      openWindow();
      app.on('activate', () => {
        if (BrowserWindow.getAllWindows().length === 0) openWindow();
      });
      // Kept in a variable that lives as long as the app, or the tray icon is garbage-collected.
      tray = createTray(trayIconPath, {
        show: () => {
          if (!mainWindow) openWindow();
          else focusWindow(mainWindow);
        },
        downloads: () => {
          if (!mainWindow) openWindow();
          mainWindow?.focus();
          broadcast('app:command', { command: 'downloads' });
        },
        quit: () => app.quit(),
      });
    },
    (error: unknown) => mainLog.error('Startup failed', error),
  );

  app.on('window-all-closed', () => {
    if (process.platform !== 'darwin') app.quit();
  });

  let shutdown: 'running' | 'closing' | 'done' = 'running';
  app.on('will-quit', (event) => {
    tray?.destroy();
    tray = null;
    if (shutdown === 'done') return;
    // Hold the quit until the simulator has flushed its state and released its port.
    event.preventDefault();
    if (shutdown === 'closing') return;
    shutdown = 'closing';
    const close = core.then((c) => c.close()).catch((error: unknown) => log(`Demo service shutdown: ${String(error)}`));
    const timeout = new Promise<void>((resolve) => setTimeout(resolve, SHUTDOWN_TIMEOUT_MS).unref());
    void Promise.race([close, timeout]).then(() => {
      shutdown = 'done';
      app.quit();
    });
  });
}
