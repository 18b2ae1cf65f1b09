import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPERATIONS } from '../../simulator/index.js';
import { SMALL_AOI, UNCOVERED_AOI, demoDate, startTestSim, type TestSim } from './helpers.js';

// Error cases that apply to every operation, plus the per-operation ones not
// covered by the workflow, validation and operations suites.

const concrete = (p: string) => p.replace('{year}-{month}', '2026-11');

describe('every operation', () => {
  let t: TestSim;
  beforeAll(async () => { t = await startTestSim(); });
  afterAll(() => t.close());

  it('answers 401 without a key and 403 with a revoked key, as an envelope', async () => {
    for (const op of OPERATIONS) {
      const body = op.body ? {} : undefined;
      const none = await t.call(op.method.toUpperCase(), concrete(op.path), body, null);
      expect(none.status, `${op.method} ${op.path}`).toBe(401);
      expect(none.json).toMatchObject({ Succeeded: false, Data: null });
      const revoked = await t.call(op.method.toUpperCase(), concrete(op.path), body, 'demo-key-revoked');
      expect(revoked.status, `${op.method} ${op.path}`).toBe(403);
    }
  });

  it('answers 400 with Code 992 for an empty body on every POST', async () => {
    for (const op of OPERATIONS.filter((o) => o.method === 'post')) {
      const r = await t.call('POST', op.path, {});
      expect(r.status, op.path).toBe(400);
      expect(r.json.Error.Code, op.path).toBe(992);
      expect(Object.keys(r.json.Data).length, op.path).toBeGreaterThan(0);
    }
  });
});

describe('per-operation error cases', () => {
  let t: TestSim;
  beforeAll(async () => { t = await startTestSim(); });
  afterAll(() => t.close());

  it('composite/estimate: tile GUID or AOI, not both; unknown GUID; a tile estimate', async () => {
    const tile = (await t.call('POST', '/api/tasking/search/tiles', { Wkt: SMALL_AOI })).json.Data.Tiles[0].Guid;
    const both = await t.call('POST', '/api/satelliteimages/process/composite/estimate', { Wkt: SMALL_AOI, TileGuid: tile });
    expect(both.json.Data.TileGuid[0]).toMatch(/not both/);
    const unknown = await t.call('POST', '/api/satelliteimages/process/composite/estimate', { MiniTileGuid: '12345678-1234-4234-8234-123456789012' });
    expect(unknown.json.Data.MiniTileGuid[0]).toMatch(/Unknown tile/);
    const ok = await t.call('POST', '/api/satelliteimages/process/composite/estimate', { TileGuid: tile });
    expect(ok.status).toBe(200);
    expect(ok.json.Data.AreaEstimateKm2).toBeGreaterThan(2000);
    expect(ok.json.Data.BandCount).toBe(4);
  });

  it('geography/composite: Wkt required, From before To', async () => {
    const missing = await t.call('POST', '/api/satelliteimages/geography/composite', { From: '2026-01-01', To: '2026-02-01' });
    expect(missing.json.Data.Wkt[0]).toMatch(/required/);
    const order = await t.call('POST', '/api/satelliteimages/geography/composite', { Wkt: SMALL_AOI, From: '2026-03-01', To: '2026-02-01' });
    expect(order.json.Data.From[0]).toMatch(/after To/);
    const empty = await t.call('POST', '/api/satelliteimages/geography/composite', { Wkt: UNCOVERED_AOI, From: '2026-01-01', To: '2026-11-01' });
    expect(empty.json.Data).toEqual({ Wkt: null, AreaKm2: 0, Dates: [] });
  });

  it('acquisition plans: AOI validated, period order checked', async () => {
    const bad = await t.call('POST', '/api/satelliteproducts/acquisitionplans', { Wkt: 'POINT(1 2)' });
    expect(bad.json.Data.Wkt[0]).toMatch(/Point/);
    const period = await t.call('POST', '/api/satelliteproducts/acquisitionplans', { Wkt: SMALL_AOI, From: '2026-12-10', To: '2026-12-01' });
    expect(period.status).toBe(400);
  });

  it('tile search: AOI validated, MaxResults bounded', async () => {
    const point = await t.call('POST', '/api/tasking/search/tiles', { Wkt: 'POINT(1 2)' });
    expect(point.status).toBe(400);
    expect(point.json.Data.Wkt[0]).toMatch(/Point/);
    for (const MaxResults of [0, 5001, 2.5]) {
      const bad = await t.call('POST', '/api/tasking/search/tiles', { Wkt: SMALL_AOI, MaxResults });
      expect(bad.status, String(MaxResults)).toBe(400);
      expect(Object.keys(bad.json.Data), String(MaxResults)).toEqual(['MaxResults']);
      expect(bad.json.Data.MaxResults[0], String(MaxResults)).toMatch(/\S/);
    }
    // Within the bounds it caps the answer and says so (Berlin, about 150 km²: a few dozen mini-tiles).
    const berlin = 'POLYGON((13.30 52.45, 13.50 52.45, 13.50 52.55, 13.30 52.55, 13.30 52.45))';
    const all = await t.call('POST', '/api/tasking/search/tiles', { Wkt: berlin, MiniTiles: true });
    expect(all.json.Data.Tiles.length).toBeGreaterThan(2);
    expect(all.json.Data.Truncated).toBe(false);
    const two = await t.call('POST', '/api/tasking/search/tiles', { Wkt: berlin, MiniTiles: true, MaxResults: 2 });
    expect(two.status).toBe(200);
    expect(two.json.Data.Tiles).toEqual(all.json.Data.Tiles.slice(0, 2));
    expect(two.json.Data.Truncated).toBe(true);
  });

  it('order details: unknown GUID is 404, a malformed one 400', async () => {
    expect((await t.call('GET', '/api/tasking/orders/details?taskOrderGuid=00000000-0000-4000-8000-000000000001')).status).toBe(404);
    const bad = await t.call('GET', '/api/tasking/orders/details?taskOrderGuid=abc');
    expect(bad.status).toBe(400);
    expect(bad.json.Data.taskOrderGuid[0]).toMatch(/GUID/);
  });

  it('composite/available: single_utm_fully_covered outside the zone is not in the data area', async () => {
    const date = await demoDate(t);
    const r = await t.call('POST', '/api/satelliteimages/process/composite/available', { Wkt: SMALL_AOI, Date: date, Model: 'Stratus2', EpsgProjection: 32632, UtmDataSelectionMode: 'single_utm_fully_covered' });
    expect(r.json.Data).toMatchObject({ PolygonInDataArea: false, FullyAvailable: false, DataAvailableForUser: true });
    const unsupported = await t.call('POST', '/api/satelliteimages/process/composite/available', { Wkt: SMALL_AOI, Date: date, Model: 'Stratus2', EpsgProjection: 2154 });
    expect(unsupported.json.Data.EpsgProjection[0]).toMatch(/2154/);
  });
});
