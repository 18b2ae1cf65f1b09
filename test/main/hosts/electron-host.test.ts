import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { FakeBrowserWindow, fakeElectron, fakeSession, resetFakeElectron, type FakeWebContents } from './fake-electron';
import { removeTempDirs } from '../../support/temp-dirs';

vi.mock('electron', async () => (await import('./fake-electron')).fakeElectron);

const { createMainWindow, hardenSession, hardenWebContents, mountDispatcher, broadcast, focusWindow, registerSchemes, mountAppProtocol, mountRasterProtocol, nativeConfirm } = await import(
  '../../../main/hosts/electron-host'
);
const { CONTENT_SECURITY_POLICY } = await import('../../../main/hosts/security');

const windowOptions = {
  preloadPath: '/app/out/preload/index.cjs',
  externalHosts: ['docs.example.org'],
};

function openWindow(extra: Partial<typeof windowOptions> & { rendererUrl?: string } = {}): FakeBrowserWindow {
  createMainWindow({ ...windowOptions, ...extra });
  const window = FakeBrowserWindow.instances.at(-1);
  if (!window) throw new Error('no window was created');
  return window;
}

function navigate(contents: FakeWebContents, url: string): boolean {
  let prevented = false;
  contents.emit('will-navigate', { url, preventDefault: () => (prevented = true) });
  return prevented;
}

beforeEach(() => resetFakeElectron());
afterAll(removeTempDirs);

describe('createMainWindow', () => {
  it('uses the secure webPreferences and the sandboxed CJS preload', () => {
    const prefs = openWindow().options.webPreferences as Record<string, unknown>;
    expect(prefs).toMatchObject({
      sandbox: true,
      contextIsolation: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
      preload: '/app/out/preload/index.cjs',
    });
  });

  it('loads the built renderer from app://swath/ (never file://), or the dev server URL when given', () => {
    const built = openWindow();
    expect(built.loadURL).toHaveBeenCalledWith('app://swath/index.html');
    expect(built.loadFile).not.toHaveBeenCalled();

    const dev = openWindow({ rendererUrl: 'http://localhost:5173' });
    expect(dev.loadURL).toHaveBeenCalledWith('http://localhost:5173');
    expect(dev.loadFile).not.toHaveBeenCalled();
  });

  it('stays hidden until the first paint', () => {
    const window = openWindow();
    expect(window.options.show).toBe(false);
    expect(window.show).not.toHaveBeenCalled();
    window.emit('ready-to-show');
    expect(window.show).toHaveBeenCalledOnce();
  });

  it('denies every navigation, including to the app origin', () => {
    const { webContents } = openWindow();
    expect(navigate(webContents, 'https://evil.example.com/')).toBe(true);
    expect(navigate(webContents, 'file:///app/out/renderer/index.html')).toBe(true);
  });

  it('denies webview attachment', () => {
    const { webContents } = openWindow();
    let prevented = false;
    webContents.emit('will-attach-webview', { preventDefault: () => (prevented = true) }, {}, {});
    expect(prevented).toBe(true);
  });

  it('denies window.open and only opens allow-listed http(s) links externally', () => {
    const { webContents } = openWindow();
    const handler = webContents.windowOpenHandler;
    expect(handler).not.toBeNull();

    expect(handler!({ url: 'https://docs.example.org/guide' })).toEqual({ action: 'deny' });
    expect(fakeElectron.shell.openExternal).toHaveBeenCalledExactlyOnceWith('https://docs.example.org/guide');

    for (const url of ['https://evil.example.com/', 'file:///etc/passwd', 'javascript:alert(1)', 'https://docs.example.org.evil.com/']) {
      expect(handler!({ url })).toEqual({ action: 'deny' });
    }
    expect(fakeElectron.shell.openExternal).toHaveBeenCalledOnce();
  });

  it('hardens a WebContents only once even when asked twice', () => {
    const { webContents } = openWindow();
    hardenWebContents(webContents as never, { externalHosts: [] });
    expect(webContents.listenerCount('will-navigate')).toBe(1);
  });
});

describe('hardenSession', () => {
  beforeEach(() => hardenSession(fakeSession as never));

  it('sets the CSP header on every response, replacing one the server sent', () => {
    const listener = fakeSession.webRequest.onHeadersReceived.mock.calls[0]![0] as (
      details: { responseHeaders?: Record<string, string[]> },
      callback: (response: { responseHeaders: Record<string, string[]> }) => void,
    ) => void;
    const callback = vi.fn();
    listener({ responseHeaders: { 'content-type': ['text/html'], 'content-security-policy': ["default-src *"] } }, callback);
    const headers = callback.mock.calls[0]![0].responseHeaders as Record<string, string[]>;
    expect(headers['Content-Security-Policy']).toEqual([CONTENT_SECURITY_POLICY]);
    expect(headers['content-security-policy']).toBeUndefined();
    expect(headers['content-type']).toEqual(['text/html']);
    expect(CONTENT_SECURITY_POLICY).toContain("script-src 'self'");
    expect(CONTENT_SECURITY_POLICY).toContain("object-src 'none'");
    expect(CONTENT_SECURITY_POLICY).toContain("frame-ancestors 'none'");
  });

  it('denies every permission request and check', () => {
    const request = fakeSession.setPermissionRequestHandler.mock.calls[0]![0] as (
      contents: unknown,
      permission: string,
      callback: (granted: boolean) => void,
    ) => void;
    for (const permission of ['media', 'geolocation', 'notifications', 'openExternal', 'clipboard-read']) {
      const callback = vi.fn();
      request({}, permission, callback);
      expect(callback).toHaveBeenCalledExactlyOnceWith(false);
    }
    const check = fakeSession.setPermissionCheckHandler.mock.calls[0]![0] as (...args: unknown[]) => boolean;
    expect(check(null, 'media', 'file://', {})).toBe(false);
    const device = fakeSession.setDevicePermissionHandler.mock.calls[0]![0] as (...args: unknown[]) => boolean;
    expect(device({})).toBe(false);
  });
});

describe('IPC mounting and events', () => {
  it('registers every dispatcher channel on ipcMain and forwards the sender frame URL', async () => {
    const dispatch = vi.fn(async (..._args: unknown[]) => ({ ok: true as const, data: 1 as unknown }));
    const unmount = mountDispatcher({ channels: ['a:one', 'b:two'], dispatch, cancel: vi.fn(() => false), release: vi.fn() });
    const handle = fakeElectron.ipcMain.handle;
    expect(handle.mock.calls.map((c) => c[0])).toEqual(['a:one', 'b:two']);
    expect(fakeElectron.ipcMain.on.mock.calls.map((c) => c[0])).toEqual(['bridge:cancel']);

    const listener = handle.mock.calls[1]![1] as (event: unknown, payload: unknown, options?: unknown) => Promise<unknown>;
    const sender = {};
    await listener({ sender, senderFrame: { url: 'file:///app/index.html' } }, { x: 1 }, { callId: 3 });
    expect(dispatch).toHaveBeenCalledWith('b:two', { x: 1 }, 'file:///app/index.html', undefined, { sender, options: { callId: 3 } });
    await listener({ sender, senderFrame: null }, {});
    expect(dispatch).toHaveBeenLastCalledWith('b:two', {}, null, undefined, { sender, options: undefined });

    unmount();
    expect(fakeElectron.ipcMain.removeHandler.mock.calls.map((c) => c[0])).toEqual(['a:one', 'b:two']);
    expect(fakeElectron.ipcMain.removeListener.mock.calls.map((c) => c[0])).toEqual(['bridge:cancel']);
  });

  it('broadcasts validated events to open windows only', () => {
    const open = openWindow();
    const closed = openWindow();
    closed.destroyed = true;
    broadcast('connection:state', { state: 'online' });
    expect(open.webContents.send).toHaveBeenCalledExactlyOnceWith('connection:state', { state: 'online' });
    expect(closed.webContents.send).not.toHaveBeenCalled();
    expect(() => broadcast('connection:state', { state: 'sideways' } as never)).toThrow();
  });

  it('focuses and restores the existing window for a second instance', () => {
    const window = openWindow();
    window.isMinimized.mockReturnValue(true);
    focusWindow(window as never);
    expect(window.restore).toHaveBeenCalledOnce();
    expect(window.focus).toHaveBeenCalledOnce();
    expect(() => focusWindow(null)).not.toThrow();
  });
});

describe('swath-raster:// protocol', () => {
  it('is declared privileged before ready and serves only library ids, with Range', async () => {
    registerSchemes();
    expect(fakeElectron.protocol.registerSchemesAsPrivileged).toHaveBeenCalledOnce();
    expect(fakeElectron.protocol.registerSchemesAsPrivileged).toHaveBeenCalledWith([
      expect.objectContaining({ scheme: 'app', privileges: expect.objectContaining({ standard: true, secure: true, supportFetchAPI: true, codeCache: true }) }),
      expect.objectContaining({ scheme: 'swath-raster', privileges: expect.objectContaining({ standard: true, secure: true, supportFetchAPI: true, stream: true }) }),
    ]);
    const dir = mkdtempSync(join(tmpdir(), 'swath-proto-'));
    try {
      const file = join(dir, 'a.tif');
      writeFileSync(file, Buffer.from('0123456789'));
      const id = '7d0c5a9e-4f6b-4c1e-9e52-000000000001';
      mountRasterProtocol({ get: (x) => (x === id ? { path: file } : undefined) });
      const [scheme, handler] = fakeElectron.protocol.handle.mock.calls.at(-1)! as [string, (r: Request) => Promise<Response>];
      expect(scheme).toBe('swath-raster');
      const ranged = await handler(new Request(`swath-raster://${id}/`, { headers: { range: 'bytes=2-4' } }));
      expect(ranged.status).toBe(206);
      expect(ranged.headers.get('content-range')).toBe('bytes 2-4/10');
      // The app://swath page reads the size from Content-Range only if CORS exposes it.
      expect(ranged.headers.get('access-control-expose-headers')).toMatch(/Content-Range/);
      expect(await ranged.text()).toBe('234');
      const missing = await handler(new Request('swath-raster://7d0c5a9e-4f6b-4c1e-9e52-000000000002/'));
      expect(missing.status).toBe(404);
      const path = await handler(new Request('swath-raster://..%2F..%2Fetc%2Fpasswd'));
      expect(path.status).toBe(404);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('app:// protocol', () => {
  it('serves the built renderer folder with the CSP, and nothing outside it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'swath-app-proto-'));
    try {
      const renderer = join(dir, 'renderer');
      mkdirSync(join(renderer, 'assets'), { recursive: true });
      writeFileSync(join(renderer, 'index.html'), '<!doctype html><title>Swath</title>');
      writeFileSync(join(renderer, 'assets', 'index-abc.js'), 'console.log(1)');
      writeFileSync(join(dir, 'secret.txt'), 'not for the renderer');
      mountAppProtocol(renderer);
      const [scheme, handler] = fakeElectron.protocol.handle.mock.calls.at(-1)! as [string, (r: Request) => Promise<Response>];
      expect(scheme).toBe('app');
      const index = await handler(new Request('app://swath/index.html'));
      expect(index.status).toBe(200);
      expect(index.headers.get('content-type')).toMatch(/text\/html/);
      expect(index.headers.get('content-security-policy')).toBe(CONTENT_SECURITY_POLICY);
      expect(await index.text()).toContain('<title>Swath</title>');
      expect((await handler(new Request('app://swath/assets/index-abc.js'))).headers.get('content-type')).toMatch(/javascript/);
      for (const url of ['app://swath/../secret.txt', 'app://swath/%2e%2e/secret.txt', 'app://swath/assets/..%2f..%2fsecret.txt', 'app://swath/..%5csecret.txt', 'app://other/index.html', 'app://swath/index.html%00.js', 'app://swath/assets']) {
        const res = await handler(new Request(url));
        expect(res.status, url).toBe(404);
        expect(await res.text(), url).not.toContain('not for the renderer');
      }
      expect((await handler(new Request('app://swath/index.html', { method: 'POST', body: 'x' }))).status).toBe(405);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('nativeConfirm', () => {
  it('asks with a native message box whose default and Escape answer is Cancel; only the confirm button agrees', async () => {
    const box = fakeElectron.dialog.showMessageBox as unknown as ReturnType<typeof vi.fn>;
    const window = new FakeBrowserWindow({});
    const confirm = nativeConfirm(() => window as never);
    box.mockResolvedValueOnce({ response: 1, checkboxChecked: false });
    expect(await confirm({ title: 'T', message: 'Send the key?', detail: 'to https://b.example', confirmLabel: 'Send' })).toBe(true);
    expect(box.mock.calls.at(-1)![0]).toBe(window);
    expect(box.mock.calls.at(-1)![1]).toMatchObject({ buttons: ['Cancel', 'Send'], defaultId: 0, cancelId: 0, message: 'Send the key?' });
    box.mockResolvedValueOnce({ response: 0, checkboxChecked: false });
    expect(await confirm({ title: 'T', message: 'm', confirmLabel: 'Send' })).toBe(false);
    // Without a window the box is app-modal.
    box.mockResolvedValueOnce({ response: 1, checkboxChecked: false });
    expect(await nativeConfirm(() => null)({ title: 'T', message: 'm', confirmLabel: 'Send' })).toBe(true);
    expect(box.mock.calls.at(-1)).toHaveLength(1);
  });
});
