import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { channelNames } from '../../../preload/contract';
import type { FakeUtilityProcess } from './fake-electron';
import { removeTempDirs } from '../../support/temp-dirs';
import { bootMain as boot, ipcListener as listenerFor, mainReady as ready, quitMains, type FakeElectron as Electron } from './boot-main';

/**
 * Boots main/index.ts against a fake Electron and a fake simulator to check
 * the lifecycle wiring: single instance, hardening, IPC, shutdown.
 */

vi.mock('electron', async () => (await import('./fake-electron')).fakeElectron);

// The demo service runs in a utility process; the fake one answers its protocol in memory.
const demoProcess = (electron: Electron): FakeUtilityProcess => {
  const [child] = electron.utilityProcess.fork.mock.results.map((r) => r.value as FakeUtilityProcess);
  if (!child) throw new Error('no utility process was forked');
  return child;
};

const rendererFileUrl = 'app://swath/index.html';

async function appInfoFrom(electron: Electron, url: string): Promise<unknown> {
  return listenerFor(electron, 'app:info')({ sender: {}, senderFrame: { url } }, {});
}

beforeEach(() => {
  vi.resetModules();
  delete process.env.ELECTRON_RENDERER_URL;
  delete process.env.SWATH_USER_DATA_DIR;
});

afterEach(() => {
  delete process.env.ELECTRON_RENDERER_URL;
});

afterAll(async () => {
  await quitMains();
  removeTempDirs();
});

describe('main/index.ts', () => {
  it('quits at once when another instance holds the lock', async () => {
    const electron = await boot((e) => e.app.requestSingleInstanceLock.mockReturnValueOnce(false));
    await ready(electron);
    expect(electron.app.quit).toHaveBeenCalled();
    expect(electron.BrowserWindow.instances).toHaveLength(0);
    expect(electron.ipcMain.handle).not.toHaveBeenCalled();
  });

  it('enables the sandbox, hardens the session, mounts IPC and opens a secure window on ready', async () => {
    const electron = await boot();
    expect(electron.app.enableSandbox).toHaveBeenCalled();
    expect(electron.BrowserWindow.instances).toHaveLength(0);
    await ready(electron);

    expect(electron.session.defaultSession.setPermissionRequestHandler).toHaveBeenCalled();
    expect(electron.session.defaultSession.webRequest.onHeadersReceived).toHaveBeenCalled();
    expect(electron.Menu.setApplicationMenu).toHaveBeenCalled();
    expect(electron.ipcMain.handle.mock.calls.map((c) => c[0]).sort()).toEqual([...channelNames].sort());

    const [window] = electron.BrowserWindow.instances;
    const prefs = window!.options.webPreferences as Record<string, unknown>;
    expect(prefs).toMatchObject({ sandbox: true, contextIsolation: true, nodeIntegration: false, webSecurity: true });
    expect(String(prefs.preload)).toMatch(/[/\\]preload[/\\]index\.cjs$/);
    expect(window!.loadURL).toHaveBeenCalledWith('app://swath/index.html');
    expect(window!.loadFile).not.toHaveBeenCalled();
    // The system tray shows Swath's own icon (the 32 px rendering), not Electron's.
    expect(electron.Tray.instances.at(-1)?.image).toMatchObject({ path: expect.stringMatching(/32x32\.png/) });
    // The renderer folder is served on app://, never file://.
    expect(electron.protocol.handle.mock.calls.map((c) => c[0])).toEqual(expect.arrayContaining(['app', 'swath-raster']));
    expect(await appInfoFrom(electron, 'file:///index.html')).toMatchObject({ ok: false, error: { kind: 'auth' } });
  });

  it('loads the dev server URL in development', async () => {
    process.env.ELECTRON_RENDERER_URL = 'http://localhost:5173';
    const electron = await boot();
    await ready(electron);
    expect(electron.BrowserWindow.instances[0]!.loadURL).toHaveBeenCalledWith('http://localhost:5173');
  });

  it('ignores ELECTRON_RENDERER_URL in a packaged app', async () => {
    process.env.ELECTRON_RENDERER_URL = 'http://attacker.example:5173';
    const electron = await boot((e) => { e.app.isPackaged = true; });
    await ready(electron);
    const [window] = electron.BrowserWindow.instances;
    expect(window!.loadURL).toHaveBeenCalledExactlyOnceWith('app://swath/index.html');
    expect(window!.loadFile).not.toHaveBeenCalled();
    const appInfo = listenerFor(electron, 'app:info');
    expect(await appInfo({ sender: {}, senderFrame: { url: 'http://attacker.example:5173/' } }, {})).toMatchObject({ ok: false, error: { kind: 'auth' } });
  });

  it('uses SWATH_USER_DATA_DIR as userData before taking the single-instance lock', async () => {
    process.env.SWATH_USER_DATA_DIR = '/tmp/swath-profile-b';
    const electron = await boot();
    expect(electron.app.setPath).toHaveBeenCalledWith('userData', '/tmp/swath-profile-b');
    expect(electron.app.setPath.mock.invocationCallOrder[0]!).toBeLessThan(
      electron.app.requestSingleInstanceLock.mock.invocationCallOrder[0]!,
    );
    delete process.env.SWATH_USER_DATA_DIR;
  });

  it('starts the embedded simulator and answers app:info without the key; refuses foreign senders', async () => {
    const electron = await boot();
    await ready(electron);
    // Off main's thread: a utility process running the bundled child entry, told its options (and key) over its port only.
    const child = demoProcess(electron);
    expect(child.modulePath).toMatch(/simulator-child\.js$/);
    expect(child.options).toMatchObject({ serviceName: 'Swath demo service' });
    expect(child.args).toEqual([]);
    expect(child.messages[0]).toMatchObject({
      type: 'start',
      options: { port: 0, host: '127.0.0.1', statePath: expect.stringMatching(/demo-state\.json$/), cacheDir: expect.stringMatching(/sim-cache$/), apiKeys: expect.any(Object) },
    });
    const [key] = Object.keys((child.messages[0] as { options: { apiKeys: Record<string, string> } }).options.apiKeys);
    expect(JSON.stringify(child.options)).not.toContain(key);

    const appInfo = listenerFor(electron, 'app:info');
    const result = await appInfo({ sender: {}, senderFrame: { url: rendererFileUrl } }, {});
    expect(result).toEqual({
      ok: true,
      data: {
        version: '0.1.0',
        platform: process.platform,
        service: { label: 'Demo service (offline)', baseUrl: 'http://127.0.0.1:40001', demo: true },
        contractVersion: '1.0.0',
      },
    });
    expect(JSON.stringify(result)).not.toContain('demo-key');
    expect(JSON.stringify(result)).not.toContain(key);

    const foreign = await appInfo({ sender: {}, senderFrame: { url: 'https://evil.example.com/' } }, {});
    expect(foreign).toMatchObject({ ok: false, error: { kind: 'auth' } });
  });

  it('focuses the existing window when a second instance starts', async () => {
    const electron = await boot();
    await ready(electron);
    const [window] = electron.BrowserWindow.instances;
    electron.app.emit('second-instance');
    expect(window!.focus).toHaveBeenCalled();
  });

  it('holds the quit until the simulator is closed, then quits for real', async () => {
    const electron = await boot();
    await ready(electron);
    electron.app.quit.mockImplementation(() => undefined);
    // Held (the event's default prevented) until the core has closed.
    expect(electron.app.emitWillQuit()).toBe(true);
    // The queue and library are flushed first, then the simulator closes, then the app quits.
    await vi.waitFor(() => expect(electron.app.quit).toHaveBeenCalledOnce(), { timeout: 5_000, interval: 10 });
    const closes = (): unknown[] => demoProcess(electron).messages.filter((m) => (m as { type: string }).type === 'close');
    expect(closes()).toHaveLength(1);

    expect(electron.app.emitWillQuit()).toBe(false);
    expect(closes()).toHaveLength(1);
  });

  it('imports through the system file dialog, filtered to GeoTIFF', async () => {
    const electron = await boot();
    await ready(electron);
    const importDialog = listenerFor(electron, 'library:import-dialog');
    const result = await importDialog({ sender: {}, senderFrame: { url: rendererFileUrl } }, {});
    expect(result).toEqual({ ok: true, data: { entries: [], cancelled: true } });
    expect(electron.dialog.showOpenDialog).toHaveBeenCalledWith(expect.objectContaining({
      properties: ['openFile', 'multiSelections'], filters: [{ name: 'GeoTIFF', extensions: ['tif', 'tiff'] }],
    }));
  });

  it("copies the diagnostics report from the Help menu, or saves it where the save dialog says (in Documents, under the report's name)", async () => {
    const electron = await boot();
    await ready(electron);
    type Item = { role?: string; label?: string; click?: () => void; submenu?: Item[] };
    // The application menu's (the tray builds a menu of its own).
    const menus = electron.Menu.buildFromTemplate.mock.calls.map((c) => c[0] as Item[]);
    const help = menus.flat().find((m) => m.role === 'help')!;
    const item = (label: string) => help.submenu!.find((i) => i.label === label)!;

    item('Copy diagnostics').click!();
    await vi.waitFor(() => expect(electron.clipboard.writeText).toHaveBeenCalledOnce(), { timeout: 5_000, interval: 10 });
    const copied = electron.clipboard.writeText.mock.calls[0]![0] as string;
    expect(copied).toContain('Swath');

    const file = path.join(electron.app.getPath('documents'), 'chosen.txt');
    mkdirSync(path.dirname(file), { recursive: true });
    electron.dialog.showSaveDialog.mockResolvedValueOnce({ canceled: false, filePath: file });
    item('Save diagnostics…').click!();
    await vi.waitFor(() => expect(existsSync(file)).toBe(true), { timeout: 5_000, interval: 10 });
    const asked = electron.dialog.showSaveDialog.mock.calls[0]![0];
    expect(path.dirname(asked.defaultPath!)).toBe(electron.app.getPath('documents'));
    expect(path.basename(asked.defaultPath!)).toMatch(/diagnostics.*\.txt$/i);
    await vi.waitFor(() => expect(readFileSync(file, 'utf8')).toContain('Swath'), { timeout: 5_000, interval: 10 });
  });

  it('quits when the last window closes (except on macOS)', async () => {
    const electron = await boot();
    await ready(electron);
    electron.app.quit.mockImplementation(() => undefined);
    electron.app.emit('window-all-closed');
    if (process.platform === 'darwin') expect(electron.app.quit).not.toHaveBeenCalled();
    else expect(electron.app.quit).toHaveBeenCalledOnce();
  });
});
