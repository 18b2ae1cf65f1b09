import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SLIVER_WKT } from '../fixtures/hostile/aois';
import { startTestSim, type TestSim } from './helpers.js';

// A sliver AOI under the area limit may still span a huge box; the output size is capped.

const SLIVER = SLIVER_WKT;

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
