import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { AppError } from '../../../common/errors.js';
import { createDispatcher, type HandlerTable } from '../../../main/ipc';
import { SecretRegistry } from '../../../main/platform/secrets';
import { channelNames, channels, type ChannelMap } from '../../../preload/contract';

const TRUSTED = 'file:///app/out/renderer/index.html';
const isAllowedSender = (url: string): boolean => url === TRUSTED;
// The registry the dispatcher seals against; the masking tests below give theirs their own key.
const secrets = new SecretRegistry();

const appInfo = {
  version: '1.2.3',
  platform: 'linux',
  service: { label: 'Demo service (offline)', baseUrl: 'http://127.0.0.1:1', demo: true },
  contractVersion: '1.0.0' as const,
};

function realTable(overrides: Partial<HandlerTable> = {}): HandlerTable {
  // Channels a test does not exercise must not be reached at all.
  const untouched = Object.fromEntries(channelNames.map((c) => [c, vi.fn(async () => { throw new Error(`unexpected call to ${c}`); })]));
  return {
    ...(untouched as unknown as HandlerTable),
    'app:info': vi.fn(async () => appInfo),
    'service:ping': vi.fn(async () => ({ reachable: true, latencyMs: 3 })),
    ...overrides,
  };
}

// A contract with real fields, to check how field reasons are reported.
const testContract = {
  'order:estimate': {
    request: z.strictObject({
      model: z.enum(['Stratus2', 'Nimbus']),
      from: z.iso.date(),
      aoi: z.object({ wkt: z.string().min(1) }),
      constellations: z.array(z.string()).min(1),
    }),
    response: z.object({ cost: z.number() }),
  },
} satisfies ChannelMap;

describe('createDispatcher with the app contract', () => {
  it('runs the handler and returns its data for a valid request from the renderer', async () => {
    const table = realTable();
    const dispatcher = createDispatcher(table, { isAllowedSender, secrets });
    expect(dispatcher.channels).toEqual(channelNames);
    await expect(dispatcher.dispatch('app:info', {}, TRUSTED)).resolves.toEqual({ ok: true, data: appInfo });
    expect(table['app:info']).toHaveBeenCalledWith({}, expect.objectContaining({ senderUrl: TRUSTED }));
  });

  it.each(Object.keys(channels))('rejects malformed payloads for %s with kind validation and field reasons', async (channel) => {
    const table = realTable();
    const dispatcher = createDispatcher(table, { isAllowedSender, secrets });
    for (const payload of [null, undefined, 'x', 42, [], { unexpected: true }]) {
      const result = await dispatcher.dispatch(channel, payload, TRUSTED);
      expect(result.ok, `payload ${JSON.stringify(payload)}`).toBe(false);
      if (result.ok) continue;
      expect(result.error.kind).toBe('validation');
      expect(result.error.message).toContain(channel);
      const fields = result.error.fields ?? {};
      expect(Object.keys(fields).length).toBeGreaterThan(0);
      for (const reasons of Object.values(fields)) {
        expect(reasons.length).toBeGreaterThan(0);
        for (const reason of reasons) expect(typeof reason).toBe('string');
      }
    }
    expect(await dispatcher.dispatch(channel, { unexpected: true }, TRUSTED)).toMatchObject({
      ok: false,
      error: { fields: { unexpected: ['Unknown field.'] } },
    });
    expect(table[channel as keyof HandlerTable]).not.toHaveBeenCalled();
  });

  it('refuses foreign, missing and malformed sender URLs before looking at the payload', async () => {
    const table = realTable();
    const dispatcher = createDispatcher(table, { isAllowedSender, secrets });
    for (const sender of ['https://evil.example.com/', 'file:///tmp/evil.html', '', null, undefined]) {
      const result = await dispatcher.dispatch('app:info', {}, sender);
      expect(result).toMatchObject({ ok: false, error: { kind: 'auth' } });
    }
    // An invalid payload from a foreign sender is still an auth failure: it learns nothing about the schema.
    expect(await dispatcher.dispatch('app:info', 'garbage', 'https://evil.example.com/')).toMatchObject({ ok: false, error: { kind: 'auth' } });
    expect(table['app:info']).not.toHaveBeenCalled();
  });

  it('treats a throwing sender predicate as a refusal', async () => {
    const dispatcher = createDispatcher(realTable(), {
      isAllowedSender: () => {
        throw new Error('boom');
      },
      secrets,
    });
    expect(await dispatcher.dispatch('app:info', {}, TRUSTED)).toMatchObject({ ok: false, error: { kind: 'auth' } });
  });

  it('answers unknown channels, including prototype keys, with not-found', async () => {
    const dispatcher = createDispatcher(realTable(), { isAllowedSender, secrets });
    for (const channel of ['nope:nothing', '__proto__', 'toString', 'constructor']) {
      expect(await dispatcher.dispatch(channel, {}, TRUSTED)).toMatchObject({ ok: false, error: { kind: 'not-found' } });
    }
  });

  it('turns a handler throw into an io error result instead of a crash', async () => {
    const dispatcher = createDispatcher(
      realTable({
        'app:info': () => {
          throw new Error('disk on fire');
        },
        'service:ping': async () => Promise.reject(new TypeError('socket hang up')),
      }),
      { isAllowedSender, secrets },
    );
    expect(await dispatcher.dispatch('app:info', {}, TRUSTED)).toEqual({ ok: false, error: { kind: 'io', message: 'disk on fire' } });
    expect(await dispatcher.dispatch('service:ping', {}, TRUSTED)).toEqual({ ok: false, error: { kind: 'io', message: 'socket hang up' } });
  });

  it('keeps the kind of an AppError and reports aborts as cancelled', async () => {
    const aborted = new DOMException('stopped', 'AbortError');
    const dispatcher = createDispatcher(
      realTable({
        'app:info': () => {
          throw new AppError('auth', 'key rejected', { fields: { key: ['revoked'] } });
        },
        'service:ping': () => {
          throw aborted;
        },
      }),
      { isAllowedSender, secrets },
    );
    expect(await dispatcher.dispatch('app:info', {}, TRUSTED)).toEqual({
      ok: false,
      error: { kind: 'auth', message: 'key rejected', fields: { key: ['revoked'] } },
    });
    expect(await dispatcher.dispatch('service:ping', {}, TRUSTED)).toMatchObject({ ok: false, error: { kind: 'cancelled' } });
  });

  it('strips undeclared response fields so a secret cannot leak, and rejects malformed responses', async () => {
    const leaky = createDispatcher(
      realTable({
        'app:info': async () => ({ ...appInfo, service: { ...appInfo.service, apiKey: 'demo-key' } }) as typeof appInfo,
        'service:ping': async () => ({ reachable: 'yes' }) as never,
      }),
      { isAllowedSender, secrets },
    );
    const info = await leaky.dispatch('app:info', {}, TRUSTED);
    expect(info).toEqual({ ok: true, data: appInfo });
    expect(JSON.stringify(info)).not.toContain('demo-key');
    expect(await leaky.dispatch('service:ping', {}, TRUSTED)).toMatchObject({ ok: false, error: { kind: 'io' } });
  });

  it('refuses to build with an incomplete handler table', () => {
    expect(() => createDispatcher({ 'app:info': async () => appInfo } as unknown as HandlerTable, { isAllowedSender, secrets })).toThrow(
      /service:ping/,
    );
  });
});

describe('createDispatcher field reasons', () => {
  const handler = vi.fn(async () => ({ cost: 1 }));
  const dispatcher = createDispatcher({ 'order:estimate': handler }, { isAllowedSender, contract: testContract, secrets });

  it('maps nested paths to their own reasons', async () => {
    const result = await dispatcher.dispatch(
      'order:estimate',
      { model: 'Stratus-2', from: '2025-13-40', aoi: { wkt: '' }, constellations: [], extra: 1 },
      TRUSTED,
    );
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error.kind).toBe('validation');
    expect(Object.keys(result.error.fields ?? {}).sort()).toEqual(['aoi.wkt', 'constellations', 'extra', 'from', 'model']);
    expect(handler).not.toHaveBeenCalled();
  });

  it('reports a non-object payload at the root', async () => {
    const result = await dispatcher.dispatch('order:estimate', 'nope', TRUSTED);
    expect(result).toMatchObject({ ok: false, error: { kind: 'validation', fields: { '(root)': [expect.any(String)] } } });
  });

  it('passes the parsed request to the handler', async () => {
    const request = { model: 'Nimbus', from: '2025-01-01', aoi: { wkt: 'POLYGON((0 0,1 0,1 1,0 0))' }, constellations: ['Sentinel2'] };
    expect(await dispatcher.dispatch('order:estimate', request, TRUSTED)).toEqual({ ok: true, data: { cost: 1 } });
    expect(handler).toHaveBeenCalledWith(request, expect.objectContaining({ signal: expect.any(AbortSignal) }));
  });
});

describe('the dispatcher masks every key main holds (last line of defence)', () => {
  const KEY = 'sk-live-dispatcher-key-5e6f';
  it('in results and in errors, whatever the handler returned or threw; the app\'s own "key" fields stay', async () => {
    const secrets = new SecretRegistry();
    secrets.add(KEY);
    const table = realTable({
      'app:info': vi.fn(async () => ({ ...appInfo, service: { ...appInfo.service, label: `Service for ${KEY}` } })),
      'service:ping': vi.fn(async () => { throw new AppError('validation', `Refused ${KEY}`, { fields: { [KEY]: [`${KEY} is wrong`] } }); }),
      'service:operations': vi.fn(async () => ({ operations: [{ key: 'tasking.orders.list', operationId: null, method: 'GET', path: '/api/tasking/orders', summary: null, deprecated: false, parameters: {}, body: null, bodyRequired: false }] })),
    });
    const dispatcher = createDispatcher(table, { isAllowedSender, secrets });
    const info = await dispatcher.dispatch('app:info', {}, TRUSTED);
    expect(info).toMatchObject({ ok: true, data: { service: { label: 'Service for •••• 5e6f' } } });
    const ping = await dispatcher.dispatch('service:ping', {}, TRUSTED);
    expect(ping).toEqual({ ok: false, error: { kind: 'validation', message: 'Refused •••• 5e6f', fields: { '•••• 5e6f': ['•••• 5e6f is wrong'] } } });
    const ops = await dispatcher.dispatch('service:operations', {}, TRUSTED);
    expect(ops).toMatchObject({ ok: true, data: { operations: [{ key: 'tasking.orders.list' }] } });
    expect(JSON.stringify([info, ping, ops])).not.toContain(KEY);
  });
});
