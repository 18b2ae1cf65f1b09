import * as turf from '../../main/shared/turf';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SMALL_AOI, UNCOVERED_AOI, demoDate, startTestSim, type TestSim } from './helpers.js';

// Request shapes real clients send (the production service's own client among them), over HTTP.

const ORDER = {
  Model: 'Stratus2', SatelliteConstellations: ['Sentinel1', 'Sentinel2'],
  StorageMonths: 0, ApiRequests: 0, ImageFrequency: 7, ReferenceDate: '2026-01-01', From: '2026-10-01', To: '2026-10-30',
};
/** Geodesic km² of the lon/lat bounding box of a ring. */
const bboxKm2 = (ring: number[][]) => turf.area(turf.bboxPolygon(turf.bbox(turf.polygon([ring])))) / 1e6;
const ringWkt = (ring: number[][]) => `((${ring.map((p) => p.join(' ')).join(', ')}))`;

// About 0.07 km² (billed as 1 km²), and a triangle whose bounding box is twice its area.
const TINY = [[4.80, 45.70], [4.803, 45.70], [4.803, 45.702], [4.80, 45.702], [4.80, 45.70]];
const TRIANGLE = [[4.90, 45.70], [4.95, 45.70], [4.95, 45.74], [4.90, 45.70]];

describe('requests as real clients send them', () => {
  let t: TestSim;
  beforeAll(async () => { t = await startTestSim(); });
  afterAll(() => t.close());

  it('empty lists and nulls are "not given": Wkt with TileGuids [] and MiniTileGuids [] is a polygon order', async () => {
    const body = { ...ORDER, Wkt: UNCOVERED_AOI, GeoJson: null, TileGuids: [], MiniTileGuids: [], Tiles: null, TileGuid: null, MiniTileGuid: null };
    const est = await t.call('POST', '/api/tasking/orders/estimate', body);
    expect(est.status, JSON.stringify(est.json)).toBe(200);
    expect(est.json.Data.Tiles).toBeNull();
    const created = await t.call('POST', '/api/tasking/orders', { ...body, TileDeduplication: null });
    expect(created.status, JSON.stringify(created.json)).toBe(200);
    expect(created.json.Data).toMatchObject({ To: '2026-10-30', Tiles: null });
    const search = await t.call('POST', '/api/satelliteimages/search/available', { Wkt: SMALL_AOI, GeoJson: null, From: '2026-01-01', Until: null, To: null, SatelliteConstellations: [], Model: null });
    expect(search.status).toBe(200);
    expect(search.json.Data.ModelImageDates.length).toBeGreaterThan(0);
  });

  it('To or Until ends a period wherever one is taken', async () => {
    const geoUntil = await t.call('POST', '/api/satelliteimages/geography/composite', { Wkt: SMALL_AOI, From: '2026-01-01', Until: '2026-11-22' });
    expect(geoUntil.status, JSON.stringify(geoUntil.json)).toBe(200);
    const geoTo = await t.call('POST', '/api/satelliteimages/geography/composite', { Wkt: SMALL_AOI, From: '2026-01-01', To: '2026-11-22' });
    expect(geoTo.json.Data).toEqual(geoUntil.json.Data);
    expect(geoUntil.json.Data.Dates.length).toBeGreaterThan(0);
    const none = await t.call('POST', '/api/satelliteimages/geography/composite', { Wkt: SMALL_AOI, From: '2026-01-01' });
    expect(none.status).toBe(400);
    expect(none.json.Data.To).toEqual(['The To field is required.']);
    const backwards = await t.call('POST', '/api/satelliteimages/geography/composite', { Wkt: SMALL_AOI, From: '2026-11-01', Until: '2026-01-01' });
    expect(Object.keys(backwards.json.Data).sort()).toEqual(['From', 'Until']);
    const searchTo = await t.call('POST', '/api/satelliteimages/search/available', { Wkt: SMALL_AOI, From: '2026-01-01', To: '2026-06-30' });
    const searchUntil = await t.call('POST', '/api/satelliteimages/search/available', { Wkt: SMALL_AOI, From: '2026-01-01', Until: '2026-06-30' });
    expect(searchTo.json.Data).toEqual(searchUntil.json.Data);
    const products = await t.call('POST', '/api/satelliteproducts/satellitezones/composite', { Wkt: SMALL_AOI, From: '2026-10-01', Until: '2026-10-10' });
    expect(products.status).toBe(200);
    expect(products.json.Data.Products.every((p: any) => p.Date <= '2026-10-10')).toBe(true);
    const plans = await t.call('POST', '/api/satelliteproducts/acquisitionplans', { Wkt: SMALL_AOI, From: '2026-12-01', Until: '2026-12-05' });
    expect(plans.json.Data.AcquisitionPlans.every((p: any) => p.Date <= '2026-12-05')).toBe(true);
    const order = await t.call('POST', '/api/tasking/orders/estimate', { ...ORDER, To: undefined, Until: '2026-10-30', Wkt: UNCOVERED_AOI });
    expect(order.status).toBe(200);
    expect(order.json.Data.RecurringCostsEstimate).toBeNull();
    expect(order.json.Data.ImageDates.at(-1)).toBe('2026-10-29');
  });

  it('enum values in any case; hyphenated display names stay refused', async () => {
    const est = await t.call('POST', '/api/tasking/orders/estimate', { ...ORDER, Wkt: UNCOVERED_AOI, Model: 'stratus2', SatelliteConstellations: ['sentinel1', 'SENTINEL2'] });
    expect(est.status, JSON.stringify(est.json)).toBe(200);
    expect(est.json.Data).toMatchObject({ Model: 'Stratus2', SatelliteConstellations: ['Sentinel1', 'Sentinel2'] });
    const display = await t.call('POST', '/api/tasking/orders/estimate', { ...ORDER, Wkt: UNCOVERED_AOI, Model: 'Stratus-2' });
    expect(display.status).toBe(400);
    expect(display.json.Data.Model[0]).toMatch(/display names are not accepted.*Stratus2/);
    const models = await t.call('POST', '/api/satelliteimages/search/available', { Wkt: SMALL_AOI, From: '2026-01-01', Model: 'STRATUS2' });
    expect(models.json.Data.ModelImageDates[0].Model).toBe('Stratus2');
    const flags = await t.call('GET', '/api/tasking/orders?recurringOnly=True&getExpired=False');
    expect(flags.status).toBe(200);
    expect(flags.json.Data.TaskOrders.every((o: any) => o.To === null)).toBe(true);
    expect(flags.json.Data.TaskOrders.length).toBeGreaterThan(0);
  });

  it('a composite request with every field present (unused ones null), PixelSelectionMode "Intersect", lower-case model and data type', async () => {
    const date = await demoDate(t);
    const body = {
      Wkt: SMALL_AOI, GeoJson: null, Date: date, Resolution: 80, EpsgProjection: 32633, FileType: 'tif',
      PixelSelectionMode: 'Intersect', DataType: 'int16', UtmDataSelectionMode: 'combined_utm', UtmGridForcePixelResolutionSize: null,
      SatelliteConstellations: ['Sentinel1', 'Sentinel2'], Model: 'stratus2', Bandnames: 'rgb', OldPixelSelectionMode: null,
      AllowPartialImage: null, AutomaticOrderCreation: null, UploadUrl: null,
    };
    const estimate = await t.call('POST', '/api/satelliteimages/process/composite/estimate', { ...body, MiniTileGuid: null, TileGuid: null });
    expect(estimate.status, JSON.stringify(estimate.json)).toBe(200);
    expect(estimate.json.Data).toMatchObject({ AreaEstimateKm2: expect.any(Number), CreditEstimate: expect.any(Number) });
    const res = await fetch(`${t.url}/api/satelliteimages/process/composite`, {
      method: 'POST', headers: { 'x-api-key': 'demo-key', 'content-type': 'application/json' }, body: JSON.stringify(body),
    });
    expect(res.status, await res.clone().text()).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/tiff');
    expect(res.headers.get('content-disposition')).toMatch(/filename=".*Stratus2.*\.tif"/);
    expect((await res.arrayBuffer()).byteLength).toBeGreaterThan(100);
    const contained = await t.call('POST', '/api/satelliteimages/process/composite', { ...body, PixelSelectionMode: 'CONTAINED', DataType: 'Int16x' });
    expect(contained.status).toBe(400);
    expect(Object.keys(contained.json.Data)).toEqual(['DataType']);
  });

  it('Tiles (the production client\'s field) holds tile or mini-tile GUIDs', async () => {
    const tiles = (await t.call('POST', '/api/tasking/search/tiles', { Wkt: UNCOVERED_AOI })).json.Data.Tiles;
    const minis = (await t.call('POST', '/api/tasking/search/tiles', { Wkt: UNCOVERED_AOI, MiniTiles: true })).json.Data.Tiles;
    const viaTiles = await t.call('POST', '/api/tasking/orders/estimate', { ...ORDER, Wkt: null, TileGuids: [], Tiles: [tiles[0].Guid] });
    const viaTileGuids = await t.call('POST', '/api/tasking/orders/estimate', { ...ORDER, TileGuids: [tiles[0].Guid] });
    expect(viaTiles.status, JSON.stringify(viaTiles.json)).toBe(200);
    expect(viaTiles.json.Data.AreaKm2).toBe(viaTileGuids.json.Data.AreaKm2);
    expect(viaTiles.json.Data.Tiles).toEqual([tiles[0].Guid]);
    const mini = await t.call('POST', '/api/tasking/orders/estimate', { ...ORDER, Tiles: [minis[0].Guid, minis[1].Guid] });
    expect(mini.status).toBe(200);
    expect(mini.json.Data.AreaKm2).toBeLessThan(25);
    const created = await t.call('POST', '/api/tasking/orders', { ...ORDER, Tiles: [minis[0].Guid, minis[1].Guid] });
    expect(created.json.Data.MiniTiles).toEqual([minis[0].Guid, minis[1].Guid]);
    const mixed = await t.call('POST', '/api/tasking/orders/estimate', { ...ORDER, Tiles: [tiles[0].Guid, minis[0].Guid] });
    expect(mixed.status).toBe(400);
    expect(mixed.json.Data.Tiles[0]).toMatch(/mixes/);
  });

  it('order AOIs as GEOMETRYCOLLECTION, MULTIPOLYGON or POLYGON: each polygon one AOI, billed by its bounding box, at least 1 km²', async () => {
    const expected = { billed: Math.max(bboxKm2(TINY), 1) + Math.max(bboxKm2(TRIANGLE), 1), before: bboxKm2(TINY) + bboxKm2(TRIANGLE) };
    const collection = `GEOMETRYCOLLECTION(POLYGON${ringWkt(TINY)}, POLYGON${ringWkt(TRIANGLE)})`;
    const multi = `MULTIPOLYGON(${ringWkt(TINY)}, ${ringWkt(TRIANGLE)})`;
    const nested = `GEOMETRYCOLLECTION(MULTIPOLYGON(${ringWkt(TINY)}), POLYGON${ringWkt(TRIANGLE)})`;
    const geojson = { type: 'GeometryCollection', geometries: [{ type: 'Polygon', coordinates: [TINY] }, { type: 'Polygon', coordinates: [TRIANGLE] }] };
    for (const aoi of [{ Wkt: collection }, { Wkt: multi }, { Wkt: nested }, { GeoJson: geojson }]) {
      const est = await t.call('POST', '/api/tasking/orders/estimate', { ...ORDER, ...aoi });
      expect(est.status, JSON.stringify(est.json)).toBe(200);
      expect(est.json.Data.AreaKm2).toBeCloseTo(expected.billed, 2);
      expect(est.json.Data.AreaKm2BeforeMinimum1Km2PerAoi).toBeCloseTo(expected.before, 3);
      expect(est.json.Data.AreasOfInterestWkt).toMatch(/^GEOMETRYCOLLECTION \(POLYGON .*, POLYGON .*\)$/);
      expect(est.json.Data.Costs.CurrentMonthOrderCostEstimate).toBeCloseTo(est.json.Data.AreaKm2 * est.json.Data.PricePerKm2 * est.json.Data.ImageDates.length, 1);
    }
    // A single triangle is billed by its bounding box, twice its own area.
    const one = await t.call('POST', '/api/tasking/orders/estimate', { ...ORDER, Wkt: `POLYGON${ringWkt(TRIANGLE)}` });
    expect(one.json.Data.AreaKm2BeforeMinimum1Km2PerAoi).toBeCloseTo(bboxKm2(TRIANGLE), 3);
    expect(one.json.Data.AreaKm2BeforeMinimum1Km2PerAoi).toBeGreaterThan(1.9 * turf.area(turf.polygon([TRIANGLE])) / 1e6);
    // Members may overlap; each is still one AOI. The created order covers their union.
    await t.call('POST', '/api/tasking/orders/estimate', { ...ORDER, Wkt: collection });
    const created = await t.call('POST', '/api/tasking/orders', { ...ORDER, Wkt: collection });
    expect(created.status, JSON.stringify(created.json)).toBe(200);
    expect(created.json.Data.Wkt).toMatch(/^MULTIPOLYGON/);
    const badMember = await t.call('POST', '/api/tasking/orders/estimate', { ...ORDER, Wkt: 'GEOMETRYCOLLECTION(POINT(1 2), POLYGON((0 0, 1 0, 1 1, 0 0)))' });
    expect(badMember.status).toBe(400);
    expect(badMember.json.Data.Wkt[0]).toMatch(/Geometry 1 of the collection.*Point/);
    // Composite downloads still take polygons only.
    const composite = await t.call('POST', '/api/satelliteimages/process/composite/estimate', { Wkt: collection });
    expect(composite.status).toBe(400);
  });

  it('every envelope has Data, Succeeded and Error; Error is null on success and Data null on an auth failure', async () => {
    const okRes = await t.call('GET', '/api/tasking/models');
    expect(okRes.json).toMatchObject({ Succeeded: true, Error: null });
    const denied = await t.call('GET', '/api/apikey/info', undefined, 'nope');
    expect(denied.status).toBe(401);
    expect(denied.json).toEqual({ Data: null, Succeeded: false, Error: { Message: expect.any(String), Code: expect.any(Number) } });
    const info = await t.call('GET', '/api/apikey/info');
    expect(info.json.Data).toMatchObject({
      Key: 'demo-key', CreditAmount: expect.any(Number), EuroCreditAmount: expect.any(Number), CreditLimit: 0, EuroCreditLimit: 0,
      ContactInfo: expect.any(String), Email: 'analyst@example.com', MaxConcurrentConnections: 8, MaxCompositeAreaKm2: 2500, MaxTotalBands: 12,
      CurrentMonthCosts: expect.any(Number), NextMonthCosts: expect.any(Number),
    });
    expect(Number.isInteger(info.json.Data.CreditAmount)).toBe(true);
    expect((await t.call('GET', '/api/account/info')).json.Data).toEqual(info.json.Data);
  });
});
