import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDispatcher, type Dispatcher } from '../../../main/ipc';
import { MemoryKeychainBackend } from '../../../main/keychain';
import { createApp, type SwathApp } from '../../../main/services/app';
import { startSimulator } from '../../../main/simulator';
import { channelNames, channels } from '../../../preload/contract';

// The whole main core through the dispatcher, exactly as a renderer reaches it,
// against the embedded simulator over loopback HTTP.

const SENDER = 'app://swath/index.html';
const SMALL_AOI = 'POLYGON((13.40 52.50, 13.43 52.50, 13.43 52.52, 13.40 52.52, 13.40 52.50))';
const SECRET = 'sk-live-THIS-IS-A-SECRET-9f3a';

describe('app core over the dispatcher', () => {
  let dir: string;
  let app: SwathApp;
  let d: Dispatcher;
  const events: { event: string; payload: unknown }[] = [];
  const logs: string[] = [];
  const keychain = new MemoryKeychainBackend();
  const call = async (channel: string, payload: unknown = {}) => d.dispatch(channel, payload, SENDER) as Promise<any>;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'swath-app-'));
    app = await createApp({
      userDataDir: dir, downloadsDir: path.join(dir, 'Downloads'), version: '1.2.3', platform: 'linux', startSimulator,
      emit: (event, payload) => events.push({ event, payload }), keychainBackend: keychain, log: (l) => logs.push(l),
    });
    d = createDispatcher(app.handlers, { isAllowedSender: (u) => u === SENDER });
  });
  afterAll(async () => {
    await app.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('first run: the demo profile is active and connected, without a key in sight', async () => {
    const info = await call('app:info');
    expect(info).toMatchObject({ ok: true, data: { version: '1.2.3', service: { label: 'Demo service (offline)', demo: true } } });
    const ping = await call('service:ping');
    expect(ping).toMatchObject({ ok: true, data: { reachable: true } });
    const status = await call('service:status');
    expect(status.data).toMatchObject({ state: 'online', demo: true, concurrency: 8, limits: { maxCompositeAreaKm2: 2500, maxTotalBands: 12 }, contractNotice: null });
    const profiles = await call('profiles:list');
    expect(profiles.data.profiles[0]).toMatchObject({ id: 'demo', builtIn: true, active: true, keySet: true, keyLast4: null });
  });

  it('every channel rejects a malformed payload with a validation error, never a crash', async () => {
    for (const channel of channelNames) {
      const res = await call(channel, { definitelyNotAField: 1, id: 42 });
      expect(res.ok, channel).toBe(false);
      expect(res.error.kind, channel).toBe('validation');
      expect(Object.keys(res.error.fields ?? {}).length, channel).toBeGreaterThan(0);
    }
    expect(channelNames.length).toBe(Object.keys(channels).length);
  });

  it('account, billing, models and the spec-built operations', async () => {
    expect((await call('account:info')).data.data.MaxConcurrentConnections).toBe(8);
    expect((await call('account:settings')).ok).toBe(true);
    expect((await call('billing:summary')).data.data.CurrencyCode).toBe('EUR');
    expect((await call('billing:orders', { year: 2026, month: 7 })).ok).toBe(true);
    const bad = await call('billing:transactions', { year: 2026, month: 13 });
    expect(bad).toMatchObject({ ok: false, error: { kind: 'validation' } });
    expect(bad.error.fields.month).toBeDefined();
    const models = await call('tasking:models');
    expect(models.data.models.map((m: any) => m.Model)).toContain('Stratus2');
    const ops = await call('service:operations');
    const keys = ops.data.operations.map((o: any) => o.key);
    expect(keys).toEqual(expect.arrayContaining(['tasking.orders.list', 'tasking.orders.cancel', 'billing.redeemVoucher', 'tasking.searchTiles']));
    const cancel = ops.data.operations.find((o: any) => o.key === 'tasking.orders.cancel');
    expect(Object.keys(cancel.parameters.properties)).toEqual(['taskOrderGuid']);
    const voucher = await call('service:call', { key: 'billing.redeemVoucher', body: { VoucherCode: 'SWATH-DEMO-50' } });
    expect(voucher.data.data.CreditAdded).toBe(50);
    const again = await call('service:call', { key: 'billing.redeemVoucher', body: { VoucherCode: 'SWATH-DEMO-50' } });
    expect(again).toMatchObject({ ok: false, error: { kind: 'validation' } });
    expect(again.error.fields.VoucherCode[0]).toMatch(/already redeemed/);
    const unknown = await call('service:call', { key: 'nope.nope' });
    expect(unknown.error.kind).toBe('not-found');
  });

  it('imagery: search, check, estimate, client validation next to the field', async () => {
    const search = await call('imagery:search', { request: { Wkt: SMALL_AOI, From: '2026-08-01', Until: null } });
    const dates = search.data.data.ModelImageDates[0].DatesByGeog[0].Dates;
    expect(dates.length).toBeGreaterThan(3);
    const date = dates.at(-1);
    const avail = await call('imagery:available', { request: { Wkt: SMALL_AOI, Date: date, Model: 'Stratus2', SatelliteConstellations: ['Sentinel1', 'Sentinel2'], EpsgProjection: 32633, Bandnames: 'rgb', UtmDataSelectionMode: 'combined_utm' } });
    expect(avail.data.data.FullyAvailable).toBe(true);
    const est = await call('imagery:estimate', { request: { Wkt: SMALL_AOI } });
    expect(est.data.data.AreaEstimateKm2).toBeGreaterThan(0);
    const both = await call('imagery:estimate', { request: { Wkt: SMALL_AOI, GeoJson: { type: 'Polygon', coordinates: [] } } });
    expect(both).toMatchObject({ ok: false, error: { kind: 'validation' } });
    expect(both.error.fields.Wkt).toBeDefined();
  });

  it('downloads a composite through the queue into the library, with progress and job events', async () => {
    const search = await call('imagery:search', { request: { Wkt: SMALL_AOI, From: '2026-08-01', Until: null } });
    const date = search.data.data.ModelImageDates[0].DatesByGeog[0].Dates.at(-1);
    const bad = await call('downloads:enqueue', { kind: 'composite', request: { Wkt: SMALL_AOI, Date: date, Model: 'Stratus-2', Resolution: 40 } });
    expect(bad).toMatchObject({ ok: false, error: { kind: 'validation' } });
    expect(bad.error.fields.Model[0]).toMatch(/Stratus2/);
    const job = await call('downloads:enqueue', { kind: 'composite', request: { Wkt: SMALL_AOI, Date: date, Model: 'Stratus2', Resolution: 40, EpsgProjection: 32633, Bandnames: 'rgb' } });
    expect(job.ok).toBe(true);
    expect(job.data.targetDir).toBe(path.join(dir, 'Downloads'));
    await expect.poll(async () => (await call('downloads:list')).data.jobs[0].state, { timeout: 20_000 }).toBe('done');
    const done = (await call('downloads:list')).data.jobs[0];
    expect(done.file).toMatch(/composite_.*\.tif$/);
    expect(statSync(done.file).size).toBeGreaterThan(1000);
    expect(done.partPath).toBeUndefined();
    const lib = await call('library:list');
    expect(lib.data.entries[0]).toMatchObject({ source: 'download', epsg: 32633, bands: ['B4', 'B3', 'B2'] });
    expect(events.some((e) => e.event === 'job:state' && (e.payload as any).state === 'done')).toBe(true);
    expect(events.some((e) => e.event === 'library:changed')).toBe(true);
    expect((await call('downloads:reveal', { id: done.id })).data.revealed).toBe(false);
  });

  it('a request over MaxTotalBands is planned, estimated and run as one job of parts, mosaicked in the requested order', async () => {
    const search = await call('imagery:search', { request: { Wkt: SMALL_AOI, From: '2026-08-01', Until: null } });
    const date = search.data.data.ModelImageDates[0].DatesByGeog[0].Dates.at(-1);
    const bands = 'B2,B3,B4,B5,B6,B7,B8,B8A,B11,B12,ndvi,[B11_B8],[B3_B8]';
    const request = { Wkt: SMALL_AOI, Date: date, Model: 'Stratus2', Resolution: 80, EpsgProjection: 32633, Bandnames: bands };
    const plan = await call('downloads:plan', { request });
    expect(plan.data).toMatchObject({ split: true, splitBy: { area: false, bands: true }, parts: 2, dates: null, limits: { maxTotalBands: 12 } });
    const single = await call('imagery:estimate', { request: { Wkt: SMALL_AOI } });
    expect(plan.data.estimate.AreaEstimateKm2).toBeCloseTo(single.data.data.AreaEstimateKm2, 1);
    expect(plan.data.estimate.requests).toBe(2);
    const job = await call('downloads:enqueue', { kind: 'composite', request });
    expect(job.data.batch).toMatchObject({ type: 'split', parts: 2 });
    await expect.poll(async () => (await call('downloads:list')).data.jobs.find((j: any) => j.id === job.data.id).state, { timeout: 30_000 }).toBe('done');
    const done = (await call('downloads:list')).data.jobs.find((j: any) => j.id === job.data.id);
    const entry = (await call('library:list')).data.entries.find((e: any) => e.path === done.file);
    expect(entry.bands).toEqual(bands.replace('ndvi', '[B8_B4]').split(','));
  });

  it('a time series downloads every date with imagery in the period as one job', async () => {
    const from = '2026-10-20';
    const request = { Wkt: SMALL_AOI, Model: 'Stratus2', Resolution: 160, EpsgProjection: 32633, Bandnames: 'ndvi' };
    const plan = await call('downloads:plan', { request: { ...request, Date: from }, series: { from, until: null } });
    expect(plan.data.dates.length).toBeGreaterThan(2);
    expect(plan.data.dates.every((d: string) => d >= from)).toBe(true);
    const job = await call('downloads:enqueue-series', { request, from, until: null });
    expect(job.data.batch).toMatchObject({ type: 'series', dates: plan.data.dates });
    await expect.poll(async () => (await call('downloads:list')).data.jobs.find((j: any) => j.id === job.data.id).state, { timeout: 30_000 }).toBe('done');
    const done = (await call('downloads:list')).data.jobs.find((j: any) => j.id === job.data.id);
    expect(done.files).toHaveLength(plan.data.dates.length);
    const empty = await call('downloads:enqueue-series', { request, from: '2020-01-01', until: '2020-02-01' });
    expect(empty).toMatchObject({ ok: false, error: { kind: 'validation' } });
  });

  it('profiles: a real key set through IPC never comes back, and a bad key shows as auth', async () => {
    const sim = await startSimulator({ port: 0, cacheDir: path.join(dir, 'sim2') });
    try {
      const created = await call('profiles:create', { name: 'Staging', baseUrl: sim.url, key: SECRET });
      expect(created.data).toMatchObject({ keySet: true, keyLast4: '9f3a', active: false });
      await call('profiles:activate', { id: created.data.id });
      const account = await call('account:info');
      // A key the simulator does not know: 401, reported as auth, without the key.
      expect(account).toMatchObject({ ok: false, error: { kind: 'auth' } });
      const test = await call('profiles:test-key', { id: created.data.id });
      expect(test.data.status).toBe('auth');
      await call('profiles:set-key', { id: created.data.id, key: 'demo-key-empty' });
      expect((await call('account:info')).data.data.MaxConcurrentConnections).toBe(4);
      await call('profiles:activate', { id: 'demo' });
      expect((await call('service:status')).data.demo).toBe(true);
      await call('profiles:set-key', { id: created.data.id, key: SECRET });
      const badUrl = await call('profiles:update', { id: created.data.id, baseUrl: 'http://imagery.example.com' });
      expect(badUrl.error.fields.baseUrl[0]).toMatch(/https/);
    } finally {
      await sim.close();
    }
  });

  it('the key string never appears in results, events, logs, errors or files', async () => {
    const everything = JSON.stringify({ events, logs });
    expect(everything).not.toContain(SECRET);
    for (const channel of ['profiles:list', 'service:status', 'app:info', 'downloads:list', 'library:list', 'settings:get']) {
      expect(JSON.stringify(await call(channel))).not.toContain(SECRET);
    }
    const files = readdirSync(dir, { recursive: true, withFileTypes: true }).filter((f) => f.isFile());
    for (const f of files) {
      const full = path.join(f.parentPath, f.name);
      if (full.endsWith('.tif')) continue;
      expect(readFileSync(full, 'utf8'), full).not.toContain(SECRET);
    }
  });

  it('library import dialog: not available without a system dialog, explained next to the path field', async () => {
    const res = await call('library:import-dialog');
    expect(res).toMatchObject({ ok: false, error: { kind: 'validation', fields: { paths: [expect.any(String)] } } });
  });

  it('settings: the download folder must be absolute', async () => {
    const bad = await call('settings:set', { downloadDir: 'relative/dir' });
    expect(bad).toMatchObject({ ok: false, error: { kind: 'validation', fields: { downloadDir: [expect.any(String)] } } });
    const ok = await call('settings:set', { theme: 'dark' });
    expect(ok.data.theme).toBe('dark');
  });
});
