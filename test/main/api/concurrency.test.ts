import { describe, expect, it } from 'vitest';
import { Limiter } from '../../../main/api/limiter.js';
import { SMALL_AOI, UNCOVERED_AOI, startTestSim } from '../../simulator/helpers.js';
import { makeClient, readAll } from './helpers.js';

describe('concurrency limiter', () => {
  it('never runs more than its slots, hands slots back, and lets a queued waiter cancel', async () => {
    const l = new Limiter(2);
    const a = await l.acquire();
    const b = await l.acquire();
    let third = false;
    const c = l.acquire().then((r) => { third = true; return r; });
    const ac = new AbortController();
    const d = l.acquire(ac.signal);
    // Both wait in the queue: the two slots are taken.
    expect([l.active, l.waiting]).toEqual([2, 2]);
    ac.abort();
    // The cancelled waiter settles first, and the other is still waiting then.
    await expect(d).rejects.toMatchObject({ kind: 'cancelled' });
    expect(third).toBe(false);
    expect(l.active).toBe(2);
    a();
    a(); // releasing twice frees one slot only
    const rc = await c;
    expect(third).toBe(true);
    expect(l.active).toBe(2);
    b();
    rc();
    await expect.poll(() => [l.active, l.waiting]).toEqual([0, 0]);
  });
});

describe('bounded by the account limit against the simulator', () => {
  it('40 slow requests never draw a 429: the queue holds them at MaxConcurrentConnections', async () => {
    const t = await startTestSim({ faults: 'slow=0.5,slowms=150', seed: 3 });
    // demo-key-empty allows 4 concurrent requests.
    const c = makeClient(t.url, { key: 'demo-key-empty' });
    expect(c.client.concurrency).toBe(2);
    const r = await c.client.connect();
    expect(r.concurrency).toBe(4);
    const results = await Promise.all(Array.from({ length: 40 }, (_, i) => (i % 2 ? c.client.billingSummary() : c.client.accountSettings())));
    expect(results).toHaveLength(40);
    const statuses = c.attempts.map((a) => a.status);
    expect(statuses.filter((s) => s === 429)).toEqual([]);
    expect(statuses.every((s) => s === 200)).toBe(true);
    await c.close();

    // Control: the same burst without the account's limit does draw 429s from the simulator.
    const storm = makeClient(t.url, { key: 'demo-key-empty', initialConcurrency: 40 });
    const settled = await Promise.allSettled(Array.from({ length: 40 }, () => storm.client.billingSummary(undefined, { retry: false })));
    expect(storm.attempts.filter((a) => a.status === 429).length).toBeGreaterThan(0);
    expect(settled.some((s) => s.status === 'rejected' && (s.reason as { kind: string }).kind === 'rate-limited')).toBe(true);
    await storm.close();
    await t.close();
  });

  it('a download holds its slot until its body has been received (read-ahead is bounded)', async () => {
    const t = await startTestSim();
    const c = makeClient(t.url, { initialConcurrency: 1 });
    const found: any = await c.client.searchAvailable({ Wkt: SMALL_AOI, From: '2026-01-01' });
    const dates: string[] = found.ModelImageDates[0].DatesByGeog[0].Dates;
    // ~30 MB, far more than the few MB the client reads ahead, so the transfer waits for the reader.
    const big = 'POLYGON((13.30 52.42, 13.55 52.42, 13.55 52.58, 13.30 52.58, 13.30 52.42))';
    const file = await c.client.processComposite({ Wkt: big, Date: dates.at(-1)!, Model: 'Stratus2', Resolution: 10 });
    expect(file.kind).toBe('stream');
    // The one slot is the unread body's: the settings request waits in the queue for it.
    const limiter = (c.client as unknown as { limiter: Limiter }).limiter;
    expect([limiter.active, limiter.waiting]).toEqual([1, 0]);
    let settingsDone = false;
    const settings = c.client.accountSettings().then(() => { settingsDone = true; });
    await expect.poll(() => limiter.waiting, { timeout: 10_000 }).toBe(1);
    expect(limiter.active).toBe(1);
    expect(settingsDone).toBe(false);
    if (file.kind === 'stream') await readAll(file.body);
    await settings;
    expect(settingsDone).toBe(true);
    // Cancelling a body also frees the slot.
    const again = await c.client.processComposite({ Wkt: SMALL_AOI, Date: dates.at(-1)!, Model: 'Stratus2', Resolution: 40 });
    if (again.kind === 'stream') await again.body.cancel();
    await c.client.accountSettings();
    await c.close();
    await t.close();
  });
});

describe('flaky service', () => {
  it('with 30 % 5xx and some resets (seeded), every call still succeeds through retry', async () => {
    const t = await startTestSim({ faults: '5xx=0.3,reset=0.05', seed: 42 });
    const c = makeClient(t.url);
    await c.client.connect();
    const calls = Array.from({ length: 30 }, (_, i) => {
      switch (i % 5) {
        case 0: return c.client.accountSettings();
        case 1: return c.client.billingSummary();
        case 2: return c.client.compositeEstimate({ Wkt: UNCOVERED_AOI });
        case 3: return c.client.callOpen('tasking.orders.list', {});
        default: return c.client.searchAvailable({ Wkt: SMALL_AOI, From: '2026-01-01' });
      }
    });
    const results = await Promise.allSettled(calls);
    expect(results.filter((r) => r.status === 'rejected').map((r) => String((r as PromiseRejectedResult).reason))).toEqual([]);
    expect(c.attempts.filter((a) => a.status === 503).length).toBeGreaterThan(3);
    expect(c.delays.length).toBeGreaterThan(3);
    // Full jitter: every wait lies in [0, 250 ms * 2^(n-1)) for attempt n (the simulator sends no Retry-After on 503).
    const waits = c.logs.map((l) => /attempt (\d+) failed .*retrying in (\d+) ms/.exec(l)).filter((m) => m !== null);
    expect(waits.length).toBe(c.delays.length);
    for (const m of waits) {
      const [n, ms] = [Number(m![1]), Number(m![2])];
      expect(ms).toBeGreaterThanOrEqual(0);
      expect(ms).toBeLessThan(Math.min(10_000, 250 * 2 ** (n - 1)));
    }
    await c.close();
    await t.close();
  });
});
