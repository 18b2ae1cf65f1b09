import { EventEmitter } from 'node:events';
import { describe, expect, it, vi } from 'vitest';
import { createDispatcher, emit, handle, type HandlerTable, type IpcMainLike } from '../../../main/ipc';
import { SecretRegistry } from '../../../main/platform/secrets';
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

type Invoke = (event: unknown, payload: unknown, options?: unknown) => Promise<unknown>;

function fakeIpc(): IpcMainLike & { listeners: Map<string, Invoke>; messages: Map<string, (event: unknown, message: unknown) => void> } {
  const listeners = new Map<string, Invoke>();
  const messages = new Map<string, (event: unknown, message: unknown) => void>();
  return {
    listeners,
    messages,
    handle: vi.fn((channel: string, listener: Invoke) => {
      listeners.set(channel, listener);
    }) as unknown as IpcMainLike['handle'],
    removeHandler: vi.fn((channel: string) => {
      listeners.delete(channel);
    }),
    on: vi.fn((channel: string, listener: (event: unknown, message: unknown) => void) => {
      messages.set(channel, listener);
    }) as unknown as IpcMainLike['on'],
    removeListener: vi.fn((channel: string) => {
      messages.delete(channel);
    }) as unknown as IpcMainLike['removeListener'],
  };
}

/** A table whose service:ping waits for its signal and reports how it ended. */
function waitingTable(seen: { aborted: boolean[] }): HandlerTable {
  return {
    ...table,
    'service:ping': (_r, { signal }) => new Promise((resolve, reject) => {
      if (signal.aborted) return reject(signal.reason);
      signal.addEventListener('abort', () => {
        seen.aborted.push(true);
        reject(signal.reason);
      }, { once: true });
    }),
  };
}

describe('handle', () => {
  it('registers exactly the contract channels and checks the sender frame of each call', async () => {
    const ipc = fakeIpc();
    const dispose = handle(ipc, createDispatcher(table, { isAllowedSender: (url) => url === TRUSTED, secrets: new SecretRegistry() }));
    expect([...ipc.listeners.keys()]).toEqual(channelNames);

    const ping = ipc.listeners.get('service:ping')!;
    expect(await ping({ sender: {}, senderFrame: { url: TRUSTED } }, {})).toEqual({ ok: true, data: { reachable: true, latencyMs: 1 } });
    expect(await ping({ sender: {}, senderFrame: { url: 'https://evil.example.com/' } }, {})).toMatchObject({ ok: false, error: { kind: 'auth' } });
    // A frame that navigated away or was destroyed has no senderFrame.
    expect(await ping({ sender: {}, senderFrame: null }, {})).toMatchObject({ ok: false, error: { kind: 'auth' } });
    expect(await ping({ sender: {}, senderFrame: { url: TRUSTED } }, { nope: 1 })).toMatchObject({ ok: false, error: { kind: 'validation' } });

    dispose();
    expect(ipc.listeners.size).toBe(0);
  });
});

describe('cancel across the bridge', () => {
  const frame = { url: TRUSTED };

  it('a cancel message aborts the handler of that call id in that window, which answers cancelled', async () => {
    const ipc = fakeIpc();
    const seen = { aborted: [] as boolean[] };
    handle(ipc, createDispatcher(waitingTable(seen), { isAllowedSender: (url) => url === TRUSTED, secrets: new SecretRegistry() }));
    const window = new EventEmitter();
    const answer = ipc.listeners.get('service:ping')!({ sender: window, senderFrame: frame }, {}, { callId: 7 });
    const cancel = ipc.messages.get('bridge:cancel')!;
    // Malformed messages and ids that are not running do nothing.
    for (const bad of [null, 7, { callId: '7' }, { callId: -1 }, { callId: 1.5 }, { callId: 7, extra: 1 }, { callId: 8 }]) cancel({ sender: window, senderFrame: frame }, bad);
    expect(seen.aborted).toEqual([]);
    cancel({ sender: window, senderFrame: frame }, { callId: 7 });
    await expect(answer).resolves.toEqual({ ok: false, error: { kind: 'cancelled', message: 'The operation was cancelled.' } });
    expect(seen.aborted).toEqual([true]);
  });

  it('another window, or a foreign frame of the same window, cannot cancel the call', async () => {
    const ipc = fakeIpc();
    const seen = { aborted: [] as boolean[] };
    handle(ipc, createDispatcher(waitingTable(seen), { isAllowedSender: (url) => url === TRUSTED, secrets: new SecretRegistry() }));
    const mine = new EventEmitter();
    const other = new EventEmitter();
    const answer = ipc.listeners.get('service:ping')!({ sender: mine, senderFrame: frame }, {}, { callId: 1 });
    const cancel = ipc.messages.get('bridge:cancel')!;
    cancel({ sender: other, senderFrame: frame }, { callId: 1 });
    cancel({ sender: mine, senderFrame: { url: 'https://evil.example.com/' } }, { callId: 1 });
    expect(seen.aborted).toEqual([]);
    // Its id stays taken while it runs, so a second call cannot shadow it.
    expect(await ipc.listeners.get('service:ping')!({ sender: mine, senderFrame: frame }, {}, { callId: 1 })).toMatchObject({ ok: false, error: { kind: 'validation', fields: { callId: expect.any(Array) } } });
    // The other window's ids are its own.
    const theirs = ipc.listeners.get('service:ping')!({ sender: other, senderFrame: frame }, {}, { callId: 1 });
    cancel({ sender: other, senderFrame: frame }, { callId: 1 });
    await expect(theirs).resolves.toMatchObject({ ok: false, error: { kind: 'cancelled' } });
    expect(seen.aborted).toEqual([true]);
    // Destroying the window aborts its running calls.
    mine.emit('destroyed');
    await expect(answer).resolves.toMatchObject({ ok: false, error: { kind: 'cancelled' } });
    expect(seen.aborted).toEqual([true, true]);
  });

  it('refuses malformed call options as a validation error, after the sender check', async () => {
    const ipc = fakeIpc();
    handle(ipc, createDispatcher(table, { isAllowedSender: (url) => url === TRUSTED, secrets: new SecretRegistry() }));
    const ping = ipc.listeners.get('service:ping')!;
    const sender = new EventEmitter();
    for (const options of [{ callId: 0 }, { callId: 'x' }, { callId: 2 ** 60 }, { other: 1 }, 'nope']) {
      expect(await ping({ sender, senderFrame: frame }, {}, options)).toMatchObject({ ok: false, error: { kind: 'validation' } });
    }
    expect(await ping({ sender, senderFrame: { url: 'https://evil.example.com/' } }, {}, 'nope')).toMatchObject({ ok: false, error: { kind: 'auth' } });
    expect(await ping({ sender, senderFrame: frame }, {}, { callId: 5 })).toEqual({ ok: true, data: { reachable: true, latencyMs: 1 } });
    // A finished call's id is free again.
    expect(await ping({ sender, senderFrame: frame }, {}, { callId: 5 })).toMatchObject({ ok: true });
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
