import { fileURLToPath, pathToFileURL } from 'node:url';
import { BrowserWindow, app, session } from 'electron';
import type { ConnectionState } from '../preload/contract';
import { createDispatcher, createHandlers, createSenderPolicy, type ServiceEndpoint } from './ipc';
import { startEmbeddedService, type EmbeddedService } from './hosts/embedded-service';
import {
  broadcast,
  createMainWindow,
  focusWindow,
  hardenSession,
  hardenWebContents,
  installMenu,
  mountDispatcher,
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
  let connection: { state: ConnectionState; detail?: string } = { state: 'connecting' };

  const setConnection = (state: ConnectionState, detail?: string): void => {
    if (connection.state === state && connection.detail === detail) return;
    connection = detail === undefined ? { state } : { state, detail };
    broadcast('connection:state', connection);
  };

  // Started once, on ready; handlers await it, so early renderer calls simply wait for the port.
  const embedded: Promise<EmbeddedService> = app.whenReady().then(() =>
    startEmbeddedService(app.getPath('userData'), startSimulator, (line) => log(`simulator: ${line}`)),
  );
  const service = (): Promise<ServiceEndpoint> => embedded.then((s) => s.endpoint);
  embedded.then(
    () => setConnection('online'),
    (error: unknown) => {
      log(`Demo service failed to start: ${String(error)}`);
      setConnection('offline', 'The demo service failed to start.');
    },
  );

  const dispatcher = createDispatcher(
    createHandlers({ version: app.getVersion(), platform: process.platform, service, onConnectionState: setConnection }),
    { isAllowedSender: createSenderPolicy(rendererUrl) },
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

  app.whenReady().then(
    () => {
      hardenSession(session.defaultSession);
      installMenu({ appName: app.name, isMac: process.platform === 'darwin', isDev });
      mountDispatcher(dispatcher);
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
    const close = embedded.then((s) => s.close()).catch((error: unknown) => log(`Demo service shutdown: ${String(error)}`));
    const timeout = new Promise<void>((resolve) => setTimeout(resolve, SHUTDOWN_TIMEOUT_MS).unref());
    void Promise.race([close, timeout]).then(() => {
      shutdown = 'done';
      app.quit();
    });
  });
}
