import { beforeEach, describe, expect, it, vi } from 'vitest';
import { channelNames, eventNames, methodName } from '../../preload/contract';

const electron = vi.hoisted(() => {
  type Listener = (...args: unknown[]) => void;
  const listeners = new Map<string, Set<Listener>>();
  return {
    listeners,
    contextBridge: { exposeInMainWorld: (() => undefined) as (key: string, api: unknown) => void },
    webUtils: { getPathForFile: (file: { name: string }) => `/dropped/${file.name}` },
    ipcRenderer: {
      invoke: (async () => undefined) as (channel: string, payload: unknown) => Promise<unknown>,
      on(channel: string, listener: Listener) {
        if (!listeners.has(channel)) listeners.set(channel, new Set());
        listeners.get(channel)!.add(listener);
        return this;
      },
      removeListener(channel: string, listener: Listener) {
        listeners.get(channel)?.delete(listener);
        return this;
      },
      send: () => undefined,
    },
  };
});

vi.mock('electron', () => ({ contextBridge: electron.contextBridge, ipcRenderer: electron.ipcRenderer, webUtils: electron.webUtils }));

type Api = Record<string, unknown> & {
  on: (event: string, listener: (payload: unknown) => void) => () => void;
};

let exposed: { key: string; api: Api };

async function loadPreload(): Promise<void> {
  vi.resetModules();
  const expose = vi.fn();
  electron.contextBridge.exposeInMainWorld = expose;
  await import('../../preload/index');
  expect(expose).toHaveBeenCalledOnce();
  const [key, api] = expose.mock.calls[0]!;
  exposed = { key, api };
}

function deepValues(value: unknown, seen = new Set<unknown>()): unknown[] {
  if (value === null || (typeof value !== 'object' && typeof value !== 'function') || seen.has(value)) return [];
  seen.add(value);
  const own = Object.getOwnPropertyNames(value).map((k) => (value as Record<string, unknown>)[k]);
  return [value, ...own.flatMap((v) => deepValues(v, seen))];
}

beforeEach(async () => {
  electron.listeners.clear();
  electron.ipcRenderer.invoke = vi.fn(async (_channel: string, _payload: unknown) => ({ ok: true, data: 'x' }));
  await loadPreload();
});

describe('preload', () => {
  it('pathForFile resolves only real File objects, never a string the page names', () => {
    const pathForFile = exposed.api.pathForFile as (f: unknown) => string;
    expect(pathForFile(new File(['x'], 'a.tif'))).toBe('/dropped/a.tif');
    expect(pathForFile('/etc/passwd')).toBe('');
    expect(pathForFile({ name: 'fake.tif' })).toBe('');
  });

  it('exposes window.swath with exactly one method per channel plus on and pathForFile', () => {
    expect(exposed.key).toBe('swath');
    const expected = [...channelNames.map((c) => methodName(c)), 'on', 'cancel', 'pathForFile'].sort();
    expect(Object.keys(exposed.api).sort()).toEqual(expected);
    // Pin the derivation so a bug in methodName cannot hide behind itself.
    expect(Object.keys(exposed.api).sort()).toEqual(
      ['accountInfo', 'accountSettings', 'analysisChange', 'analysisChangeSave', 'analysisSeries', 'appAbout', 'appInfo', 'appReportError', 'billingOrders', 'billingSummary', 'billingTransactions', 'briefExport', 'cancel', 'diagnosticsGet', 'diagnosticsSave', 'downloadsCancel', 'downloadsClear', 'downloadsEnqueue', 'downloadsEnqueueSeries', 'downloadsList', 'downloadsPlan', 'downloadsRemove', 'downloadsRetry', 'downloadsReveal', 'exportCsv', 'exportGeojson', 'exportStac', 'fieldsAttachWatch', 'fieldsDelete', 'fieldsDetachWatch', 'fieldsExport', 'fieldsImport', 'fieldsInspect', 'fieldsLatest', 'fieldsParcels', 'fieldsResults', 'fieldsRun', 'fieldsSets', 'fieldsWatches', 'imageryAvailable', 'imageryEstimate', 'imageryLegacyComposite', 'imagerySearch', 'libraryCover', 'libraryImport', 'libraryImportDialog', 'libraryPreview', 'libraryQuery', 'libraryRemove', 'libraryReveal', 'librarySelection', 'notificationsPrefs', 'notificationsSetPrefs', 'notificationsShow', 'on', 'pathForFile', 'policyGet', 'profilesActivate', 'profilesConfirmOrigin', 'profilesCreate', 'profilesDelete', 'profilesDeleteKey', 'profilesList', 'profilesSetKey', 'profilesTestKey', 'profilesUpdate', 'serviceCall', 'serviceOperations', 'servicePing', 'serviceReconnect', 'serviceStatus', 'settingsGet', 'settingsSet', 'spendGet', 'spendSetBudget', 'taskingCreate', 'taskingEstimate', 'taskingModels', 'teamCheck', 'teamPreview', 'teamSetCredentials', 'teamStatus', 'teamUseCopy', 'teamWait', 'timelapseAbort', 'timelapseBegin', 'timelapseChunk', 'timelapseFinish', 'updatesCheck', 'updatesInstall', 'updatesSetChannel', 'updatesStatus', 'watchesCreate', 'watchesDates', 'watchesDelete', 'watchesList', 'watchesPause', 'watchesResume', 'watchesRun', 'watchesUpdate'],
    );
    for (const value of Object.values(exposed.api)) expect(typeof value).toBe('function');
  });

  it('leaks no ipcRenderer and no raw IPC function', () => {
    for (const value of deepValues(exposed.api)) {
      expect(value).not.toBe(electron.ipcRenderer);
      expect(value).not.toBe(electron.ipcRenderer.invoke);
      expect(value).not.toBe(electron.ipcRenderer.on);
      expect(value).not.toBe(electron.ipcRenderer.send);
      if (value !== null && (typeof value === 'object' || typeof value === 'function')) {
        expect(value).not.toHaveProperty('invoke');
        expect(value).not.toHaveProperty('send');
        expect(value).not.toHaveProperty('sendSync');
      }
    }
  });

  it('invokes the matching channel with the request (defaulting to {})', async () => {
    const appInfo = exposed.api.appInfo as (request?: unknown) => Promise<unknown>;
    await expect(appInfo()).resolves.toEqual({ ok: true, data: 'x' });
    expect(electron.ipcRenderer.invoke).toHaveBeenCalledWith('app:info', {}, undefined);
    await (exposed.api.servicePing as (request?: unknown, options?: unknown) => Promise<unknown>)({ a: 1 }, { callId: 4 });
    expect(electron.ipcRenderer.invoke).toHaveBeenLastCalledWith('service:ping', { a: 1 }, { callId: 4 });
  });

  it('cancel sends the call id on the cancel channel, and nothing but a call id', () => {
    electron.ipcRenderer.send = vi.fn();
    const cancel = exposed.api.cancel as (id: unknown) => void;
    cancel(4);
    expect(electron.ipcRenderer.send).toHaveBeenCalledExactlyOnceWith('bridge:cancel', { callId: 4 });
    for (const bad of [0, -1, 1.5, '4', { callId: 4 }]) expect(() => cancel(bad)).toThrow(/call id/);
    expect(electron.ipcRenderer.send).toHaveBeenCalledOnce();
  });

  it('turns a transport failure into an error result', async () => {
    electron.ipcRenderer.invoke = vi.fn(async () => {
      throw new Error('No handler registered for app:info');
    });
    await loadPreload();
    const result = await (exposed.api.appInfo as () => Promise<unknown>)();
    expect(result).toMatchObject({ ok: false, error: { kind: 'io', message: expect.stringContaining('No handler') } });
  });

  it('on() delivers only the payload and its unsubscribe removes the listener', () => {
    const [event] = eventNames;
    const received: unknown[] = [];
    const unsubscribe = exposed.api.on(event!, (payload) => received.push(payload));
    const registered = [...(electron.listeners.get(event!) ?? [])];
    expect(registered).toHaveLength(1);

    const ipcEvent = { sender: electron.ipcRenderer, senderId: 0 };
    registered[0]!(ipcEvent, { state: 'online' });
    expect(received).toEqual([{ state: 'online' }]);

    unsubscribe();
    expect(electron.listeners.get(event!)?.size ?? 0).toBe(0);
    unsubscribe(); // idempotent
  });

  it('on() refuses events that are not in the contract', () => {
    expect(() => exposed.api.on('ipc:raw', () => undefined)).toThrow(/Unknown event/);
    expect(electron.listeners.size).toBe(0);
  });
});
