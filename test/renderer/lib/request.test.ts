import { afterEach, describe, expect, it, vi } from 'vitest';
import { createRequest, reasonsFor } from '../../../renderer/src/lib/request';

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
});
