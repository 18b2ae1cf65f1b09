import { afterEach, describe, expect, it } from 'vitest';
import { ApiError } from '../../../main/api/errors.js';
import { parseRetryAfter, withRetry } from '../../../main/api/retry.js';
import { UNCOVERED_AOI } from '../../simulator/helpers.js';
import { makeClient, sendEnvelope, startScriptServer, type ScriptServer, type TestClient } from './helpers.js';

const OK = (data: unknown) => ({ Data: data, Succeeded: true });
const FAIL = (code: number, message: string, data: unknown = null) => ({ Data: data, Succeeded: false, Error: { Message: message, Code: code } });
const ORDER = { Wkt: UNCOVERED_AOI, Model: 'Stratus2', SatelliteConstellations: ['Sentinel1', 'Sentinel2'], ImageFrequency: 7, ReferenceDate: '2026-01-01', From: '2026-10-01', To: '2026-10-30' };

describe('Retry-After and backoff', () => {
  it('parses delta seconds and HTTP dates', () => {
    const now = Date.parse('2026-11-22T12:00:00Z');
    expect(parseRetryAfter('3', now)).toBe(3000);
    expect(parseRetryAfter('0.5', now)).toBe(500);
    expect(parseRetryAfter('Sun, 22 Nov 2026 12:00:07 GMT', now)).toBe(7000);
    expect(parseRetryAfter('Sun, 22 Nov 2026 11:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('soon', now)).toBeNull();
    expect(parseRetryAfter(null, now)).toBeNull();
  });

  it('stops at maxAttempts and at the total time budget, and never retries other kinds', async () => {
    let calls = 0;
    const sleeps: number[] = [];
    const policy = { maxAttempts: 4, baseDelayMs: 100, maxDelayMs: 1000, maxTotalMs: 10_000, random: () => 0.5, now: () => 0, sleep: async (ms: number) => { sleeps.push(ms); } };
    await expect(withRetry(async () => { calls++; throw new ApiError('transient', 'x'); }, policy)).rejects.toMatchObject({ kind: 'transient' });
    expect(calls).toBe(4);
    expect(sleeps).toEqual([50, 100, 200]);

    calls = 0;
    let clock = 0;
    const timed = { ...policy, maxAttempts: 100, now: () => clock, sleep: async (ms: number) => { clock += ms; } };
    await expect(withRetry(async () => { calls++; throw new ApiError('rate-limited', 'x', { retryAfterMs: 3000 }); }, timed)).rejects.toMatchObject({ kind: 'rate-limited' });
    // 3050 ms per wait: the fourth wait would pass 10 s.
    expect(calls).toBe(4);

    for (const kind of ['validation', 'auth', 'not-found', 'credit', 'invalid', 'cancelled'] as const) {
      calls = 0;
      await expect(withRetry(async () => { calls++; throw new ApiError(kind, 'x'); }, policy)).rejects.toMatchObject({ kind });
      expect(calls).toBe(1);
    }
  });
});

describe('retry through the transport', () => {
  let s: ScriptServer;
  let c: TestClient;
  afterEach(async () => { await c?.close(); await s?.close(); });

  it('honours Retry-After on 429 and backs off with jitter on 5xx, then succeeds', async () => {
    s = await startScriptServer((_req, res, i) => {
      if (i === 0) return sendEnvelope(res, 429, FAIL(1003, 'Too many concurrent requests.'), { 'Retry-After': '2' });
      if (i === 1) return sendEnvelope(res, 503, FAIL(500, 'Unavailable.'));
      if (i === 2) return sendEnvelope(res, 502, FAIL(500, 'Bad gateway.'), { 'Retry-After': 'Thu, 01 Jan 1970 00:00:05 GMT' });
      sendEnvelope(res, 200, OK({ DefaultModel: 'Stratus2' }));
    });
    c = makeClient(s.url, { retry: { baseDelayMs: 100, maxDelayMs: 5000, random: () => 0.5, now: () => 0 } });
    expect(await c.client.accountSettings()).toEqual({ DefaultModel: 'Stratus2' });
    expect(s.requests).toHaveLength(4);
    // 429: Retry-After 2 s + jitter 50; 503: full jitter of base*2 = 200 -> 100; HTTP-date 5 s after the (fixed) clock.
    expect(c.delays).toEqual([2050, 100, 5050]);
    expect(c.attempts.map((a) => a.status)).toEqual([429, 503, 502, 200]);
    expect(c.logs.some((l) => /retrying in 2050 ms/.test(l))).toBe(true);
  });

  it('gives up after maxAttempts with the last error, carrying status and retryAfterMs', async () => {
    s = await startScriptServer((_req, res) => sendEnvelope(res, 429, FAIL(1003, 'Slow down.'), { 'Retry-After': '1' }));
    c = makeClient(s.url, { retry: { maxAttempts: 3 } });
    const e = await c.client.billingSummary().catch((x: unknown) => x as ApiError);
    expect(e).toMatchObject({ kind: 'rate-limited', status: 429, code: 1003, retryAfterMs: 1000 });
    expect(s.requests).toHaveLength(3);
    for (const d of c.delays) expect(d).toBeGreaterThanOrEqual(1000);
  });

  it('never retries a 400 or an auth error', async () => {
    for (const status of [400, 401, 403]) {
      s = await startScriptServer((_req, res) => sendEnvelope(res, status, FAIL(status === 400 ? 992 : status, 'No.', status === 400 ? { Wkt: ['bad'] } : null)));
      c = makeClient(s.url);
      const e = await c.client.accountInfo().catch((x: unknown) => x as ApiError);
      expect(e.kind).toBe(status === 400 ? 'validation' : 'auth');
      expect(s.requests).toHaveLength(1);
      expect(c.delays).toEqual([]);
      await c.close();
      await s.close();
    }
  });

  it('order creation is not retried on a transient error unless the caller opts in; estimate is', async () => {
    let failNext = true;
    s = await startScriptServer((req, res) => {
      if (req.url!.startsWith('/api/tasking/models')) return sendEnvelope(res, 200, OK({ TaskingModels: [] }));
      if (failNext) {
        failNext = false;
        return sendEnvelope(res, 503, FAIL(500, 'Unavailable.'));
      }
      failNext = true;
      sendEnvelope(res, 200, OK({ TaskOrderGuid: '00000000-0000-4000-8000-000000000000' }));
    });
    c = makeClient(s.url);
    const est = await c.client.estimateOrder(ORDER);
    expect(s.requests.filter((r) => r.url === '/api/tasking/orders/estimate')).toHaveLength(2);
    const e = await c.client.createOrder(est.payload).catch((x: unknown) => x as ApiError);
    expect(e).toMatchObject({ kind: 'transient', status: 503 });
    expect(s.requests.filter((r) => r.url === '/api/tasking/orders')).toHaveLength(1);
    // Opt-in after the user agreed: retried and created.
    failNext = true;
    const ok: any = await c.client.createOrder(est.payload, undefined, { retry: true });
    expect(ok.TaskOrderGuid).toBeDefined();
    const creates = s.requests.filter((r) => r.url === '/api/tasking/orders');
    expect(creates).toHaveLength(3);
    for (const r of creates) expect(r.body).toBe(est.payload);
    // And a read can opt out.
    failNext = true;
    await expect(c.client.billingSummary(undefined, { retry: false })).rejects.toMatchObject({ kind: 'transient' });
  });

  it('cancelling during a backoff wait rejects at once with a cancelled error', async () => {
    s = await startScriptServer((_req, res) => sendEnvelope(res, 503, FAIL(500, 'Unavailable.')));
    const ac = new AbortController();
    c = makeClient(s.url, { retry: { sleep: (ms, signal) => new Promise((_resolve, reject) => { signal?.addEventListener('abort', () => reject(new ApiError('cancelled', 'The request was cancelled.'))); setTimeout(() => ac.abort(), 5); void ms; }) } });
    await expect(c.client.accountSettings(ac.signal)).rejects.toMatchObject({ kind: 'cancelled' });
    expect(s.requests).toHaveLength(1);
  });
});
