import { fromArrayBuffer } from 'geotiff';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SMALL_AOI, T0, UNCOVERED_AOI, startTestSim, type TestSim } from './helpers.js';

const DAY = 86_400_000;

describe('order, then availability, then download (end to end)', () => {
  let t: TestSim;
  beforeAll(async () => { t = await startTestSim(); });
  afterAll(() => t.close());

  const order = {
    Wkt: UNCOVERED_AOI, Model: 'Stratus2', SatelliteConstellations: ['Sentinel1', 'Sentinel2'],
    StorageMonths: 1, ApiRequests: 0, ImageFrequency: 7, ReferenceDate: '2026-01-01', From: '2026-10-01', To: '2026-11-20',
  };

  it('before ordering, the area has no dates and downloads are refused with 1006', async () => {
    const search = await t.call('POST', '/api/satelliteimages/search/available', { Wkt: UNCOVERED_AOI, From: '2026-10-01', Until: '2026-11-21' });
    expect(search.status).toBe(200);
    expect(search.json.Data.ModelImageDates).toEqual([]);
    const dl = await t.call('POST', '/api/satelliteimages/process/composite', { Wkt: UNCOVERED_AOI, Date: '2026-10-08', Model: 'Stratus2', Resolution: 80 });
    expect(dl.status).toBe(400);
    expect(dl.json.Error.Code).toBe(1006);
  });

  it('estimates, creates, lists and details the order; it moves through the lifecycle', async () => {
    const est = await t.call('POST', '/api/tasking/orders/estimate', order);
    expect(est.status).toBe(200);
    const e = est.json.Data;
    expect(e.ImageDates).toEqual(['2026-10-01', '2026-10-08', '2026-10-15', '2026-10-22', '2026-10-29', '2026-11-05', '2026-11-12', '2026-11-19']);
    expect(e.AreaKm2).toBeGreaterThan(15);
    expect(e.AreaKm2).toBeLessThan(25);
    expect(e.TotalHistoricCost).toBeCloseTo(e.AreaKm2 * e.PricePerKm2 * 8, 0);
    expect(e.RecurringCostsEstimate).toBeNull();
    const balanceBefore = (await t.call('GET', '/api/account/info')).json.Data.EuroBalance;
    const created = await t.call('POST', '/api/tasking/orders', { ...order, TileDeduplication: false });
    expect(created.status).toBe(200);
    const guid = created.json.Data.TaskOrderGuid;
    expect(created.json.Data.OrderingProcessStatus).toBe('Review');
    const balanceAfter = (await t.call('GET', '/api/account/info')).json.Data.EuroBalance;
    expect(balanceBefore - balanceAfter).toBeCloseTo(e.TotalHistoricCost, 1);

    const list = await t.call('GET', '/api/tasking/orders');
    expect(list.json.Data.TaskOrders.map((o: any) => o.TaskOrderGuid)).toContain(guid);
    const details = await t.call('GET', `/api/tasking/orders/details?taskOrderGuid=${guid}`);
    expect(details.status).toBe(200);
    expect(details.json.Data.ImageDates.every((d: any) => d.Available === false)).toBe(true);

    const seen: string[] = [];
    for (let i = 0; i < 5; i++) {
      const d = await t.call('GET', `/api/tasking/orders/details?TaskOrderGuid=${guid}`);
      seen.push(d.json.Data.OrderingProcessStatus);
      t.advance(1000);
    }
    expect(seen).toEqual(['Review', 'Preparing', 'AwaitingSatelliteProducts', 'Processing', 'Completed']);
  });

  it('after processing, search and composite/available see the ordered dates', async () => {
    const search = await t.call('POST', '/api/satelliteimages/search/available', { Wkt: UNCOVERED_AOI, From: '2026-10-01T00:00:00Z', Until: '2026-11-21T00:00:00Z' });
    const groups = search.json.Data.ModelImageDates;
    expect(groups).toHaveLength(1);
    expect(groups[0].Model).toBe('Stratus2');
    expect(groups[0].SatelliteConstellations).toEqual(['Sentinel1', 'Sentinel2']);
    expect(groups[0].DatesByGeog[0].Dates).toContain('2026-10-15');
    expect(groups[0].DatesByGeog[0].Wkt).toMatch(/^POLYGON/);

    const avail = await t.call('POST', '/api/satelliteimages/process/composite/available', { Wkt: UNCOVERED_AOI, Date: '2026-10-15', Model: 'Stratus2', SatelliteConstellations: ['Sentinel1', 'Sentinel2'], EpsgProjection: 32631, Bandnames: 'rgb', UtmDataSelectionMode: 'combined_utm' });
    expect(avail.status).toBe(200);
    expect(avail.json.Data).toMatchObject({ FullyAvailable: true, PartiallyAvailable: false, OrdersCoverPolygon: true, DataAvailableForUser: true, PolygonInDataArea: true });
    const off = await t.call('POST', '/api/satelliteimages/process/composite/available', { Wkt: UNCOVERED_AOI, Date: '2026-10-16', Model: 'Stratus2' });
    expect(off.json.Data).toMatchObject({ FullyAvailable: false, DataAvailableForUser: false, OrdersCoverPolygon: true });
  });

  it('estimates the download as included in the order, then downloads a GeoTIFF for it', async () => {
    const body = { Wkt: UNCOVERED_AOI, Date: '2026-10-15', Model: 'Stratus2', SatelliteConstellations: ['Sentinel1', 'Sentinel2'], Resolution: 40, EpsgProjection: 32631, Bandnames: 'B4,B3,B2,ndvi', DataType: 'INT16' };
    const est = await t.call('POST', '/api/satelliteimages/process/composite/estimate', body);
    expect(est.status).toBe(200);
    expect(est.json.Data).toMatchObject({ IncludedInOrder: true, CreditEstimate: 0, BandCount: 4 });
    const res = await fetch(`${t.url}/api/satelliteimages/process/composite`, { method: 'POST', headers: { 'x-api-key': 'demo-key', 'content-type': 'application/json' }, body: JSON.stringify(body) });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/tiff');
    expect(res.headers.get('content-disposition')).toBe('attachment; filename="composite_20261015_Stratus2_32631_40m.tif"');
    const buf = await res.arrayBuffer();
    expect(Number(res.headers.get('content-length'))).toBe(buf.byteLength);
    const tiff = await fromArrayBuffer(buf);
    const img = await tiff.getImage();
    expect(img.getSamplesPerPixel()).toBe(4);
    expect(img.getResolution()[0]).toBeCloseTo(40, 6);
    expect(img.getGeoKeys()!.ProjectedCSTypeGeoKey).toBe(32631);
    expect(await img.getGDALMetadata()).toMatchObject({ IMAGE_DATE: '20261015', CONSTELLATIONS: 'Sentinel1,Sentinel2' });
    // The second download of the same area is no longer included (ApiRequests 0): it is billed.
    const est2 = await t.call('POST', '/api/satelliteimages/process/composite/estimate', body);
    expect(est2.json.Data.IncludedInOrder).toBe(false);
    expect(est2.json.Data.CreditEstimate).toBeGreaterThan(0);
  });

  it('a date the order has no image for gives 1002', async () => {
    const dl = await t.call('POST', '/api/satelliteimages/process/composite', { Wkt: UNCOVERED_AOI, Date: '2026-10-16', Model: 'Stratus2', Resolution: 80 });
    expect(dl.status).toBe(400);
    expect(dl.json.Error.Code).toBe(1002);
  });
});

describe('the seeded demo account', () => {
  let t: TestSim;
  beforeAll(async () => { t = await startTestSim(); });
  afterAll(() => t.close());

  it('has a completed historical and a running recurring order with imagery', async () => {
    const list = await t.call('GET', '/api/tasking/orders');
    const statuses = list.json.Data.TaskOrders.map((o: any) => [o.BillingCycle, o.OrderingProcessStatus]);
    expect(statuses).toEqual([['OneTime', 'Completed'], ['Monthly', 'UpToDate']]);
    const search = await t.call('POST', '/api/satelliteimages/search/available', { Wkt: SMALL_AOI, From: new Date(T0 - 60 * DAY).toISOString(), Until: null });
    const dates = search.json.Data.ModelImageDates[0].DatesByGeog[0].Dates;
    expect(dates.length).toBeGreaterThan(5);
    expect(dates.every((d: string) => d <= '2026-11-22')).toBe(true);
  });

  it('recurringOnly and getExpired filter the list', async () => {
    const rec = await t.call('GET', '/api/tasking/orders?recurringOnly=true');
    expect(rec.json.Data.TaskOrders.map((o: any) => o.To)).toEqual([null]);
    const rec2 = await t.call('GET', '/api/tasking/orders?RecurringOnly=True');
    expect(rec2.json.Data.TaskOrders).toHaveLength(1);
    const bad = await t.call('GET', '/api/tasking/orders?recurringOnly=maybe');
    expect(bad.status).toBe(400);
    expect(Object.keys(bad.json.Data)).toEqual(['recurringOnly']);
  });

  it('stops a recurring order\'s renewal, refuses to cancel a completed historical order', async () => {
    const orders = (await t.call('GET', '/api/tasking/orders')).json.Data.TaskOrders;
    const recurring = orders.find((o: any) => o.To === null);
    const historical = orders.find((o: any) => o.To !== null);
    const stop = await t.call('DELETE', `/api/tasking/orders/cancel?taskOrderGuid=${recurring.TaskOrderGuid}`);
    expect(stop.status).toBe(200);
    expect(stop.json.Data).toMatchObject({ Result: 'RenewalStopped', EffectiveTo: '2026-11-30' });
    const again = await t.call('DELETE', `/api/tasking/orders/cancel?taskOrderGuid=${recurring.TaskOrderGuid}`);
    expect(again.status).toBe(400);
    const hist = await t.call('DELETE', `/api/tasking/orders/cancel?taskOrderGuid=${historical.TaskOrderGuid}`);
    expect(hist.status).toBe(400);
    expect(hist.json.Data.taskOrderGuid[0]).toMatch(/only be cancelled in Review/);
    const missing = await t.call('DELETE', '/api/tasking/orders/cancel?taskOrderGuid=00000000-0000-4000-8000-000000000000');
    expect(missing.status).toBe(404);
    const noParam = await t.call('DELETE', '/api/tasking/orders/cancel');
    expect(noParam.status).toBe(400);
    expect(noParam.json.Data.taskOrderGuid).toBeDefined();
  });

  it('cancels an order in Review with a full refund', async () => {
    const body = { Wkt: UNCOVERED_AOI, Model: 'Nimbus', SatelliteConstellations: ['Sentinel2L1'], ImageFrequency: 5, ReferenceDate: '2026-11-01', From: '2026-11-01', To: '2026-11-21' };
    await t.call('POST', '/api/tasking/orders/estimate', body);
    const before = (await t.call('GET', '/api/account/info')).json.Data.EuroBalance;
    const created = await t.call('POST', '/api/tasking/orders', body);
    expect(created.status).toBe(200);
    const cancel = await t.call('DELETE', `/api/tasking/orders/cancel?taskOrderGuid=${created.json.Data.TaskOrderGuid}`);
    expect(cancel.json.Data).toMatchObject({ Result: 'Canceled', OrderingProcessStatus: 'Canceled' });
    expect(cancel.json.Data.RefundedAmount).toBeGreaterThan(0);
    const after = (await t.call('GET', '/api/account/info')).json.Data.EuroBalance;
    expect(after).toBeCloseTo(before, 2);
    const hidden = await t.call('GET', '/api/tasking/orders');
    expect(hidden.json.Data.TaskOrders.map((o: any) => o.TaskOrderGuid)).not.toContain(created.json.Data.TaskOrderGuid);
    const shown = await t.call('GET', '/api/tasking/orders?getExpired=true');
    expect(shown.json.Data.TaskOrders.map((o: any) => o.TaskOrderGuid)).toContain(created.json.Data.TaskOrderGuid);
  });
});

describe('availability over several orders', () => {
  let t: TestSim;
  beforeAll(async () => { t = await startTestSim(); });
  afterAll(() => t.close());

  it('two orders cover an AOI together when neither does alone; an order elsewhere counts for nothing', async () => {
    const base = { Model: 'Stratus2', SatelliteConstellations: ['Sentinel1', 'Sentinel2'], StorageMonths: 1, ApiRequests: 0, ImageFrequency: 7, ReferenceDate: '2026-01-01' };
    const west = 'POLYGON((2.00 44.00, 2.04 44.00, 2.04 44.04, 2.00 44.04, 2.00 44.00))';
    const east = 'POLYGON((2.03 44.00, 2.08 44.00, 2.08 44.04, 2.03 44.04, 2.03 44.00))';
    const far = 'POLYGON((9.00 47.00, 9.05 47.00, 9.05 47.04, 9.00 47.04, 9.00 47.00))';
    const whole = 'POLYGON((2.01 44.01, 2.07 44.01, 2.07 44.03, 2.01 44.03, 2.01 44.01))';
    // The west half has dates in October, the east half in November: no date has the whole AOI.
    const guids: string[] = [];
    for (const [Wkt, From, To] of [[west, '2026-10-01', '2026-10-20'], [east, '2026-11-01', '2026-11-20'], [far, '2026-10-01', '2026-11-20']]) {
      expect((await t.call('POST', '/api/tasking/orders/estimate', { ...base, Wkt, From, To })).status).toBe(200);
      const created = await t.call('POST', '/api/tasking/orders', { ...base, Wkt, From, To, TileDeduplication: false });
      expect(created.status, JSON.stringify(created.json)).toBe(200);
      guids.push(created.json.Data.TaskOrderGuid);
    }
    // Through the lifecycle to Completed, as the workflow above.
    for (let i = 0; i < 5; i++) {
      for (const g of guids) await t.call('GET', `/api/tasking/orders/details?taskOrderGuid=${g}`);
      t.advance(1000);
    }
    const ask = async (Wkt: string, Date: string) => (await t.call('POST', '/api/satelliteimages/process/composite/available', { Wkt, Date, Model: 'Stratus2' })).json.Data;
    const october = await ask(whole, '2026-10-08');
    expect(october).toMatchObject({ FullyAvailable: false, PartiallyAvailable: true, OrdersCoverPolygon: true, DataAvailableForUser: true, AllImagesPredicted: true });
    expect(october.AvailableAreaKm2).toBeLessThan(october.RequestedAreaKm2);
    // A part of the AOI that no order covers.
    const beyond = await ask('POLYGON((2.01 44.01, 2.10 44.01, 2.10 44.03, 2.01 44.03, 2.01 44.01))', '2026-10-08');
    expect(beyond).toMatchObject({ OrdersCoverPolygon: false, PartiallyAvailable: true });
    // Only the far order has that date: nothing here.
    const farOnly = await ask(whole, '2026-10-29');
    expect(farOnly).toMatchObject({ DataAvailableForUser: false, OrdersCoverPolygon: true, AvailableAreaKm2: 0 });
  });
});
