import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError } from '../../../main/api/errors.js';
import { toIpcError } from '../../../main/ipc/errors.js';
import { SMALL_AOI, UNCOVERED_AOI, listRows, startTestSim, type TestSim } from '../../simulator/helpers.js';
import { makeClient, readAll, type TestClient } from './helpers.js';

async function failure(p: Promise<unknown>): Promise<ApiError> {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(ApiError);
    return e as ApiError;
  }
  throw new Error('expected the call to fail');
}

const STRATUS = { Model: 'Stratus2', SatelliteConstellations: ['Sentinel1', 'Sentinel2'] };

describe('typed operations against the simulator', () => {
  let t: TestSim;
  let c: TestClient;
  let date: string;

  beforeAll(async () => {
    t = await startTestSim();
    c = makeClient(t.url);
    await c.client.connect();
    const found: any = await c.client.searchAvailable({ Wkt: SMALL_AOI, From: '2026-01-01', Until: null });
    const dates: string[] = found.ModelImageDates[0].DatesByGeog[0].Dates;
    date = dates[dates.length - 1]!;
  });
  afterAll(async () => { await c.close(); await t.close(); });

  it('connect reads the spec, the account limits and the models', async () => {
    const r = await c.client.connect();
    expect(r.spec).toMatchObject({ version: '1.0.0', source: 'network' });
    expect(r.contractNotice).toBeNull();
    expect(r.account.MaxConcurrentConnections).toBe(8);
    expect(r.concurrency).toBe(8);
    expect(r.models.map((m) => m.Model)).toContain('Stratus2');
    expect(c.client.connectionState).toBe('online');
  });

  it('account info and settings; a revoked or unknown key is an auth error', async () => {
    expect((await c.client.accountInfo()).KeyEnding).toBe('-key');
    expect(await c.client.accountSettings()).toHaveProperty('DefaultModel');
    const revoked = makeClient(t.url, { key: 'demo-key-revoked' });
    const e = await failure(revoked.client.accountSettings());
    expect(e).toMatchObject({ kind: 'auth', status: 403 });
    const unknown = makeClient(t.url, { key: 'no-such-key' });
    expect(await failure(unknown.client.accountInfo())).toMatchObject({ kind: 'auth', status: 401 });
    expect(unknown.attempts).toHaveLength(1);
    expect(toIpcError(e).kind).toBe('auth');
    await revoked.close();
    await unknown.close();
  });

  it('billing summary, orders and transactions of a month; bad months are refused', async () => {
    expect(await c.client.billingSummary()).toHaveProperty('EuroBalance');
    const orders: any = await c.client.billingOrders({ year: 2026, month: 11 });
    expect(orders).toMatchObject({ Year: 2026, Month: 11 });
    const tx: any = await c.client.billingTransactions({ year: 2026, month: 6 });
    expect(Array.isArray(tx.Transactions)).toBe(true);
    // Client side: not an integer.
    const local = await failure(c.client.billingOrders({ year: 2026.5, month: 1 }));
    expect(local.kind).toBe('validation');
    expect(Object.keys(local.fields!)).toEqual(['year']);
    // Service side: the range is the service's call (not shown in the contract).
    const remote = await failure(c.client.billingTransactions({ year: 2026, month: 13 }));
    expect(remote).toMatchObject({ kind: 'validation', status: 400, code: 992 });
    expect(Object.keys(remote.fields!)).toEqual(['month']);
    const bad = makeClient(t.url, { key: 'nope' });
    expect((await failure(bad.client.billingSummary())).kind).toBe('auth');
    await bad.close();
  });

  it('redeems a voucher through the spec-built body; a second redeem is refused with the field named', async () => {
    const fresh = makeClient(t.url);
    const r: any = await fresh.client.redeemVoucher({ VoucherCode: 'SWATH-DEMO-50' });
    expect(r.CreditAdded).toBe(50);
    const again = await failure(fresh.client.redeemVoucher({ VoucherCode: 'SWATH-DEMO-50' }));
    expect(again).toMatchObject({ kind: 'invalid', status: 400, code: 993 });
    expect(again.fields!.VoucherCode![0]).toMatch(/already redeemed/);
    expect(toIpcError(again)).toMatchObject({ kind: 'validation', fields: { VoucherCode: [expect.any(String)] } });
    // Never retried behind the user's back, even on a transient error: one attempt per call.
    expect(fresh.attempts.filter((a) => a.operation.includes('vouchers')).length).toBe(2);
    await fresh.close();
  });

  it('search/available sends Until; the service names Until in its period error', async () => {
    const r: any = await c.client.searchAvailable({ Wkt: SMALL_AOI, From: '2026-08-01', Until: '2026-10-01' });
    const dates: string[] = r.ModelImageDates[0].DatesByGeog[0].Dates;
    expect(dates.length).toBeGreaterThan(0);
    for (const d of dates) expect(d >= '2026-08-01' && d <= '2026-10-01').toBe(true);
    const e = await failure(c.client.searchAvailable({ Wkt: SMALL_AOI, From: '2026-05-01', Until: '2026-03-01' }, undefined, { validate: false }));
    expect(Object.keys(e.fields!).sort()).toEqual(['From', 'Until']);
  });

  it('the deprecated geography/composite works and is marked deprecated', async () => {
    const r: any = await c.client.geographyComposite({ Wkt: SMALL_AOI, From: '2026-01-01', To: '2026-11-01' });
    expect(r.Dates.length).toBeGreaterThan(0);
    const info = c.client.operations().find((o) => o.key === 'geographyComposite')!;
    expect(info).toMatchObject({ deprecated: true, inSpec: true, method: 'POST' });
    expect(c.client.openOperations().find((o) => o.key === 'satelliteImages.geographyComposite')!.deprecated).toBe(true);
    // The period's field names come from the specification: a missing one is caught before sending.
    const e = await failure(c.client.geographyComposite({ Wkt: SMALL_AOI, From: '2026-01-01' }));
    expect(e.kind).toBe('validation');
    expect(Object.keys(e.fields!)).toEqual(['To']);
  });

  it('composite/available and composite/estimate with one shared settings object', async () => {
    const settings = { Wkt: SMALL_AOI, Date: date, ...STRATUS, EpsgProjection: 47000, Bandnames: 'B4,B3,B2,ndvi', Resolution: 20 };
    const a: any = await c.client.compositeAvailable(settings);
    expect(a.FullyAvailable).toBe(true);
    const est: any = await c.client.compositeEstimate(settings);
    expect(est).toMatchObject({ BandCount: 4 });
    const e = await failure(c.client.compositeAvailable({ ...settings, Model: 'Stratus-2' }));
    expect(e.fields!.Model![0]).toMatch(/use 'Stratus2'/);
    const both = await failure(c.client.compositeEstimate({ Wkt: SMALL_AOI, GeoJson: { type: 'Polygon', coordinates: [] } }));
    expect(Object.keys(both.fields!).sort()).toEqual(['GeoJson', 'Wkt']);
  });

  it('process/composite streams a GeoTIFF with its Content-Disposition name', async () => {
    const r = await c.client.processComposite({ Wkt: SMALL_AOI, Date: date, ...STRATUS, Resolution: 40 });
    expect(r.kind).toBe('stream');
    if (r.kind !== 'stream') return;
    expect(r.fileName).toMatch(/^composite_\d{8}_Stratus2_\d+_40m\.tif$/);
    const bytes = await readAll(r.body);
    expect(bytes.length).toBe(r.contentLength);
    expect(bytes.subarray(0, 4).toString('latin1')).toMatch(/^(II\*\0|II\+\0|MM\0\*)/);
  });

  it('process/composite answers uploaded when UploadUrl is set', async () => {
    let received = 0;
    const receiver = http.createServer((req, res) => { req.on('data', (b: Buffer) => { received += b.length; }); req.on('end', () => res.end()); });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', () => r()));
    const port = (receiver.address() as AddressInfo).port;
    const r = await c.client.processComposite({ Wkt: SMALL_AOI, Date: date, ...STRATUS, Resolution: 80, UploadUrl: `http://127.0.0.1:${port}/x.tif` });
    expect(r).toMatchObject({ kind: 'uploaded', status: 201 });
    expect(received).toBeGreaterThan(1000);
    receiver.close();
  });

  it('process/composite errors: coverage, credit and account limits are classified', async () => {
    const coverage = await failure(c.client.processComposite({ Wkt: UNCOVERED_AOI, Date: date, ...STRATUS, Resolution: 40 }));
    expect(coverage).toMatchObject({ kind: 'coverage', code: 1006, status: 400 });
    const empty = makeClient(t.url, { key: 'demo-key-empty' });
    const limit = await failure(empty.client.processComposite({ Wkt: SMALL_AOI, Date: date, ...STRATUS, Bandnames: 'all' }));
    expect(limit).toMatchObject({ kind: 'limit', code: 1005 });
    const credit = await failure(empty.client.processComposite({ Wkt: SMALL_AOI, Date: date, ...STRATUS }));
    expect(credit).toMatchObject({ kind: 'credit', code: 994 });
    expect(toIpcError(credit)).toMatchObject({ kind: 'validation', message: expect.stringMatching(/Not enough credit/) });
    await empty.close();
    // Client-side: Resolution outside the set never reaches the service.
    const before = c.attempts.length;
    const res = await failure(c.client.processComposite({ Wkt: SMALL_AOI, Date: date, ...STRATUS, Resolution: 15 }));
    expect(res.fields).toEqual({ Resolution: [expect.stringMatching(/one of 10, 20, 40/)] });
    expect(c.attempts.length).toBe(before);
  });

  it('process/minitile streams; process/tile reports coverage and wrong GUID kinds', async () => {
    const tiles: any = await c.client.callOpen('tasking.searchTiles', { body: { Wkt: SMALL_AOI, MiniTiles: true } });
    const mini = tiles.Tiles[0];
    const r = await c.client.processMiniTile({ MiniTileGuid: mini.Guid, Date: date, ...STRATUS, Level: null, Harmonize: null, ClipReflectance: null });
    expect(r.kind).toBe('stream');
    if (r.kind === 'stream') {
      expect(r.fileName).toContain(mini.Guid);
      expect((await readAll(r.body)).length).toBeGreaterThan(1000);
    }
    const big: any = await c.client.callOpen('tasking.searchTiles', { body: { Wkt: UNCOVERED_AOI } });
    const e = await failure(c.client.processTile({ TileGuid: big.Tiles[0].Guid, Date: date, ...STRATUS }));
    expect(e).toMatchObject({ kind: 'coverage', code: 1006 });
    const wrong = await failure(c.client.processTile({ TileGuid: mini.Guid, Date: date, ...STRATUS }));
    expect(wrong.kind).toBe('validation');
    expect(wrong.fields!.TileGuid![0]).toMatch(/mini-tile/);
    const local = await failure(c.client.processMiniTile({ MiniTileGuid: 'not-a-guid', Date: date, ...STRATUS }));
    expect(Object.keys(local.fields!)).toEqual(['MiniTileGuid']);
  });

  it('tasking models are loaded once per connection', async () => {
    const before = c.attempts.filter((a) => a.operation === 'GET /api/tasking/models').length;
    const models = await c.client.taskingModels();
    expect(models.find((m) => m.Model === 'Nimbus')!.SupportedSatelliteConstellations).toContainEqual({ SatelliteConstellation: 'Sentinel2L1', Optional: false });
    await c.client.taskingModels();
    expect(c.attempts.filter((a) => a.operation === 'GET /api/tasking/models').length).toBe(before);
    await c.client.taskingModels(undefined, { refresh: true });
    expect(c.attempts.filter((a) => a.operation === 'GET /api/tasking/models').length).toBe(before + 1);
    const bad = makeClient(t.url, { key: 'nope' });
    expect((await failure(bad.client.taskingModels())).kind).toBe('auth');
    await bad.close();
  });

  it('order estimate then create sends the estimated payload byte for byte', async () => {
    // Key order and spacing that a re-serialisation would change.
    const payload = `{ "To": "2026-10-30",  "From": "2026-10-01", "Wkt": "${UNCOVERED_AOI}", "Model": "Stratus2",
      "SatelliteConstellations": ["Sentinel1","Sentinel2"], "ImageFrequency": 7, "ReferenceDate": "2026-01-01" }`;
    const est = await c.client.estimateOrder(payload);
    expect(est.payload).toBe(payload);
    expect(est.estimate).toHaveProperty('TotalHistoricCost');
    const created: any = await c.client.createOrder(est.payload, undefined, { tileDeduplication: false });
    expect(created.TaskOrderGuid).toMatch(/^[0-9a-f-]{36}$/);
    const list: any = await c.client.callOpen('tasking.orders.list', { params: { getExpired: true } });
    expect(listRows(list).map((o: any) => o.TaskOrderGuid)).toContain(created.TaskOrderGuid);
    const details: any = await c.client.callOpen('tasking.orders.details', { params: { taskOrderGuid: created.TaskOrderGuid } });
    expect(details.TaskOrderGuid).toBe(created.TaskOrderGuid);
    const cancel: any = await c.client.callOpen('tasking.orders.cancel', { params: { taskOrderGuid: created.TaskOrderGuid } });
    expect(cancel.Result).toBe('Canceled');
    const again = await failure(c.client.callOpen('tasking.orders.cancel', { params: { taskOrderGuid: created.TaskOrderGuid } }));
    expect(again).toMatchObject({ kind: 'invalid', code: 993 });
    const missing = await failure(c.client.callOpen('tasking.orders.details', { params: { taskOrderGuid: '12345678-1234-4234-8234-123456789012' } }));
    expect(missing).toMatchObject({ kind: 'not-found', status: 404 });
  });

  it('a create body that differs from the estimate is a 400 naming the field; create is never auto-retried', async () => {
    const body = { Wkt: UNCOVERED_AOI, ...STRATUS, ImageFrequency: 7, ReferenceDate: '2026-01-01', From: '2026-10-01', To: '2026-10-30' };
    const est = await c.client.estimateOrder(body);
    const e = await failure(c.client.createOrder({ ...body, ImageFrequency: 5 }));
    expect(e).toMatchObject({ kind: 'validation', status: 400 });
    expect(Object.keys(e.fields!)).toEqual(['ImageFrequency']);
    expect(JSON.parse(est.payload)).toEqual(body);
    const local = await failure(c.client.createOrder('{"Wkt": '));
    expect(local.fields!.Body![0]).toMatch(/not valid JSON/);
  });

  it('products, acquisition plans and tile search are built from the spec', async () => {
    const products: any = await c.client.callOpen('satelliteProducts.composite', { body: { Wkt: SMALL_AOI, From: '2026-10-01', To: '2026-10-15' } });
    expect(Array.isArray(products.Products)).toBe(true);
    const plans: any = await c.client.callOpen('satelliteProducts.acquisitionPlans', { body: { Wkt: SMALL_AOI } });
    expect(Array.isArray(plans.AcquisitionPlans)).toBe(true);
    const bad = await failure(c.client.callOpen('satelliteProducts.composite', { body: { Wkt: SMALL_AOI, From: '2026-10-01' } }));
    expect(bad.fields).toEqual({ To: ['The To field is required.'] });
    const tiles: any = await c.client.callOpen('tasking.searchTiles', { body: { Wkt: SMALL_AOI, MaxResults: 2 } });
    expect(tiles.Tiles.length).toBeLessThanOrEqual(2);
  });
});

describe('interrupted downloads', () => {
  it('a truncated body fails the stream with a transient ApiError and frees the slot', async () => {
    const t = await startTestSim({ faults: 'truncate=1' });
    const c = makeClient(t.url, { initialConcurrency: 1 });
    const found: any = await c.client.searchAvailable({ Wkt: SMALL_AOI, From: '2026-01-01' });
    const date = found.ModelImageDates[0].DatesByGeog[0].Dates.at(-1);
    const r = await c.client.processComposite({ Wkt: SMALL_AOI, Date: date, ...STRATUS, Resolution: 20 });
    expect(r.kind).toBe('stream');
    if (r.kind !== 'stream') return;
    const e = await readAll(r.body).catch((x: unknown) => x as ApiError);
    expect(e).toBeInstanceOf(ApiError);
    expect(e).toMatchObject({ kind: 'transient', message: expect.stringMatching(/download from POST \/api\/satelliteimages\/process\/composite was interrupted/) });
    // The single slot is free again.
    expect(await c.client.accountSettings()).toHaveProperty('DefaultModel');
    await c.close();
    await t.close();
  });

  it('a body read after its Response was garbage collected arrives whole (an unlocked body would read as empty)', async () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const t = await startTestSim();
    const c = makeClient(t.url);
    const found: any = await c.client.searchAvailable({ Wkt: SMALL_AOI, From: '2026-01-01' });
    const date = found.ModelImageDates[0].DatesByGeog[0].Dates.at(-1);
    const r = await c.client.processComposite({ Wkt: SMALL_AOI, Date: date, ...STRATUS, Resolution: 80 });
    if (r.kind !== 'stream') throw new Error('expected a stream');
    // The transport's Response is unreachable now; collect it and let its finalizers run before the first read.
    gc();
    await new Promise<void>((resolve) => setImmediate(resolve));
    gc();
    await new Promise<void>((resolve) => setImmediate(resolve));
    const bytes = await readAll(r.body);
    expect(r.contentLength).toBeGreaterThan(1000);
    expect(bytes.length).toBe(r.contentLength);
    await c.close();
    await t.close();
  });

  it('aborting mid-stream cancels the body with a cancelled ApiError', async () => {
    const t = await startTestSim();
    const c = makeClient(t.url);
    const found: any = await c.client.searchAvailable({ Wkt: SMALL_AOI, From: '2026-01-01' });
    const date = found.ModelImageDates[0].DatesByGeog[0].Dates.at(-1);
    const ac = new AbortController();
    const r = await c.client.processComposite({ Wkt: SMALL_AOI, Date: date, ...STRATUS, Resolution: 10, Bandnames: 'all' }, ac.signal);
    if (r.kind !== 'stream') throw new Error('expected a stream');
    const reader = r.body.getReader();
    await reader.read();
    ac.abort();
    const e = await (async () => { for (;;) { const x = await reader.read(); if (x.done) return null; } })().catch((x: unknown) => x);
    expect(e).toMatchObject({ kind: 'cancelled' });
    await c.close();
    await t.close();
  });
});
