import { afterEach, describe, expect, it, vi } from 'vitest';
import { reasonsFor, setAuthHandler } from '../../../renderer/src/platform/lib/request';
import { ask, createErrorLine, createRequest, filePaths, keyedRequests, listen } from '../../../renderer/src/platform/request';
import { bridgeStandIn, fail, makeBridge, ok } from '../fake-bridge';

afterEach(() => {
  vi.useRealTimers();
  setAuthHandler(null);
});

/** A bridge whose imagerySearch answers only when the test says, each call's answer by index. */
function pendingSearch() {
  const pending: ((r: unknown) => void)[] = [];
  const fake = makeBridge({ imagerySearch: () => new Promise((r) => pending.push(r as never)) });
  bridgeStandIn().api = fake.api;
  return { fake, pending };
}

describe('request state', () => {
  it('retries a rate-limited call with backoff while saying the service is busy', async () => {
    vi.useFakeTimers();
    bridgeStandIn().api = makeBridge().api;
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
    bridgeStandIn().api = makeBridge().api;
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
    bridgeStandIn().api = makeBridge().api;
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
    const { fake, pending } = pendingSearch();
    const req = createRequest<unknown>({ cancelsInMain: true });
    const first = req.run((bridge) => bridge.imagerySearch({ request: { Wkt: 'x' } }));
    const [, options] = fake.api.imagerySearch.mock.calls[0]!;
    expect(options).toEqual({ callId: expect.any(Number) });
    req.cancel();
    expect(fake.api.cancel).toHaveBeenCalledExactlyOnceWith(options.callId);
    expect(await first).toMatchObject({ ok: false, error: { kind: 'cancelled' } });
    expect(req.loading).toBe(false);

    // A new run supersedes the running one, which is cancelled in main too.
    const second = req.run((bridge) => bridge.imagerySearch({ request: { Wkt: 'y' } }));
    const third = req.run((bridge) => bridge.imagerySearch({ request: { Wkt: 'z' } }));
    const ids = fake.api.imagerySearch.mock.calls.map((c: unknown[]) => (c[1] as { callId: number }).callId);
    expect(new Set(ids).size).toBe(3);
    expect(fake.api.cancel).toHaveBeenLastCalledWith(ids[1]);
    expect(await second).toMatchObject({ ok: false, error: { kind: 'cancelled' } });
    pending[2]!({ ok: true, data: 3 });
    expect(await third).toEqual({ ok: true, data: 3 });
    // A finished call is not cancelled afterwards.
    req.cancel();
    expect(fake.api.cancel).toHaveBeenCalledTimes(2);
  });

  it('a request that does not cancel in main lets a sent call run to its end: no call id, cancelling only ignores its answer', async () => {
    const { fake, pending } = pendingSearch();
    const req = createRequest<unknown>();
    const first = req.run((bridge) => bridge.imagerySearch({ request: { Wkt: 'x' } }));
    expect(fake.api.imagerySearch.mock.calls[0]).toEqual([{ request: { Wkt: 'x' } }]);
    req.cancel();
    pending[0]!({ ok: true, data: 1 });
    expect(await first).toMatchObject({ ok: false, error: { kind: 'cancelled' } });
    expect(fake.api.cancel).not.toHaveBeenCalled();
    expect(req.data).toBeNull();
  });

  it('a call without the preload fails as io, naming the missing bridge', async () => {
    const req = createRequest<unknown>();
    const r = await req.run((bridge) => bridge.appInfo());
    expect(r).toMatchObject({ ok: false, error: { kind: 'io', message: expect.stringMatching(/window\.swath is missing/) } });
    expect(req.error?.kind).toBe('io');
  });
});

describe('ask: one request', () => {
  it('retries a rate-limited call with backoff and answers the final result', async () => {
    vi.useFakeTimers();
    const fake = makeBridge({
      libraryRemove: vi.fn().mockResolvedValueOnce(fail('rate-limited', 'busy')).mockResolvedValueOnce(fail('rate-limited', 'busy')).mockResolvedValueOnce(ok({ removed: true })),
    });
    bridgeStandIn().api = fake.api;
    const done = ask((bridge) => bridge.libraryRemove({ id: 'a', deleteFile: false }), { rateLimitDelaysMs: [1000, 1000, 1000] });
    await vi.advanceTimersByTimeAsync(0);
    expect(fake.api.libraryRemove).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(1200);
    expect(fake.api.libraryRemove).toHaveBeenCalledTimes(2);
    await vi.advanceTimersByTimeAsync(1200);
    expect(await done).toEqual({ ok: true, data: { removed: true } });
    // Without a signal the call carries no call id: nothing can cancel it.
    expect(fake.api.libraryRemove.mock.calls[2]).toEqual([{ id: 'a', deleteFile: false }]);
  });

  it('answers the rate-limited failure once its retries are spent', async () => {
    bridgeStandIn().api = makeBridge({ libraryRemove: async () => fail('rate-limited', 'busy') }).api;
    expect(await ask((bridge) => bridge.libraryRemove({ id: 'a', deleteFile: false }), { rateLimitDelaysMs: [] })).toEqual(fail('rate-limited', 'busy'));
  });

  it("hands an 'auth' failure to the app's handler (the key dialog), or to its own", async () => {
    bridgeStandIn().api = makeBridge({ teamPreview: async () => fail('auth', 'The key was refused.') }).api;
    const app = vi.fn();
    setAuthHandler(app);
    const r = await ask((bridge) => bridge.teamPreview({ id: 'x' }));
    expect(r).toEqual(fail('auth', 'The key was refused.'));
    expect(app).toHaveBeenCalledExactlyOnceWith({ kind: 'auth', message: 'The key was refused.' });
    const own = vi.fn();
    await ask((bridge) => bridge.teamPreview({ id: 'x' }), { onAuth: own });
    expect(own).toHaveBeenCalledOnce();
    expect(app).toHaveBeenCalledOnce();
    // Other failures go to no handler.
    bridgeStandIn().api = makeBridge().api;
    await ask((bridge) => bridge.updatesInstall());
    expect(app).toHaveBeenCalledOnce();
  });

  it('keeps field errors for the inputs', async () => {
    bridgeStandIn().api = makeBridge({ profilesCreate: async () => fail('validation', 'Bad profile.', { baseUrl: ['must be an http(s) URL'] }) }).api;
    const r = await ask((bridge) => bridge.profilesCreate({ name: 'x', baseUrl: 'ftp://x' }));
    expect(r.ok).toBe(false);
    expect(reasonsFor(r.ok ? null : r.error.fields, 'baseUrl')).toEqual(['must be an http(s) URL']);
  });

  it("a signal cancels the call in main and answers 'cancelled' at once, also while waiting to retry", async () => {
    const { fake } = pendingSearch();
    const ac = new AbortController();
    const done = ask((bridge) => bridge.imagerySearch({ request: { Wkt: 'x' } }), { signal: ac.signal });
    const [, options] = fake.api.imagerySearch.mock.calls[0]!;
    ac.abort();
    expect(fake.api.cancel).toHaveBeenCalledExactlyOnceWith(options.callId);
    expect(await done).toMatchObject({ ok: false, error: { kind: 'cancelled' } });

    vi.useFakeTimers();
    bridgeStandIn().api = makeBridge({ imagerySearch: async () => fail('rate-limited', 'busy') }).api;
    const waiting = new AbortController();
    const retrying = ask((bridge) => bridge.imagerySearch({ request: {} }), { signal: waiting.signal, rateLimitDelaysMs: [60_000] });
    await vi.advanceTimersByTimeAsync(0);
    waiting.abort();
    expect(await retrying).toMatchObject({ ok: false, error: { kind: 'cancelled' } });
    // An already fired signal calls nothing.
    expect(await ask((bridge) => bridge.imagerySearch({ request: {} }), { signal: waiting.signal })).toMatchObject({ ok: false, error: { kind: 'cancelled' } });
  });

  it('a thrown error becomes an io failure', async () => {
    bridgeStandIn().api = makeBridge({ libraryReveal: async () => { throw new Error('boom'); } }).api;
    expect(await ask((bridge) => bridge.libraryReveal({ id: 'a' }))).toEqual({ ok: false, error: { kind: 'io', message: 'boom' } });
  });
});

describe('events and files', () => {
  it("listen follows one of main's events until stopped", () => {
    const fake = makeBridge();
    bridgeStandIn().api = fake.api;
    const seen: unknown[] = [];
    const stop = listen('spend:changed', (p) => seen.push(p));
    fake.emit('spend:changed', {} as never);
    stop();
    fake.emit('spend:changed', {} as never);
    expect(seen).toHaveLength(1);
  });

  it("filePaths is the preload's, and null where the window has none", () => {
    expect(filePaths()).toBeNull();
    const fake = makeBridge();
    bridgeStandIn().api = fake.api;
    expect(filePaths()).toBeNull();
    fake.api.pathForFile = vi.fn(() => '/data/a.tif');
    expect(filePaths()?.(new File(['x'], 'a.tif'))).toBe('/data/a.tif');
  });
});

describe('an error line', () => {
  it('shows the last failure of its calls until one succeeds; a cancelled call leaves it', async () => {
    bridgeStandIn().api = makeBridge({
      libraryRemove: async () => fail('validation', 'Not removed.', { id: ['unknown id'] }),
      libraryReveal: async () => ok({ revealed: true }),
    }).api;
    const line = createErrorLine();
    expect(await line.ask((bridge) => bridge.libraryRemove({ id: 'a', deleteFile: false }))).toEqual(fail('validation', 'Not removed.', { id: ['unknown id'] }));
    expect(line.error?.message).toBe('Not removed.');
    expect(reasonsFor(line.fields, 'id')).toEqual(['unknown id']);
    const ac = new AbortController();
    ac.abort();
    await line.ask((bridge) => bridge.libraryReveal({ id: 'a' }), { signal: ac.signal });
    expect(line.error?.message).toBe('Not removed.');
    line.note(fail('io', 'Disk gone.'));
    expect(line.error?.message).toBe('Disk gone.');
    await line.ask((bridge) => bridge.libraryReveal({ id: 'a' }));
    expect(line.error).toBeNull();
    expect(line.fields).toEqual({});
  });
});

describe('keyed requests', () => {
  it("keeps one state per key: one key's failure and loading are not another's", async () => {
    const pending: ((r: unknown) => void)[] = [];
    bridgeStandIn().api = makeBridge({
      downloadsCancel: (r) => (r.id === 'a' ? Promise.resolve(fail('not-found', 'No such job.')) : new Promise((res) => pending.push(res as never))),
    }).api;
    const jobs = keyedRequests<unknown>();
    await jobs.of('a').run((bridge) => bridge.downloadsCancel({ id: 'a' }));
    const b = jobs.of('b').run((bridge) => bridge.downloadsCancel({ id: 'b' }));
    expect(jobs.of('a')).toBe(jobs.all.a);
    expect(Object.keys(jobs.all)).toEqual(['a', 'b']);
    expect(jobs.all.a!.error?.message).toBe('No such job.');
    expect(jobs.all.a!.loading).toBe(false);
    expect(jobs.all.b!.loading).toBe(true);
    expect(jobs.all.b!.error).toBeNull();
    pending[0]!(ok({ id: 'b' }));
    await b;
    expect(jobs.all.b!.data).toEqual({ id: 'b' });
    expect(jobs.all.a!.error?.message).toBe('No such job.');
  });
});
