import { EventEmitter } from 'node:events';
import { join } from 'node:path';
import { vi } from 'vitest';
import { makeTempDir } from '../../support/temp-dirs';

/**
 * A stand-in for the `electron` module: the real one tries to download the
 * Electron binary on import. It records what the code under test configures.
 */

type WindowOpenHandler = (details: { url: string }) => { action: 'allow' | 'deny' };

/** Fake WebContents: an EventEmitter that remembers its window-open handler and sent events. */
export class FakeWebContents extends EventEmitter {
  windowOpenHandler: WindowOpenHandler | null = null;
  destroyed = false;
  send = vi.fn();
  setWindowOpenHandler(handler: WindowOpenHandler): void {
    this.windowOpenHandler = handler;
  }
  isDestroyed(): boolean {
    return this.destroyed;
  }
}

/** Fake BrowserWindow that records its constructor options and every instance. */
export class FakeBrowserWindow extends EventEmitter {
  static instances: FakeBrowserWindow[] = [];
  static getAllWindows(): FakeBrowserWindow[] {
    return FakeBrowserWindow.instances.filter((w) => !w.destroyed);
  }
  readonly webContents = new FakeWebContents();
  destroyed = false;
  loadURL = vi.fn(async (_url: string) => undefined);
  loadFile = vi.fn(async (_file: string) => undefined);
  show = vi.fn();
  focus = vi.fn();
  restore = vi.fn();
  isMinimized = vi.fn(() => false);
  constructor(readonly options: Record<string, unknown>) {
    super();
    FakeBrowserWindow.instances.push(this);
  }
  isDestroyed(): boolean {
    return this.destroyed;
  }
}

/** Fake Session recording the hardening calls. */
export const fakeSession = {
  webRequest: { onHeadersReceived: vi.fn() },
  setPermissionRequestHandler: vi.fn(),
  setPermissionCheckHandler: vi.fn(),
  setDevicePermissionHandler: vi.fn(),
};

class FakeApp extends EventEmitter {
  isPackaged = false;
  name = 'Swath';
  readyResolve: () => void = () => undefined;
  /** Whether ready was emitted (`readyResolve` called) since the last reset. */
  wasReady = false;
  ready: Promise<void> = this.makeReady();
  requestSingleInstanceLock = vi.fn(() => true);
  /** Chromium's command line: the switches a test started the app with. */
  readonly switches = new Set<string>();
  commandLine = {
    hasSwitch: vi.fn((name: string) => this.switches.has(name)),
    removeSwitch: vi.fn((name: string) => void this.switches.delete(name)),
  };
  exit = vi.fn();
  enableSandbox = vi.fn();
  setPath = vi.fn();
  /** A fresh folder per reset, so booted app cores never share state files; made when first asked for. */
  private dir: string | null = null;
  get dataDir(): string {
    // Removed by the test file's afterAll (removeTempDirs, test/support/temp-dirs.ts).
    this.dir ??= makeTempDir('swath-fake-electron-');
    return this.dir;
  }
  getPath = vi.fn((name: string) => join(this.dataDir, name));
  getVersion = vi.fn(() => '0.1.0');
  quit = vi.fn(() => {
    // Electron emits will-quit from quit(); listeners may prevent it.
    this.emitWillQuit();
  });
  /** Emits will-quit as Electron does; true when a listener held the quit (preventDefault). */
  emitWillQuit(): boolean {
    const event = { defaultPrevented: false, preventDefault() { this.defaultPrevented = true; } };
    this.emit('will-quit', event);
    return event.defaultPrevented;
  }
  whenReady = vi.fn(() => this.ready);
  private makeReady(): Promise<void> {
    return new Promise<void>((resolve) => {
      this.readyResolve = () => {
        this.wasReady = true;
        resolve();
      };
    });
  }
  reset(): void {
    this.removeAllListeners();
    this.ready = this.makeReady();
    this.wasReady = false;
    this.isPackaged = false;
    this.switches.clear();
    this.dir = null;
  }
}

/** A fake system tray icon that records its menu and click listeners. */
export class FakeTray extends EventEmitter {
  static instances: FakeTray[] = [];
  tooltip = '';
  menu: unknown = null;
  constructor(readonly image: unknown) {
    super();
    FakeTray.instances.push(this);
  }
  setToolTip(text: string): void {
    this.tooltip = text;
  }
  setContextMenu(menu: unknown): void {
    this.menu = menu;
  }
  destroy = vi.fn();
}

/** A native notification: records what was shown; `click()` emulates the analyst clicking it. */
class FakeNotification {
  static readonly shown: FakeNotification[] = [];
  static isSupported(): boolean {
    return true;
  }
  private listener: (() => void) | null = null;
  constructor(readonly options: { title: string; body: string }) {}
  on(_event: 'click', listener: () => void): this {
    this.listener = listener;
    return this;
  }
  show(): void {
    FakeNotification.shown.push(this);
  }
  click(): void {
    this.listener?.();
  }
}

/** The fake `app`; call `fakeApp.readyResolve()` to emulate the ready event. */
export const fakeApp = new FakeApp();

/** The fake module, as returned by `vi.mock('electron', ...)`. */
/**
 * Fake Electron utility process: answers the demo service's child protocol in memory (ready at
 * http://127.0.0.1:40001 on `start`, exit 0 on `close`) and records what main sent it.
 */
export class FakeUtilityProcess extends EventEmitter {
  static instances: FakeUtilityProcess[] = [];
  readonly messages: unknown[] = [];
  kill = vi.fn(() => {
    this.emit('exit', null);
    return true;
  });
  constructor(readonly modulePath: string, readonly args: string[], readonly options: Record<string, unknown>) {
    super();
    FakeUtilityProcess.instances.push(this);
  }
  postMessage(message: { type: string }): void {
    this.messages.push(message);
    setImmediate(() => {
      if (message.type === 'start') this.emit('message', { type: 'ready', url: 'http://127.0.0.1:40001', port: 40001 });
      if (message.type === 'close') {
        this.emit('message', { type: 'closed' });
        this.emit('exit', 0);
      }
    });
  }
}

export const fakeElectron = {
  app: fakeApp,
  BrowserWindow: FakeBrowserWindow,
  session: { defaultSession: fakeSession },
  ipcMain: { handle: vi.fn(), removeHandler: vi.fn(), on: vi.fn(), removeListener: vi.fn() },
  ipcRenderer: { invoke: vi.fn(), on: vi.fn(), removeListener: vi.fn() },
  contextBridge: { exposeInMainWorld: vi.fn() },
  shell: { openExternal: vi.fn(async (_url: string) => undefined), showItemInFolder: vi.fn() },
  protocol: { registerSchemesAsPrivileged: vi.fn(), handle: vi.fn() },
  dialog: {
    showOpenDialog: vi.fn(async () => ({ canceled: true, filePaths: [] as string[] })),
    // The analyst cancels unless a test says otherwise.
    showMessageBox: vi.fn(async () => ({ response: 0, checkboxChecked: false })),
    showSaveDialog: vi.fn(async (_options: { defaultPath?: string }) => ({ canceled: true, filePath: '' })),
    showErrorBox: vi.fn(),
  },
  clipboard: { writeText: vi.fn() },
  net: { fetch: vi.fn(async () => { throw new Error('no network in the fake Electron'); }) },
  Menu: { setApplicationMenu: vi.fn(), buildFromTemplate: vi.fn((template: unknown) => ({ template })) },
  nativeTheme: { shouldUseDarkColors: false },
  Tray: FakeTray,
  Notification: FakeNotification,
  utilityProcess: { fork: vi.fn((modulePath: string, args: string[] = [], options: Record<string, unknown> = {}) => new FakeUtilityProcess(modulePath, args, options)) },
  nativeImage: { createFromPath: vi.fn((path: string) => ({ path, resize: (size: { width: number; height: number }) => ({ path, size }) })) },
  /** Resets this very instance (tests that reset modules must reach it through `import('electron')`). */
  __reset: (): void => resetFakeElectron(),
};

/** Clears recorded calls and instances between tests. */
export function resetFakeElectron(): void {
  vi.clearAllMocks();
  FakeBrowserWindow.instances = [];
  FakeTray.instances = [];
  FakeUtilityProcess.instances = [];
  fakeApp.reset();
}
