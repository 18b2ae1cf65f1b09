import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SMALL_AOI, postBytes, startTestSim, type TestSim } from './helpers.js';

const GEOJSON = { type: 'Polygon', coordinates: [[[13.4, 52.5], [13.43, 52.5], [13.43, 52.52], [13.4, 52.52], [13.4, 52.5]]] };
const composite = (over: Record<string, unknown>) => ({ Wkt: SMALL_AOI, Date: '2026-11-01', Model: 'Stratus2', Resolution: 80, ...over });
const order = (over: Record<string, unknown>) => ({
  Wkt: SMALL_AOI, Model: 'Stratus2', SatelliteConstellations: ['Sentinel1', 'Sentinel2'], StorageMonths: 0, ApiRequests: 0,
  ImageFrequency: 5, ReferenceDate: '2026-01-01', From: '2026-09-01', To: '2026-10-01', ...over,
});

describe('validation: 400, Code 992, Data = {property: [reasons]}', () => {
  let t: TestSim;
  beforeAll(async () => { t = await startTestSim(); });
  afterAll(() => t.close());

  async function expect992(path: string, body: unknown, property: string, reason: RegExp) {
    const res = await t.call('POST', path, body);
    expect(res.status, JSON.stringify(res.json)).toBe(400);
    expect(res.json.Succeeded).toBe(false);
    expect(res.json.Error.Code).toBe(992);
    expect(res.json.Error.Message).toMatch(/validation/i);
    expect(res.json.Data[property], JSON.stringify(res.json.Data)).toBeDefined();
    expect(res.json.Data[property].join(' ')).toMatch(reason);
    return res.json.Data;
  }
  const P = '/api/satelliteimages/process/composite';
  const A = '/api/satelliteimages/process/composite/available';
  const E = '/api/tasking/orders/estimate';

  it('composite/estimate: a Date that is given must be a date (an empty one is a 400 naming Date, not a 500)', async () => {
    const CE = '/api/satelliteimages/process/composite/estimate';
    await expect992(CE, { Wkt: SMALL_AOI, Date: '', Model: 'Stratus2' }, 'Date', /date/i);
    await expect992(CE, { Wkt: SMALL_AOI, Date: 'soon', Model: 'Stratus2' }, 'Date', /date/i);
    expect((await t.call('POST', CE, { Wkt: SMALL_AOI, Date: null, Model: 'Stratus2' })).status).toBe(200);
  });
  it('a body past 4 MiB is refused with a 992 the client reads, not a reset, however fast it sends', async () => {
    const big = Buffer.from(JSON.stringify({ ...composite({}), Notes: 'x'.repeat(10 * 1024 * 1024) }));
    for (let i = 0; i < 4; i++) {
      // At once, and as a slow client does, a piece at a time (still sending when the limit is reached).
      const res = await postBytes(`${t.url}${A}`, { 'content-type': 'application/json', 'x-api-key': 'demo-key' }, big, i % 2 ? 256 * 1024 : undefined);
      expect(res.status).toBe(400);
      const json = JSON.parse(res.body);
      expect(json.Error.Code).toBe(992);
      expect(json.Data.Body.join(' ')).toMatch(/larger than 4 MiB/);
    }
    // The connection's next request is served as usual.
    expect((await t.call('POST', A, composite({}))).status).toBe(200);
  });
  it('both Wkt and GeoJson', async () => {
    const data = await expect992(P, composite({ GeoJson: GEOJSON }), 'Wkt', /not both/i);
    expect(data.GeoJson.join(' ')).toMatch(/not both/i);
  });
  it('neither Wkt nor GeoJson where one is required', async () => {
    await expect992(P, composite({ Wkt: undefined }), 'Wkt', /required/i);
    await expect992('/api/satelliteimages/search/available', { From: '2026-01-01' }, 'Wkt', /required/i);
  });
  it('unparsable WKT and GeoJSON', async () => {
    await expect992(P, composite({ Wkt: 'POLYGON((13 52, 14 52' }), 'Wkt', /valid WKT|parse/i);
    await expect992(P, composite({ Wkt: undefined, GeoJson: { type: 'Polygon', coordinates: 'nope' } }), 'GeoJson', /./);
  });
  it('a non-polygon', async () => {
    await expect992(P, composite({ Wkt: 'LINESTRING(13 52, 14 53)' }), 'Wkt', /LineString/i);
    await expect992(P, composite({ Wkt: undefined, GeoJson: { type: 'Point', coordinates: [13, 52] } }), 'GeoJson', /Point/i);
  });
  it('an unclosed ring', async () => {
    await expect992(P, composite({ Wkt: 'POLYGON((13.4 52.5, 13.43 52.5, 13.43 52.52, 13.4 52.52))' }), 'Wkt', /not closed/i);
  });
  it('Resolution not in the allowed set', async () => {
    await expect992(P, composite({ Resolution: 15 }), 'Resolution', /10, 20, 40, 80, 160, 320, 640, 1280/);
  });
  it('unknown PixelSelectionMode, DataType or UtmDataSelectionMode', async () => {
    await expect992(P, composite({ PixelSelectionMode: 'touch' }), 'PixelSelectionMode', /intersect|contained/);
    await expect992(P, composite({ DataType: 'FLOAT32' }), 'DataType', /INT16|UINT8/);
    await expect992(P, composite({ UtmDataSelectionMode: 'best' }), 'UtmDataSelectionMode', /combined_utm/);
  });
  it('a Bandnames expression that mixes rgb/all with bands, or names unknown bands', async () => {
    await expect992(P, composite({ Bandnames: 'rgb,B8' }), 'Bandnames', /rgb/i);
    await expect992(P, composite({ Bandnames: 'all,ndvi' }), 'Bandnames', /all/i);
    await expect992(P, composite({ Bandnames: 'B4,B13' }), 'Bandnames', /B13/);
    await expect992(A, { Wkt: SMALL_AOI, Date: '2026-11-01', Model: 'Stratus2', Bandnames: '[B8_B99]' }, 'Bandnames', /B99/);
  });
  it('an unknown constellation', async () => {
    await expect992(P, composite({ SatelliteConstellations: ['Sentinel1', 'Sentinel2', 'Sentinel9'] }), 'SatelliteConstellations', /Sentinel9/);
  });
  it('a display-name model, with the enum value to use', async () => {
    await expect992(P, composite({ Model: 'Stratus-2' }), 'Model', /Stratus2/);
    await expect992(E, order({ Model: 'Stratus-2' }), 'Model', /display name.*'Stratus2'/);
  });
  it('a required constellation missing for the model', async () => {
    await expect992(E, order({ SatelliteConstellations: ['Sentinel2'] }), 'SatelliteConstellations', /requires constellation 'Sentinel1'/);
  });
  it('an optional constellation that the model does not support', async () => {
    await expect992(E, order({ Model: 'Stratus3', SatelliteConstellations: ['Sentinel1', 'Sentinel2', 'Landsat89', 'Sentinel3OLCI'] }), 'SatelliteConstellations', /not supported by model Stratus3/);
  });
  it('From after To', async () => {
    const data = await expect992(E, order({ From: '2026-10-02', To: '2026-10-01' }), 'From', /after/);
    expect(data.To.join(' ')).toMatch(/before From/);
    await expect992('/api/satelliteimages/search/available', { Wkt: SMALL_AOI, From: '2026-10-02', Until: '2026-10-01' }, 'From', /after Until/);
  });
  it('ImageFrequency out of range', async () => {
    await expect992(E, order({ ImageFrequency: 8 }), 'ImageFrequency', /between 1 and 7/);
    await expect992(E, order({ ImageFrequency: 0 }), 'ImageFrequency', /between 1 and 7/);
  });
  it('a create body that differs from the last estimated body for that key, naming the fields', async () => {
    const est = await t.call('POST', E, order({}));
    expect(est.status).toBe(200);
    const data = await expect992('/api/tasking/orders', order({ ImageFrequency: 6 }), 'ImageFrequency', /Differs from the last estimated order/);
    expect(Object.keys(data)).toEqual(['ImageFrequency']);
    // Another key's estimate does not count for this key.
    const other = await t.call('POST', '/api/tasking/orders', order({}), 'demo-key-empty');
    expect(other.status).toBe(400);
    expect(Object.keys(other.json.Data)).toEqual(['Estimate']);
  });
  it('a missing required field is named', async () => {
    await expect992(P, composite({ Model: undefined }), 'Model', /required/);
    await expect992(E, order({ ReferenceDate: undefined }), 'ReferenceDate', /required/);
  });
  it('bad dates, bad JSON, wrong content type', async () => {
    await expect992(P, composite({ Date: '2026-02-30' }), 'Date', /valid/);
    await expect992(E, order({ From: '01/09/2026' }), 'From', /YYYY-MM-DD/);
    const bad = await t.call('POST', P, '{"Wkt": ');
    expect(bad.status).toBe(400);
    expect(bad.json.Data.Body[0]).toMatch(/not valid JSON/);
    const ct = await t.call('POST', P, JSON.stringify(composite({})), 'demo-key', { 'content-type': 'text/plain' });
    expect(ct.status).toBe(415);
  });
  it('property names are matched case-insensitively, like the production service', async () => {
    const res = await t.call('POST', A, { wkt: SMALL_AOI, date: '2026-11-01', model: 'Stratus2' });
    expect(res.status).toBe(200);
    expect(res.json.Succeeded).toBe(true);
  });
  it('billing months: 400 for month 13, 404 for a malformed path', async () => {
    const m13 = await t.call('GET', '/api/billing/orders/2026-13');
    expect(m13.status).toBe(400);
    expect(m13.json.Error.Code).toBe(992);
    expect(m13.json.Data.month[0]).toMatch(/1 and 12/);
    const m0 = await t.call('GET', '/api/billing/transactions/2026-0');
    expect(m0.status).toBe(400);
    const y = await t.call('GET', '/api/billing/transactions/1999-05');
    expect(y.json.Data.year).toBeDefined();
    for (const p of ['/api/billing/orders/2026-ab', '/api/billing/orders/202611', '/api/billing/transactions/2026-11-01', '/api/nope']) {
      const r = await t.call('GET', p);
      expect(r.status, p).toBe(404);
      expect(r.json.Succeeded).toBe(false);
    }
  });
  it('a wrong method on a known path is 405', async () => {
    const r = await t.call('GET', '/api/tasking/orders/estimate');
    expect(r.status).toBe(405);
  });
});

describe('other service codes', () => {
  let t: TestSim;
  beforeAll(async () => { t = await startTestSim(); });
  afterAll(() => t.close());

  it('1004 area too large (over MaxCompositeAreaKm2)', async () => {
    const big = 'POLYGON((10 50, 11 50, 11 51, 10 51, 10 50))';
    const r = await t.call('POST', '/api/satelliteimages/process/composite', composite({ Wkt: big }));
    expect(r.status).toBe(400);
    expect(r.json.Error.Code).toBe(1004);
    expect(r.json.Error.Message).toMatch(/MaxCompositeAreaKm2/);
  });
  it('1005 too many bands (over MaxTotalBands)', async () => {
    const r = await t.call('POST', '/api/satelliteimages/process/composite', composite({ Bandnames: 'all,ndvi,[B11_B8],[B3_B8]' }));
    expect(r.json.Error?.Code, JSON.stringify(r.json)).toBe(992); // "all" cannot be combined
    const r2 = await t.call('POST', '/api/satelliteimages/process/composite', composite({ Bandnames: 'B2,B3,B4,B5,B6,B7,B8,B8A,B11,B12,ndvi,[B11_B8],[B3_B8]' }));
    expect(r2.status).toBe(400);
    expect(r2.json.Error.Code).toBe(1005);
  });
  it('994 no credit for the empty key, for downloads and orders', async () => {
    const dl = await t.call('POST', '/api/satelliteimages/process/composite', composite({}), 'demo-key-empty');
    expect(dl.status).toBe(400);
    expect(dl.json.Error.Code).toBe(994);
    const body = order({});
    await t.call('POST', '/api/tasking/orders/estimate', body, 'demo-key-empty');
    const created = await t.call('POST', '/api/tasking/orders', body, 'demo-key-empty');
    expect(created.status).toBe(400);
    expect(created.json.Error.Code).toBe(994);
  });
});
