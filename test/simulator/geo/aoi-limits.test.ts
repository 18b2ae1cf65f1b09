import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_AOI_VERTICES, parseAoi } from '../../../simulator/geo/aoi';
import { startTestSim, type TestSim } from '../helpers.js';
import { coastlineWkt } from '../../fixtures/hostile/aois';

// AOI vertices are capped before the (super-linear) geometry checks.

describe('AOI vertex cap', () => {
  let t: TestSim;
  beforeAll(async () => { t = await startTestSim(); });
  afterAll(() => t.close());

  it('refuses 100k vertices with a 992 naming the count and the limit', async () => {
    const res = await t.call('POST', '/api/satelliteimages/process/composite', { Wkt: coastlineWkt(100_000), Date: '2026-11-01', Model: 'Stratus2', Resolution: 80 });
    expect(res.status).toBe(400);
    expect(res.json.Error.Code).toBe(992);
    expect(res.json.Data.Wkt.join(' ')).toMatch(/The geometry has 100000 vertices; at most 20000 are accepted/);
  });

  it('counts the vertices of every member of a collection together', () => {
    const half = coastlineWkt(MAX_AOI_VERTICES / 2 + 1).replace('POLYGON', '');
    const r = parseAoi({ Wkt: `MULTIPOLYGON(${half}, ${half.replace(/13\.4/g, '14.4')})` }, { required: true });
    expect(r).toEqual({ ok: false, errors: { Wkt: [`The geometry has ${MAX_AOI_VERTICES + 2} vertices; at most ${MAX_AOI_VERTICES} are accepted. Simplify it first.`] } });
  });

  it('accepts a 20k-vertex coastline-like polygon', () => {
    const r = parseAoi({ Wkt: coastlineWkt(MAX_AOI_VERTICES) }, { required: true });
    expect(r.ok, JSON.stringify(r).slice(0, 300)).toBe(true);
  }, 300_000);
});
