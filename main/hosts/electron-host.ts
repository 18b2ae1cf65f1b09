import { join } from 'node:path';
import { BrowserWindow, Menu, app, clipboard, dialog, ipcMain, nativeTheme, protocol, session, shell, utilityProcess, type Session, type WebContents, type WebPreferences } from 'electron';
import { RASTER_SCHEME, serveLibraryFile, type RasterFileLookup } from '../library/raster-protocol';
import type { EventName, EventPayload } from '../../preload/contract';
import { createDispatcher, createSenderPolicy, emit, handle, type Dispatcher } from '../ipc';
import type { HostConfirm } from '../platform/confirm';
import { basemapOrigins, type PolicyState } from '../policy';
import { APP_RENDERER_URL, APP_SCHEME, serveRendererFile } from './app-protocol';
import { createElectronFetch } from './electron-fetch';
import { buildMenuTemplate, type MenuOptions } from './menu';
import { buildContentSecurityPolicy, isAllowedExternalUrl, withContentSecurityPolicy } from './security';
import { simulatorInChild } from './simulator-process';
import { createTray } from './tray';
import type { AppOptions, SwathApp } from '../app/app';
import type { StartSimulator } from '../app/embedded-service';
import { electronPrinter } from './electron-printer';
import type { FromSimulatorChild } from '../../simulator/child-protocol';

/**
 * The Electron host: the app's life from the single-instance lock to the quit (windows, tray, menu,
 * session hardening, the IPC transport, the protocols), and Electron's parts of the app core
 * (dialogs, shell, network stack, the demo service's process). It mounts the same dispatcher the
 * browser host serves over a WebSocket. main/index.ts, the entry, gives it where the built files
 * are and makes the app core with what only the entry wires (log file, updates, notifications).
 */

// Links the renderer may open in the system browser; empty until the app links to documentation.
const EXTERNAL_LINK_HOSTS: readonly string[] = [];
// Quitting must never hang on a stuck simulator.
const SHUTDOWN_TIMEOUT_MS = 3_000;

/** Electron's parts of the app core's options (see {@link ElectronAppOptions.createCore}). */
export type ElectronCoreParts = Required<Pick<AppOptions, 'startSimulator' | 'emit' | 'launchCommand' | 'fetch' | 'revealFile' | 'chooseFiles' | 'confirm' | 'focus' | 'chooseExportPath' | 'printer'>>;

/** What the entry gives {@link startElectronApp}. */
export interface ElectronAppOptions {
  packaged: boolean;
  /** The built files, resolved by the entry next to itself. */
  files: { preload: string; renderer: string; simulatorChild: string; icon: string; trayIcon: string };
  /** Reads the admin policy (read-only, machine-wide; a broken file is reported and ignored), once the app runs. */
  loadPolicy(): Promise<PolicyState>;
  /**
   * Makes the app core once the app is ready (userData is final by then), from Electron's parts, the
   * policy, and the save dialog for text reports (the path written, or null when cancelled).
   */
  createCore(parts: ElectronCoreParts, context: { policy: PolicyState; saveText: (defaultName: string, text: string) => Promise<string | null> }): Promise<SwathApp>;
  /** The diagnostics report's file name now. */
  reportName(): string;
  /** Writes a report the analyst chose to save; returns the path written. */
  writeReport(file: string, text: string): Promise<string>;
  log(message: string): void;
  logError(message: string, error: unknown): void;
}

/**
 * Starts the app: an installed build never runs open to a debugger (checked before the app is ready,
 * so it exits before opening a window or reading a key); every renderer is sandboxed; the schemes are
 * declared; a second instance hands over to the first and quits.
 */
export function startElectronApp(options: ElectronAppOptions): void {
  const debuggers = options.packaged ? debuggerSwitches(app.commandLine, process.argv, process.platform) : [];
  // Every renderer is sandboxed, including any a future feature forgets to configure.
  app.enableSandbox();
  // Custom schemes (app:// for the renderer, swath-raster:// for rasters) must be declared before the app is ready.
  registerSchemes();
  if (debuggers.length) refuseDebugger(debuggers, options.log);
  else if (!app.requestSingleInstanceLock()) app.quit();
  else runElectronApp(options);
}

/** The app's life once it holds the lock: the core, the window, the tray, and a quit that waits for the core to close. */
function runElectronApp(options: ElectronAppOptions): void {
  const { packaged, files, log } = options;
  const isDev = !packaged;
  const devServerUrl = (isDev && process.env.ELECTRON_RENDERER_URL) || undefined;
  const rendererUrl = devServerUrl ?? APP_RENDERER_URL;
  let mainWindow: BrowserWindow | null = null;

  const policy = options.loadPolicy();
  const contentSecurityPolicy = policy.then((p) => buildContentSecurityPolicy(basemapOrigins(p)));
  const saveReport = async (defaultName: string, text: string): Promise<string | null> => {
    const result = await dialog.showSaveDialog({ title: 'Save diagnostics', defaultPath: join(app.getPath('documents'), defaultName), filters: [{ name: 'Text', extensions: ['txt'] }] });
    return result.canceled || !result.filePath ? null : options.writeReport(result.filePath, text);
  };

  // Created once the app is ready (userData is final by then); handlers wait for the embedded service.
  const core = app.whenReady().then(async () => options.createCore(electronCoreParts(() => mainWindow, files.simulatorChild), { policy: await policy, saveText: saveReport }));

  app.on('second-instance', () => focusWindow(mainWindow));
  app.on('web-contents-created', (_event, contents) => {
    hardenWebContents(contents, { externalHosts: EXTERNAL_LINK_HOSTS, log });
  });

  let tray: ReturnType<typeof createTray> | null = null;
  const openWindow = (): void => {
    mainWindow = createMainWindow({ preloadPath: files.preload, rendererUrl: devServerUrl, externalHosts: EXTERNAL_LINK_HOSTS, icon: files.icon, log });
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
          copyDiagnostics: () => void c.diagnostics().then((text) => clipboard.writeText(text), (e: unknown) => options.logError('Copy diagnostics failed', e)),
          saveDiagnostics: () => void c.diagnostics().then((text) => saveReport(options.reportName(), text)).catch((e: unknown) => options.logError('Save diagnostics failed', e)),
        },
      });
      // Mounted before the window exists, so the renderer's first call always finds its handler.
      mountDispatcher(createDispatcher(c.handlers, { isAllowedSender: createSenderPolicy(rendererUrl), secrets: c.secrets }));
      mountAppProtocol(files.renderer, await contentSecurityPolicy);
      mountRasterProtocol(c.rasters);
      openWindow();
      app.on('activate', () => {
        if (BrowserWindow.getAllWindows().length === 0) openWindow();
      });
      // Kept in a variable that lives as long as the app, or the tray icon is garbage-collected.
      tray = createTray(files.trayIcon, {
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
    (error: unknown) => options.logError('Startup failed', error),
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

/** Electron's parts of the app core: its dialogs, shell, windows, network stack and the demo service's utility process. */
export function electronCoreParts(window: () => BrowserWindow | null, simulatorChild: string): ElectronCoreParts {
  return {
    // The demo service runs in a utility process, never on main's thread.
    startSimulator: utilityProcessSimulator(simulatorChild),
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
    confirm: nativeConfirm(window),
    focus: () => focusWindow(window()),
    // Briefs: printToPDF in hidden, script-less windows.
    printer: electronPrinter(),
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
  };
}

/** Where the window loads its preload and renderer from. */
export interface WindowOptions {
  /** Absolute path of the built, sandboxed preload (CommonJS). */
  preloadPath: string;
  /** Dev server URL; when set, it is loaded instead of the built renderer at app://swath/. */
  rendererUrl?: string;
  /** Hosts whose http(s) links may open in the system browser. */
  externalHosts: readonly string[];
  /** The window icon (Linux and Windows; macOS uses the bundle's). */
  icon?: string;
  log?: (message: string) => void;
}

/** The webPreferences of every Swath window; Electron's security checklist, not negotiable. */
export function secureWebPreferences(preloadPath: string): WebPreferences {
  return {
    preload: preloadPath,
    sandbox: true,
    contextIsolation: true,
    nodeIntegration: false,
    nodeIntegrationInWorker: false,
    nodeIntegrationInSubFrames: false,
    webSecurity: true,
    allowRunningInsecureContent: false,
    webviewTag: false,
    spellcheck: false,
  };
}

/** Creates the main window with secure preferences, hardened contents, and loads the renderer. */
export function createMainWindow(options: WindowOptions): BrowserWindow {
  const window = new BrowserWindow({
    title: 'Swath',
    width: 1280,
    height: 800,
    minWidth: 900,
    minHeight: 560,
    // Hidden until the first paint, and painted in the theme colour, so there is no white flash.
    show: false,
    backgroundColor: nativeTheme.shouldUseDarkColors ? '#16181d' : '#f6f7f9',
    ...(options.icon ? { icon: options.icon } : {}),
    webPreferences: secureWebPreferences(options.preloadPath),
  });
  hardenWebContents(window.webContents, { externalHosts: options.externalHosts, log: options.log });
  window.once('ready-to-show', () => window.show());

  // The built renderer comes from its own origin (see mountAppProtocol), never from file://.
  const load = window.loadURL(options.rendererUrl ?? APP_RENDERER_URL);
  load.catch((error: unknown) => options.log?.(`Failed to load the renderer: ${String(error)}`));
  return window;
}

const hardened = new WeakSet<WebContents>();

/** Options of {@link hardenWebContents}. */
export interface ContentsPolicy {
  externalHosts: readonly string[];
  log?: (message: string) => void;
}

/** Denies navigation, new windows and webviews; allow-listed http(s) links go to the system browser. */
export function hardenWebContents(contents: WebContents, policy: ContentsPolicy): void {
  // Both the window factory and the app-wide web-contents-created hook call this.
  if (hardened.has(contents)) return;
  hardened.add(contents);
  contents.on('will-navigate', (event) => {
    // The app is a single document; any navigation is either a bug or an attack.
    event.preventDefault();
  });
  contents.on('will-attach-webview', (event) => {
    event.preventDefault();
  });
  contents.setWindowOpenHandler(({ url }) => {
    if (isAllowedExternalUrl(url, policy.externalHosts)) {
      shell.openExternal(url).catch((error: unknown) => policy.log?.(`Could not open ${url}: ${String(error)}`));
    } else {
      policy.log?.(`Blocked window.open to ${url}`);
    }
    return { action: 'deny' };
  });
}

/** Installs the CSP header (the default one, or the admin policy's) and denies every permission request and check for the session. */
export function hardenSession(ses: Session, contentSecurityPolicy?: string): void {
  ses.webRequest.onHeadersReceived((details, callback) => {
    callback({ responseHeaders: withContentSecurityPolicy(details.responseHeaders, contentSecurityPolicy) });
  });
  ses.setPermissionRequestHandler((_contents, _permission, callback) => callback(false));
  ses.setPermissionCheckHandler(() => false);
  ses.setDevicePermissionHandler(() => false);
}

/** Installs the application menu. */
export function installMenu(options: MenuOptions): void {
  Menu.setApplicationMenu(Menu.buildFromTemplate(buildMenuTemplate(options)));
}

/** Serves the dispatcher's channels over ipcMain; returns the function that unmounts them. */
export function mountDispatcher(dispatcher: Dispatcher): () => void {
  return handle(ipcMain, dispatcher);
}

/** Sends a contract event to every open window. */
export function broadcast<E extends EventName>(event: E, payload: EventPayload<E>): void {
  for (const window of BrowserWindow.getAllWindows()) {
    if (!window.isDestroyed()) emit(window.webContents, event, payload);
  }
}

/**
 * Main's own question to the analyst: a native message box, modal to the window when there is one.
 * Cancel is the default and the answer to Escape, so only a deliberate click agrees.
 */
export function nativeConfirm(window: () => BrowserWindow | null): HostConfirm {
  return async ({ title, message, detail, confirmLabel }) => {
    const options = { type: 'warning' as const, title, message, detail, buttons: ['Cancel', confirmLabel], defaultId: 0, cancelId: 0, noLink: true };
    const parent = window();
    const { response } = parent && !parent.isDestroyed() ? await dialog.showMessageBox(parent, options) : await dialog.showMessageBox(options);
    return response === 1;
  };
}

/**
 * Command-line switches that open the app to a debugger (Chromium's DevTools protocol, Node's
 * inspector): whoever attaches reads the API key in main's memory and drives the window past every
 * check. An installed build does not start with one (see {@link refuseDebugger}).
 */
export const DEBUGGER_SWITCHES = [
  'remote-debugging-port', 'remote-debugging-pipe', 'remote-debugging-address', 'remote-allow-origins',
  'inspect', 'inspect-brk', 'inspect-port', 'inspect-brk-node', 'inspect-publish-uid',
] as const;

/**
 * The {@link DEBUGGER_SWITCHES} on this command line: as Chromium parsed it, and as given in `argv`
 * (`--name`, `-name`, `--name=value`; on Windows also `/name` and any case), up to a `--`.
 */
export function debuggerSwitches(commandLine: { hasSwitch(name: string): boolean }, argv: readonly string[], platform: string): string[] {
  const found = new Set<string>(DEBUGGER_SWITCHES.filter((name) => commandLine.hasSwitch(name)));
  const prefix = platform === 'win32' ? /^(?:--?|\/)([^=]+)(?:=|$)/ : /^--?([^=]+)(?:=|$)/;
  for (const arg of argv) {
    if (arg === '--') break;
    const name = prefix.exec(arg)?.[1];
    const known = name && DEBUGGER_SWITCHES.find((s) => (platform === 'win32' ? s === name.toLowerCase() : s === name));
    if (known) found.add(known);
  }
  return [...found];
}

/** An installed build started with a debugger switch: drops them, says why (log and an error box) and exits. */
export function refuseDebugger(found: readonly string[], log: (message: string) => void): void {
  for (const name of found) app.commandLine.removeSwitch(name);
  const message = `Swath does not start with ${found.map((s) => `--${s}`).join(', ')}: an installed build cannot be opened to a debugger, which could read your API key and spend from your account. Start Swath without it.`;
  log(message);
  dialog.showErrorBox('Swath cannot start', message);
  app.exit(1);
}

/** Brings an existing window to the front (used when a second instance starts). */
export function focusWindow(window: BrowserWindow | null): void {
  if (!window || window.isDestroyed()) return;
  if (window.isMinimized()) window.restore();
  window.show();
  window.focus();
}

/**
 * Declares Swath's schemes before the app is ready (one call: a second one would replace the first):
 * app:// for the renderer (a standard, secure origin of its own, whose scripts V8 keeps compiled in
 * the session's code cache, so a later start does not compile the bundle again before the map
 * draws) and swath-raster:// for library rasters (fetch and streaming).
 */
export function registerSchemes(): void {
  protocol.registerSchemesAsPrivileged([
    { scheme: APP_SCHEME, privileges: { standard: true, secure: true, supportFetchAPI: true, stream: true, codeCache: true } },
    { scheme: RASTER_SCHEME, privileges: { standard: true, secure: true, supportFetchAPI: true, stream: true, corsEnabled: true } },
  ]);
}

/** Serves the built renderer folder on app://swath/; nothing outside it, no traversal (see app-protocol.ts). */
export function mountAppProtocol(rendererDir: string, contentSecurityPolicy?: string): void {
  protocol.handle(APP_SCHEME, async (request) => {
    const answer = await serveRendererFile(rendererDir, request.url, request.method, contentSecurityPolicy);
    return new Response(answer.body, { status: answer.status, headers: answer.headers });
  });
}

/** Serves library rasters by id on swath-raster://, with Range support; nothing else is reachable through it. */
export function mountRasterProtocol(library: RasterFileLookup): void {
  protocol.handle(RASTER_SCHEME, async (request) => {
    const answer = await serveLibraryFile(library, request.url, { range: request.headers.get('range') }, { method: request.method, signal: request.signal });
    // The renderer is app://swath (or the dev server in development); the scheme serves only
    // library ids, so any origin of ours may read, and see the file size in Content-Range.
    return new Response(answer.body, {
      status: answer.status,
      headers: { ...answer.headers, 'Access-Control-Allow-Origin': '*', 'Access-Control-Expose-Headers': 'Content-Range, Content-Length, Accept-Ranges' },
    });
  });
}

/**
 * The embedded demo service in an Electron utility process (`entry`: out/main/simulator-child.js): a
 * Chromium-managed child, off main's thread, that exits with the app. Its key and URL travel
 * over the process's message port only.
 */
export function utilityProcessSimulator(entry: string): StartSimulator {
  return simulatorInChild(() => {
    const child = utilityProcess.fork(entry, [], { serviceName: 'Swath demo service', stdio: 'inherit' });
    return {
      send: (message) => child.postMessage(message),
      onMessage: (listener) => void child.on('message', (message: unknown) => listener(message as FromSimulatorChild)),
      onExit: (listener) => void child.on('exit', (code: number) => listener(code)),
      kill: () => void child.kill(),
    };
  });
}
