import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fromArrayBuffer } from 'geotiff';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SMALL_AOI, UNCOVERED_AOI, demoDate, startTestSim, type TestSim } from './helpers.js';

describe('billing and vouchers', () => {
  let t: TestSim;
  beforeAll(async () => { t = await startTestSim(); });
  afterAll(() => t.close());

  it('redeems a voucher once; a reused or unknown code is refused; the balance follows', async () => {
    const before = (await t.call('GET', '/api/account/info')).json.Data.EuroBalance;
    const first = await t.call('POST', '/api/billing/vouchers/redeem', { VoucherCode: 'SWATH-DEMO-50' });
    expect(first.status).toBe(200);
    expect(first.json.Data).toMatchObject({ VoucherCode: 'SWATH-DEMO-50', CreditAdded: 50, CurrencyCode: 'EUR', EuroBalance: before + 50 });
    const again = await t.call('POST', '/api/billing/vouchers/redeem', { VoucherCode: 'swath-demo-50' });
    expect(again.status).toBe(400);
    expect(again.json.Data.VoucherCode[0]).toMatch(/already redeemed/);
    const unknown = await t.call('POST', '/api/billing/vouchers/redeem', { VoucherCode: 'FREE-MONEY' });
    expect(unknown.status).toBe(400);
    expect(unknown.json.Data.VoucherCode[0]).toMatch(/not a valid voucher/);
    const empty = await t.call('POST', '/api/billing/vouchers/redeem', {});
    expect(empty.json.Data.VoucherCode[0]).toMatch(/required/);
    expect((await t.call('GET', '/api/account/info')).json.Data.EuroBalance).toBe(before + 50);
    // Vouchers are per key: the other key can still redeem the same code.
    const other = await t.call('POST', '/api/billing/vouchers/redeem', { VoucherCode: 'SWATH-DEMO-50' }, 'demo-key-empty');
    expect(other.status).toBe(200);
  });

  it('summary, month orders and month transactions read from one ledger', async () => {
    const summary = (await t.call('GET', '/api/billing/summary')).json.Data;
    expect(summary).toMatchObject({ Year: 2026, Month: 11, CurrencyCode: 'EUR' });
    expect(summary.VouchersTotal).toBe(50);
    const tx = (await t.call('GET', '/api/billing/transactions/2026-11')).json.Data;
    expect(tx.Transactions.map((x: any) => x.Kind)).toContain('Voucher');
    expect(tx.Total).toBeCloseTo(summary.EuroBalance - summary.OpeningBalance, 2);
    const last = tx.Transactions[tx.Transactions.length - 1];
    expect(last.BalanceAfter).toBe(summary.EuroBalance);
    // The seeded historical order was placed about four months ago.
    const july = (await t.call('GET', '/api/billing/orders/2026-07')).json.Data;
    expect(july.Orders).toHaveLength(1);
    expect(july.Total).toBe(july.Orders[0].Cost);
    expect(july.Orders[0].Cost).toBeGreaterThan(0);
    const empty = (await t.call('GET', '/api/billing/orders/2020-01')).json.Data;
    expect(empty).toMatchObject({ Orders: [], Total: 0 });
  });
});

describe('tasking: models, tiles, dedup', () => {
  let t: TestSim;
  beforeAll(async () => { t = await startTestSim(); });
  afterAll(() => t.close());

  it('lists models with required and optional constellations', async () => {
    const models = (await t.call('GET', '/api/tasking/models')).json.Data.TaskingModels;
    expect(models.map((m: any) => m.Model)).toEqual(['Stratus2', 'Stratus3', 'Stratus2Fast', 'Nimbus']);
    const s3 = models.find((m: any) => m.Model === 'Stratus3');
    expect(s3.SupportedSatelliteConstellations.every((c: any) => c.Optional === false)).toBe(true);
    const nimbus = models.find((m: any) => m.Model === 'Nimbus');
    expect(nimbus.SupportedSatelliteConstellations).toContainEqual({ SatelliteConstellation: 'Sentinel2L1', Optional: false });
  });

  it('searches tiles and mini-tiles with stable GUIDs', async () => {
    const tiles = (await t.call('POST', '/api/tasking/search/tiles', { Wkt: UNCOVERED_AOI })).json.Data;
    expect(tiles.Tiles.length).toBeGreaterThanOrEqual(1);
    expect(tiles.Tiles[0]).toMatchObject({ MiniTile: false, Epsg: '32631' });
    expect(tiles.Tiles[0].DataGeogWkt).toMatch(/^POLYGON/);
    const again = (await t.call('POST', '/api/tasking/search/tiles', { Wkt: UNCOVERED_AOI })).json.Data;
    expect(again.Tiles.map((x: any) => x.Guid)).toEqual(tiles.Tiles.map((x: any) => x.Guid));
    const minis = (await t.call('POST', '/api/tasking/search/tiles', { Wkt: UNCOVERED_AOI, MiniTiles: true })).json.Data;
    expect(minis.Tiles.length).toBeGreaterThan(tiles.Tiles.length);
    expect(minis.Tiles.every((x: any) => x.MiniTile)).toBe(true);
    const capped = (await t.call('POST', '/api/tasking/search/tiles', { Wkt: UNCOVERED_AOI, MiniTiles: true, MaxResults: 3 })).json.Data;
    expect(capped).toMatchObject({ Truncated: true });
    expect(capped.Tiles).toHaveLength(3);
  });

  it('tile orders: TileDeduplication skips tiles already ordered with consistent settings', async () => {
    const minis = (await t.call('POST', '/api/tasking/search/tiles', { Wkt: UNCOVERED_AOI, MiniTiles: true, MaxResults: 4 })).json.Data.Tiles.map((x: any) => x.Guid);
    const base = { Model: 'Stratus2', SatelliteConstellations: ['Sentinel1', 'Sentinel2'], ImageFrequency: 7, ReferenceDate: '2026-01-01', From: '2026-10-01', To: null };
    const first = { ...base, MiniTileGuids: minis.slice(0, 2) };
    expect((await t.call('POST', '/api/tasking/orders/estimate', first)).status).toBe(200);
    const a = await t.call('POST', '/api/tasking/orders', { ...first, TileDeduplication: true });
    expect(a.status).toBe(200);
    expect(a.json.Data.BillingCycle).toBe('Monthly');

    const second = { ...base, MiniTileGuids: minis.slice(0, 3) };
    await t.call('POST', '/api/tasking/orders/estimate', second);
    const b = await t.call('POST', '/api/tasking/orders', { ...second, TileDeduplication: true });
    expect(b.status).toBe(200);
    const details = (await t.call('GET', `/api/tasking/orders/details?taskOrderGuid=${b.json.Data.TaskOrderGuid}`)).json.Data;
    expect(details.DeduplicatedTiles.sort()).toEqual(minis.slice(0, 2).sort());
    expect(b.json.Data.TotalCost).toBeLessThan(a.json.Data.TotalCost);

    // A different cadence is not consistent: nothing is deduplicated.
    const third = { ...base, ImageFrequency: 6, MiniTileGuids: minis.slice(0, 2) };
    await t.call('POST', '/api/tasking/orders/estimate', third);
    const c = await t.call('POST', '/api/tasking/orders', { ...third, TileDeduplication: true });
    const cd = (await t.call('GET', `/api/tasking/orders/details?taskOrderGuid=${c.json.Data.TaskOrderGuid}`)).json.Data;
    expect(cd.DeduplicatedTiles).toEqual([]);
  });

  it('tile-mode errors: unknown GUID, wrong kind, two selectors', async () => {
    const tile = (await t.call('POST', '/api/tasking/search/tiles', { Wkt: UNCOVERED_AOI })).json.Data.Tiles[0].Guid;
    const base = { Model: 'Stratus2', SatelliteConstellations: ['Sentinel1', 'Sentinel2'], ImageFrequency: 7, ReferenceDate: '2026-01-01', From: '2026-10-01', To: '2026-10-30' };
    const unknown = await t.call('POST', '/api/tasking/orders/estimate', { ...base, TileGuids: ['12345678-1234-4234-8234-123456789012'] });
    expect(unknown.json.Data.TileGuids[0]).toMatch(/Unknown tile/);
    const kind = await t.call('POST', '/api/tasking/orders/estimate', { ...base, MiniTileGuids: [tile] });
    expect(kind.json.Data.MiniTileGuids[0]).toMatch(/is a tile/);
    const both = await t.call('POST', '/api/tasking/orders/estimate', { ...base, TileGuids: [tile], Wkt: UNCOVERED_AOI });
    expect(Object.keys(both.json.Data).sort()).toEqual(['TileGuids', 'Wkt']);
  });

  it('recurring estimate: cancellation deadline and monthly cost', async () => {
    const est = await t.call('POST', '/api/tasking/orders/estimate', { Wkt: UNCOVERED_AOI, Model: 'Nimbus', SatelliteConstellations: ['Sentinel2L1'], ImageFrequency: 7, ReferenceDate: '2025-01-01', From: '2026-11-01', To: null });
    expect(est.json.Data.CancellationDate).toBe('2026-12-01');
    expect(est.json.Data.RecurringCostsEstimate).toBeGreaterThan(0);
    // Weekly from 2025-01-01 (a Wednesday): every Wednesday.
    expect(est.json.Data.ImageDates).toEqual(['2026-11-04', '2026-11-11', '2026-11-18', '2026-11-25']);
    expect(est.json.Data.RecurringImageDates).toEqual(['2026-11-25']);
  });
});

describe('tile and mini-tile downloads, UploadUrl', () => {
  let t: TestSim;
  let receiver: http.Server;
  const received: { method: string; bytes: number; type?: string }[] = [];
  beforeAll(async () => {
    t = await startTestSim();
    receiver = http.createServer((req, res) => {
      let bytes = 0;
      req.on('data', (c) => { bytes += c.length; });
      req.on('end', () => {
        received.push({ method: req.method!, bytes, type: req.headers['content-type'] });
        res.statusCode = req.url === '/fail' ? 500 : 200;
        res.end();
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', () => r()));
  });
  afterAll(async () => { receiver.close(); await t.close(); });

  it('downloads a mini-tile of an ordered area as a 320 x 320 GeoTIFF on the tile grid', async () => {
    const date = await demoDate(t);
    const mini = (await t.call('POST', '/api/tasking/search/tiles', { Wkt: SMALL_AOI, MiniTiles: true })).json.Data.Tiles[0];
    const res = await fetch(`${t.url}/api/satelliteimages/process/minitile`, {
      method: 'POST', headers: { 'x-api-key': 'demo-key', 'content-type': 'application/json' },
      body: JSON.stringify({ MiniTileGuid: mini.Guid, Date: date, Model: 'Stratus2', SatelliteConstellations: ['Sentinel1', 'Sentinel2'], Level: null, Harmonize: null, ClipReflectance: null }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-disposition')).toContain(`minitile_${mini.Guid}`);
    const img = await (await fromArrayBuffer(await res.arrayBuffer())).getImage();
    expect([img.getWidth(), img.getHeight()]).toEqual([320, 320]);
    expect(img.getSamplesPerPixel()).toBe(4);
    expect(img.getGeoKeys()!.ProjectedCSTypeGeoKey).toBe(Number(mini.Epsg));
    const [x0, y0] = img.getOrigin();
    expect(x0! % 3200).toBe(0);
    expect(y0! % 3200).toBe(0);
  });

  it('refuses a tile that no order covers, and a mini-tile GUID sent to /tile', async () => {
    const date = await demoDate(t);
    const tile = (await t.call('POST', '/api/tasking/search/tiles', { Wkt: UNCOVERED_AOI })).json.Data.Tiles[0];
    const r = await t.call('POST', '/api/satelliteimages/process/tile', { TileGuid: tile.Guid, Date: date, Model: 'Stratus2' });
    expect(r.status).toBe(400);
    expect(r.json.Error.Code).toBe(1006);
    const mini = (await t.call('POST', '/api/tasking/search/tiles', { Wkt: SMALL_AOI, MiniTiles: true })).json.Data.Tiles[0];
    const w = await t.call('POST', '/api/satelliteimages/process/tile', { TileGuid: mini.Guid, Date: date, Model: 'Stratus2' });
    expect(w.json.Data.TileGuid[0]).toMatch(/mini-tile/);
  });

  it('PUTs the file to a loopback UploadUrl and answers 201 with an empty body', async () => {
    const date = await demoDate(t);
    const port = (receiver.address() as AddressInfo).port;
    const res = await fetch(`${t.url}/api/satelliteimages/process/composite`, {
      method: 'POST', headers: { 'x-api-key': 'demo-key', 'content-type': 'application/json' },
      body: JSON.stringify({ Wkt: SMALL_AOI, Date: date, Model: 'Stratus2', Resolution: 40, UploadUrl: `http://127.0.0.1:${port}/upload` }),
    });
    expect(res.status).toBe(201);
    expect(await res.text()).toBe('');
    expect(received.at(-1)).toMatchObject({ method: 'PUT', type: 'image/tiff' });
    expect(received.at(-1)!.bytes).toBeGreaterThan(1000);
  });

  it('refuses a non-loopback UploadUrl with a clear 400, and reports a failing target', async () => {
    const date = await demoDate(t);
    const r = await t.call('POST', '/api/satelliteimages/process/composite', { Wkt: SMALL_AOI, Date: date, Model: 'Stratus2', Resolution: 40, UploadUrl: 'https://example.com/bucket/x.tif' });
    expect(r.status).toBe(400);
    expect(r.json.Data.UploadUrl[0]).toMatch(/only uploads to loopback.*example\.com/);
    const port = (receiver.address() as AddressInfo).port;
    const f = await t.call('POST', '/api/satelliteimages/process/composite', { Wkt: SMALL_AOI, Date: date, Model: 'Stratus2', Resolution: 40, UploadUrl: `http://127.0.0.1:${port}/fail` });
    expect(f.status).toBe(400);
    expect(f.json.Data.UploadUrl[0]).toMatch(/HTTP 500/);
  });

  it('serves identical requests from the cache', async () => {
    const date = await demoDate(t);
    const body = JSON.stringify({ Wkt: SMALL_AOI, Date: date, Model: 'Stratus2', Resolution: 20, Bandnames: 'ndvi' });
    const get = async () => Buffer.from(await (await fetch(`${t.url}/api/satelliteimages/process/composite`, { method: 'POST', headers: { 'x-api-key': 'demo-key', 'content-type': 'application/json' }, body })).arrayBuffer());
    const a = await get();
    const b = await get();
    expect(a.equals(b)).toBe(true);
  });
});

describe('products', () => {
  let t: TestSim;
  beforeAll(async () => { t = await startTestSim(); });
  afterAll(() => t.close());

  it('returns deterministic products with constellation, geography and date', async () => {
    const body = { Wkt: SMALL_AOI, From: '2026-10-01', To: '2026-10-31', SatelliteConstellations: ['Sentinel2', 'Landsat89'] };
    const a = (await t.call('POST', '/api/satelliteproducts/satellitezones/composite', body)).json.Data;
    const b = (await t.call('POST', '/api/satelliteproducts/satellitezones/composite', body)).json.Data;
    expect(a).toEqual(b);
    expect(a.Products.length).toBeGreaterThan(5);
    for (const p of a.Products) {
      expect(['Sentinel2', 'Landsat89']).toContain(p.SatelliteConstellation);
      expect(p.Date >= '2026-10-01' && p.Date <= '2026-10-31').toBe(true);
      expect(p.Wkt).toMatch(/^POLYGON/);
    }
    const s2 = a.Products.filter((p: any) => p.SatelliteConstellation === 'Sentinel2').map((p: any) => Date.parse(p.Date));
    expect((s2[1] - s2[0]) / 86_400_000).toBe(5);
    const bad = await t.call('POST', '/api/satelliteproducts/satellitezones/composite', { ...body, SatelliteConstellations: ['Sentinel7'] });
    expect(bad.json.Data.SatelliteConstellations[0]).toMatch(/Sentinel7/);
  });

  it('returns acquisition plans from now on by default', async () => {
    const plans = (await t.call('POST', '/api/satelliteproducts/acquisitionplans', { Wkt: SMALL_AOI })).json.Data;
    expect(plans.AcquisitionPlans.length).toBeGreaterThan(5);
    expect(plans.AcquisitionPlans.every((p: any) => p.Date >= '2026-11-22' && p.Date <= '2026-12-22')).toBe(true);
    expect(plans.AcquisitionPlans[0]).toHaveProperty('Orbit');
  });

  it('the deprecated geography/composite still answers', async () => {
    const r = await t.call('POST', '/api/satelliteimages/geography/composite', { Wkt: SMALL_AOI, From: '2026-08-01', To: '2026-11-22' });
    expect(r.status).toBe(200);
    expect(r.json.Data.Dates.length).toBeGreaterThan(5);
    expect(r.json.Data.AreaKm2).toBeGreaterThan(3);
  });
});

describe('persistence and CLI', () => {
  it('keeps orders and vouchers across restarts in the --state file', async () => {
    const stateDir = mkdtempSync(path.join(os.tmpdir(), 'swath-sim-state-'));
    const statePath = path.join(stateDir, 'state.json');
    try {
      const a = await startTestSim({ statePath });
      await a.call('POST', '/api/billing/vouchers/redeem', { VoucherCode: 'SWATH-DEMO-250' });
      const orders = (await a.call('GET', '/api/tasking/orders')).json.Data.TaskOrders;
      await a.close();
      expect(existsSync(statePath)).toBe(true);
      expect(JSON.parse(readFileSync(statePath, 'utf8')).version).toBe(1);
      const b = await startTestSim({ statePath });
      try {
        const again = await b.call('POST', '/api/billing/vouchers/redeem', { VoucherCode: 'SWATH-DEMO-250' });
        expect(again.status).toBe(400);
        expect((await b.call('GET', '/api/tasking/orders')).json.Data.TaskOrders.map((o: any) => o.TaskOrderGuid)).toEqual(orders.map((o: any) => o.TaskOrderGuid));
      } finally { await b.close(); }
    } finally { rmSync(stateDir, { recursive: true, force: true }); }
  });

  it('npm run simulator -- --port 0 prints the listening line and serves', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'simulator/cli.ts', '--port', '0'], { cwd: process.cwd(), stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      const line = await new Promise<string>((resolve, reject) => {
        let out = '';
        child.stdout.on('data', (c) => { out += c; if (out.includes('\n')) resolve(out.trim()); });
        child.on('exit', (code) => reject(new Error(`exited ${code}`)));
      });
      expect(line).toMatch(/^Simulator listening on http:\/\/127\.0\.0\.1:\d+ \(production answers\)$/);
      const url = line.replace('Simulator listening on ', '').replace(/ \(.*$/, '');
      const r = await fetch(`${url}/api/tasking/models`, { headers: { 'x-api-key': 'demo-key' } });
      expect(r.status).toBe(200);
    } finally { child.kill('SIGTERM'); }
  });
});
