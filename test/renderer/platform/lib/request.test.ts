import { afterEach, describe, expect, it, vi } from 'vitest';
import { getBridge } from '../../../../renderer/src/platform/bridge';
import { createRequest, reasonsFor } from '../../../../renderer/src/platform/lib/request';
import { bridgeStandIn, makeBridge } from '../../fake-bridge';

afterEach(() => vi.useRealTimers());

describe('request state', () => {
  it('retries a rate-limited call with backoff while saying the service is busy', async () => {
    vi.useFakeTimers();
    const req = createRequest<number>({ rateLimitDelaysMs: [1000, 2000] });
    const call = vi
      .fn()
      .mockResolvedValueOnce({ ok: false, error: { kind: 'rate-limited', message: 'busy' } })
      .mockResolvedValueOnce({ ok: true, data: 7 });
    const done = req.run(call);
    await vi.advanceTimersByTimeAsync(0);
    expect(req.busy).toMatch(/Service busy, retrying/);
    expect(req.loading).toBe(true);
    await vi.advanceTimersByTimeAsync(1300);
    expect(await done).toEqual({ ok: true, data: 7 });
    expect(req.busy).toBeNull();
    expect(req.data).toBe(7);
  });

  it('hands auth failures to the auth handler and keeps field errors', async () => {
    const onAuth = vi.fn();
    const req = createRequest<number>({ onAuth });
    await req.run(async () => ({ ok: false, error: { kind: 'auth', message: 'no' } }));
    expect(onAuth).toHaveBeenCalledWith({ kind: 'auth', message: 'no' });
    await req.run(async () => ({ ok: false, error: { kind: 'validation', message: 'bad', fields: { 'GeoJson.coordinates': ['x'] } } }));
    expect(reasonsFor(req.fields, 'GeoJson')).toEqual(['x']);
    expect(reasonsFor(req.fields, 'geojson')).toEqual(['x']);
    expect(reasonsFor(req.fields, 'Wkt')).toEqual([]);
  });

  it('ignores the answer of a cancelled or superseded call', async () => {
    const req = createRequest<number>();
    let resolve: (v: unknown) => void = () => undefined;
    const first = req.run(() => new Promise((r) => (resolve = r)) as never);
    req.cancel();
    resolve({ ok: true, data: 1 });
    expect(await first).toMatchObject({ ok: false, error: { kind: 'cancelled' } });
    expect(req.data).toBeNull();
    expect(req.loading).toBe(false);
  });

  it('cancel() aborts the running call through the bridge: main gets a cancel for that call id, the answer is cancelled', async () => {
    const pending: ((r: unknown) => void)[] = [];
    const fake = makeBridge({ imagerySearch: () => new Promise((r) => pending.push(r as never)) });
    bridgeStandIn().api = fake.api;
    const req = createRequest<unknown>();
    const first = req.run((signal) => getBridge(signal).imagerySearch({ request: { Wkt: 'x' } }));
    const [, options] = fake.api.imagerySearch.mock.calls[0]!;
    expect(options).toEqual({ callId: expect.any(Number) });
    req.cancel();
    expect(fake.api.cancel).toHaveBeenCalledExactlyOnceWith(options.callId);
    expect(await first).toMatchObject({ ok: false, error: { kind: 'cancelled' } });
    expect(req.loading).toBe(false);

    // A new run supersedes the running one, which is cancelled in main too.
    const second = req.run((signal) => getBridge(signal).imagerySearch({ request: { Wkt: 'y' } }));
    const third = req.run((signal) => getBridge(signal).imagerySearch({ request: { Wkt: 'z' } }));
    const ids = fake.api.imagerySearch.mock.calls.map((c: unknown[]) => (c[1] as { callId: number }).callId);
    expect(new Set(ids).size).toBe(3);
    expect(fake.api.cancel).toHaveBeenLastCalledWith(ids[1]);
    expect(await second).toMatchObject({ ok: false, error: { kind: 'cancelled' } });
    pending[2]!({ ok: true, data: 3 });
    expect(await third).toEqual({ ok: true, data: 3 });
    // A finished call is not cancelled afterwards.
    req.cancel();
    expect(fake.api.cancel).toHaveBeenCalledTimes(2);
    // Without a signal, calls carry no call id.
    void getBridge().imagerySearch({ request: { Wkt: 'w' } });
    expect(fake.api.imagerySearch.mock.calls.at(-1)).toEqual([{ request: { Wkt: 'w' } }]);
  });
});
