import { describe, expect, it, vi } from 'vitest';
import { createDispatcher, emit, handle, type HandlerTable, type IpcMainLike } from '../../../main/ipc';
import { channelNames } from '../../../preload/contract';

// main/ipc only imports Electron types; mocking keeps a stray runtime import from triggering the binary download.
vi.mock('electron', () => ({}));

const TRUSTED = 'file:///app/index.html';
const table: HandlerTable = {
  // Only app:info and service:ping are called here; the rest must exist for the table to be complete.
  ...(Object.fromEntries(channelNames.map((c) => [c, async () => { throw new Error(`unexpected call to ${c}`); }])) as unknown as HandlerTable),
  'app:info': async () => ({
    version: '1',
    platform: 'linux',
    service: { label: 'Demo service (offline)', baseUrl: 'http://127.0.0.1:1', demo: true },
    contractVersion: '1.0.0',
  }),
  'service:ping': async () => ({ reachable: true, latencyMs: 1 }),
};

function fakeIpc(): IpcMainLike & { listeners: Map<string, (event: unknown, payload: unknown) => Promise<unknown>> } {
  const listeners = new Map<string, (event: unknown, payload: unknown) => Promise<unknown>>();
  return {
    listeners,
    handle: vi.fn((channel: string, listener: (event: unknown, payload: unknown) => Promise<unknown>) => {
      listeners.set(channel, listener);
    }) as unknown as IpcMainLike['handle'],
    removeHandler: vi.fn((channel: string) => {
      listeners.delete(channel);
    }),
  };
}

describe('handle', () => {
  it('registers exactly the contract channels and checks the sender frame of each call', async () => {
    const ipc = fakeIpc();
    const dispose = handle(ipc, createDispatcher(table, { isAllowedSender: (url) => url === TRUSTED }));
    expect([...ipc.listeners.keys()]).toEqual(channelNames);

    const ping = ipc.listeners.get('service:ping')!;
    expect(await ping({ senderFrame: { url: TRUSTED } }, {})).toEqual({ ok: true, data: { reachable: true, latencyMs: 1 } });
    expect(await ping({ senderFrame: { url: 'https://evil.example.com/' } }, {})).toMatchObject({ ok: false, error: { kind: 'auth' } });
    // A frame that navigated away or was destroyed has no senderFrame.
    expect(await ping({ senderFrame: null }, {})).toMatchObject({ ok: false, error: { kind: 'auth' } });
    expect(await ping({ senderFrame: { url: TRUSTED } }, { nope: 1 })).toMatchObject({ ok: false, error: { kind: 'validation' } });

    dispose();
    expect(ipc.listeners.size).toBe(0);
  });
});

describe('emit', () => {
  it('sends valid events and refuses malformed payloads', () => {
    const target = { send: vi.fn(), isDestroyed: () => false };
    emit(target, 'connection:state', { state: 'offline', detail: 'down' });
    expect(target.send).toHaveBeenCalledExactlyOnceWith('connection:state', { state: 'offline', detail: 'down' });
    expect(() => emit(target, 'connection:state', { state: 'maybe' } as never)).toThrow();
    expect(target.send).toHaveBeenCalledOnce();
  });

  it('does not send to a destroyed target', () => {
    const target = { send: vi.fn(), isDestroyed: () => true };
    emit(target, 'connection:state', { state: 'online' });
    expect(target.send).not.toHaveBeenCalled();
  });
});
