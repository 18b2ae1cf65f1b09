import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSim, type TestSim } from './helpers.js';

// Issue 11 item 9: a sliver AOI under the area limit may still span a huge box; the output size is capped.

/** A thin parallelogram from 13°E 50°N to 15.6°E 51.8°N, ~0.04° wide: under 2500 km², its box about 190 x 200 km. */
const SLIVER = 'POLYGON((13 50, 13.04 50, 15.64 51.8, 15.6 51.8, 13 50))';

describe('composite output size', () => {
  let t: TestSim;
  beforeAll(async () => { t = await startTestSim(); });
  afterAll(() => t.close());

  it('refuses a sliver under the area limit (so not "Area too large") whose box gives a file over 1 GiB with a 1004 naming the size', async () => {
    const res = await t.call('POST', '/api/satelliteimages/process/composite', { Wkt: SLIVER, Date: '2026-11-01', Model: 'Stratus2', Resolution: 10, AutomaticOrderCreation: true });
    expect(res.status, JSON.stringify(res.json)).toBe(400);
    expect(res.json.Error.Code).toBe(1004);
    expect(res.json.Error.Message).toMatch(/Output too large: .* at 10 m gives a file of .*(px|GiB).*; at most 1\.00 GiB per request/);
    expect(res.json.Data.Wkt.join(' ')).toMatch(/The output would be/);
  });

  it('the same sliver at 160 m is a small file and passes the size check', async () => {
    const res = await t.call('POST', '/api/satelliteimages/process/composite', { Wkt: SLIVER, Date: '2026-11-01', Model: 'Stratus2', Resolution: 160 });
    expect(res.json?.Error?.Code, JSON.stringify(res.json)).not.toBe(1004);
  });
});
