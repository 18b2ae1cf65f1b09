import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SMALL_AOI, demoDate, startTestSim, type TestSim } from './helpers.js';

describe('auth', () => {
  let t: TestSim;
  beforeAll(async () => { t = await startTestSim(); });
  afterAll(() => t.close());

  it('401 without x-api-key, 401 for an unknown key, 403 for a revoked key', async () => {
    const none = await t.call('GET', '/api/account/info', undefined, null);
    expect(none.status).toBe(401);
    expect(none.json).toMatchObject({ Succeeded: false, Error: { Code: 401 } });
    const unknown = await t.call('GET', '/api/tasking/models', undefined, 'nope');
    expect(unknown.status).toBe(401);
    const revoked = await t.call('GET', '/api/account/info', undefined, 'demo-key-revoked');
    expect(revoked.status).toBe(403);
    expect(revoked.json.Error.Message).toMatch(/revoked/);
  });

  it('each key has its own account and limits', async () => {
    const a = (await t.call('GET', '/api/account/info')).json.Data;
    const b = (await t.call('GET', '/api/account/info', undefined, 'demo-key-empty')).json.Data;
    expect(a.MaxConcurrentConnections).toBe(8);
    expect(b.MaxConcurrentConnections).toBe(4);
    expect(a.TenantId).not.toBe(b.TenantId);
    expect(a.EuroBalance).toBeGreaterThan(0);
    expect(b.EuroBalance).toBe(0);
    expect(a.KeyEnding).toBe('-key');
    const settings = await t.call('GET', '/api/account/settings');
    expect(settings.json.Data.DefaultEpsgProjection).toBe(47000);
  });
});

describe('429 under concurrency', () => {
  let t: TestSim;
  beforeAll(async () => { t = await startTestSim({ faults: 'slow=1,slowms=400' }); });
  afterAll(() => t.close());

  it('answers 429 with Retry-After and Code 1003 beyond MaxConcurrentConnections, per key', async () => {
    const results = await Promise.all(Array.from({ length: 12 }, () => t.call('GET', '/api/tasking/models')));
    const statuses = results.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 200)).toHaveLength(8);
    const limited = results.filter((r) => r.status === 429);
    expect(limited).toHaveLength(4);
    expect(limited[0]!.headers.get('retry-after')).toBe('1');
    expect(limited[0]!.json.Error.Code).toBe(1003);
    // Slots are released: the next request succeeds.
    expect((await t.call('GET', '/api/tasking/models')).status).toBe(200);
  });
});

describe('fault injection', () => {
  it('5xx=1 answers 503 with an envelope', async () => {
    const t = await startTestSim({ faults: '5xx=1' });
    try {
      const r = await t.call('GET', '/api/tasking/models');
      expect(r.status).toBe(503);
      expect(r.json.Succeeded).toBe(false);
      // The specification stays reachable, so a client can still discover the contract.
      expect((await fetch(`${t.url}/api/specification.json`)).status).toBe(200);
    } finally { await t.close(); }
  });

  it('reset=1 drops the connection', async () => {
    const t = await startTestSim({ faults: 'reset=1' });
    try {
      await expect(t.call('GET', '/api/tasking/models')).rejects.toThrow();
    } finally { await t.close(); }
  });

  it('slow=1 delays the first byte', async () => {
    const t = await startTestSim({ faults: 'slow=1,slowms=300' });
    try {
      const start = performance.now();
      const r = await t.call('GET', '/api/tasking/models');
      expect(r.status).toBe(200);
      expect(performance.now() - start).toBeGreaterThanOrEqual(290);
    } finally { await t.close(); }
  });

  it('truncate=1 cuts a binary body short of its Content-Length', async () => {
    const t = await startTestSim({ faults: 'truncate=1' });
    try {
      const res = await fetch(`${t.url}/api/satelliteimages/process/composite`, {
        method: 'POST', headers: { 'x-api-key': 'demo-key', 'content-type': 'application/json' },
        body: JSON.stringify({ Wkt: SMALL_AOI, Date: await demoDate(t), Model: 'Stratus2', Resolution: 20, EpsgProjection: 32633 }),
      });
      if (res.status !== 200) throw new Error(`unexpected ${res.status}: ${await res.text()}`);
      const length = Number(res.headers.get('content-length'));
      expect(length).toBeGreaterThan(0);
      await expect(res.arrayBuffer()).rejects.toThrow();
    } finally { await t.close(); }
  });

  it('rates are seeded: the same seed gives the same sequence', async () => {
    const run = async (seed: number) => {
      const t = await startTestSim({ faults: '5xx=0.5', seed });
      try {
        const out: number[] = [];
        for (let i = 0; i < 20; i++) out.push((await t.call('GET', '/api/tasking/models')).status);
        return out;
      } finally { await t.close(); }
    };
    const a = await run(42);
    expect(await run(42)).toEqual(a);
    expect(a).toContain(503);
    expect(a).toContain(200);
  });

  it('a bad fault spec is refused with the item named', async () => {
    await expect(startTestSim({ faults: '5xx=2' })).rejects.toThrow(/5xx=2/);
    await expect(startTestSim({ faults: 'boom=0.1' })).rejects.toThrow(/boom/);
  });
});
