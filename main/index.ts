import { fileURLToPath, pathToFileURL } from 'node:url';
import { join } from 'node:path';
import { BrowserWindow, app, dialog, session, shell } from 'electron';
import { createElectronFetch } from './hosts/electron-fetch';
import { createDispatcher, createSenderPolicy } from './ipc';
import { createApp } from './services/app';
import {
  broadcast,
  createMainWindow,
  focusWindow,
  hardenSession,
  hardenWebContents,
  installMenu,
  mountDispatcher,
  mountRasterProtocol,
  registerRasterScheme,
} from './hosts/electron-host';
import { startSimulator } from './simulator';

// Links the renderer may open in the system browser; empty until the app links to documentation.
const EXTERNAL_LINK_HOSTS: readonly string[] = [];
// Quitting must never hang on a stuck simulator.
const SHUTDOWN_TIMEOUT_MS = 3_000;

const log = (message: string): void => console.log(`[swath] ${message}`);

// Lets tests and side-by-side profiles run with their own state (and their own single-instance lock).
if (process.env.SWATH_USER_DATA_DIR) app.setPath('userData', process.env.SWATH_USER_DATA_DIR);

// Every renderer is sandboxed, including any a future feature forgets to configure.
app.enableSandbox();
// Custom schemes must be declared before the app is ready.
registerRasterScheme();

if (!app.requestSingleInstanceLock()) {
  app.quit();
} else {
  run();
}

function run(): void {
  const isDev = !app.isPackaged;
  const devServerUrl = (isDev && process.env.ELECTRON_RENDERER_URL) || undefined;
  const preloadPath = fileURLToPath(new URL('../preload/index.cjs', import.meta.url));
  const rendererFile = fileURLToPath(new URL('../renderer/index.html', import.meta.url));
  const rendererUrl = devServerUrl ?? pathToFileURL(rendererFile).href;

  let mainWindow: BrowserWindow | null = null;

  // Created once the app is ready (userData is final by then); handlers wait for the embedded service.
  const core = app.whenReady().then(() =>
    createApp({
      userDataDir: app.getPath('userData'),
      downloadsDir: join(app.getPath('downloads'), 'Swath'),
      version: app.getVersion(),
      platform: process.platform,
      startSimulator,
      emit: broadcast,
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
    }),
  );

  app.on('second-instance', () => focusWindow(mainWindow));

  app.on('web-contents-created', (_event, contents) => {
    hardenWebContents(contents, { externalHosts: EXTERNAL_LINK_HOSTS, log });
  });

  const openWindow = (): void => {
    mainWindow = createMainWindow({ preloadPath, rendererUrl: devServerUrl, rendererFile, externalHosts: EXTERNAL_LINK_HOSTS, log });
    mainWindow.on('closed', () => {
      mainWindow = null;
    });
  };

  core.then(
    (c) => {
      hardenSession(session.defaultSession);
      installMenu({ appName: app.name, isMac: process.platform === 'darwin', isDev });
      // Mounted before the window exists, so the renderer's first call always finds its handler.
      mountDispatcher(createDispatcher(c.handlers, { isAllowedSender: createSenderPolicy(rendererUrl) }));
      mountRasterProtocol(c.rasters);
      openWindow();
      app.on('activate', () => {
        if (BrowserWindow.getAllWindows().length === 0) openWindow();
      });
    },
    (error: unknown) => log(`Startup failed: ${String(error)}`),
  );

  app.on('window-all-closed', () => {
    if (process.platform !== 'darwin') app.quit();
  });

  let shutdown: 'running' | 'closing' | 'done' = 'running';
  app.on('will-quit', (event) => {
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
