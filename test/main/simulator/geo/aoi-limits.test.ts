import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_AOI_VERTICES, parseAoi } from '../../../../main/simulator/geo/aoi';
import { startTestSim, type TestSim } from '../helpers.js';

// Issue 11 item 4: AOI vertices are capped before the (super-linear) geometry checks.

/** A simple (non-crossing) coastline-like ring of `n` vertices around 13.4°E 52.5°N: a star-shaped wobble. */
function coastline(n: number): string {
  const pts: string[] = [];
  for (let i = 0; i < n - 1; i++) {
    const t = (2 * Math.PI * i) / (n - 1);
    const r = 0.05 * (1 + 0.2 * Math.sin(7 * t) + 0.05 * Math.sin(131 * t) + 0.02 * ((i * 7919) % 13) / 13);
    pts.push(`${(13.4 + r * Math.cos(t)).toFixed(9)} ${(52.5 + r * Math.sin(t)).toFixed(9)}`);
  }
  pts.push(pts[0]!);
  return `POLYGON((${pts.join(', ')}))`;
}

describe('AOI vertex cap', () => {
  let t: TestSim;
  beforeAll(async () => { t = await startTestSim(); });
  afterAll(() => t.close());

  it('refuses 100k vertices with a 992 naming the count and the limit', async () => {
    const res = await t.call('POST', '/api/satelliteimages/process/composite', { Wkt: coastline(100_000), Date: '2026-11-01', Model: 'Stratus2', Resolution: 80 });
    expect(res.status).toBe(400);
    expect(res.json.Error.Code).toBe(992);
    expect(res.json.Data.Wkt.join(' ')).toMatch(/The geometry has 100000 vertices; at most 20000 are accepted/);
  });

  it('counts the vertices of every member of a collection together', () => {
    const half = coastline(MAX_AOI_VERTICES / 2 + 1).replace('POLYGON', '');
    const r = parseAoi({ Wkt: `MULTIPOLYGON(${half}, ${half.replace(/13\.4/g, '14.4')})` }, { required: true });
    expect(r).toEqual({ ok: false, errors: { Wkt: [`The geometry has ${MAX_AOI_VERTICES + 2} vertices; at most ${MAX_AOI_VERTICES} are accepted. Simplify it first.`] } });
  });

  it('accepts a 20k-vertex coastline-like polygon', () => {
    const r = parseAoi({ Wkt: coastline(MAX_AOI_VERTICES) }, { required: true });
    expect(r.ok, JSON.stringify(r).slice(0, 300)).toBe(true);
  }, 300_000);
});
