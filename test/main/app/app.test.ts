import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountLimits } from '../../../main/api';
import { readEstimate } from '../../../main/spend/batch-estimate';
import { createDispatcher, type Dispatcher } from '../../../main/ipc';
import { MemoryKeychainBackend } from '../../../main/profiles';
import { createApp, type SwathApp } from '../../../main/app/app';
import { channelNames, channels } from '../../../preload/contract';
import { fixturePath } from '../../fixtures/rasters';
import { startScriptServer, type ScriptServer } from '../api/helpers';
import { startStyledSimulator as startSimulator } from '../../simulator/helpers';

// The whole main core through the dispatcher, exactly as a renderer reaches it,
// against the embedded simulator over loopback HTTP.

const SENDER = 'app://swath/index.html';
/** A field of an answer by its name, case-insensitively (the answer styles differ in casing). */
const field = (data: Record<string, unknown>, re: RegExp) => Object.entries(data).find(([k]) => re.test(k))?.[1];
const SMALL_AOI = 'POLYGON((13.40 52.50, 13.43 52.50, 13.43 52.52, 13.40 52.52, 13.40 52.50))';
const SECRET = 'sk-live-THIS-IS-A-SECRET-9f3a';
/** A second credential the echo service hands out; only its specification says it is a key. */
const SECONDARY = 'sk-secondary-0000-abcd';

/**
 * A service that echoes the key everywhere the real one might: account info
 * answers with it in `Key` (as production does), in a note, and with another
 * credential in a field only the specification marks as the key; failures quote
 * it in the message and the field names; downloads put it in the file name.
 */
function startEchoService(): Promise<ScriptServer> {
  const envelope = (data: Record<string, unknown>) => ({ type: 'object', properties: { Data: { type: 'object', properties: data }, Succeeded: { type: 'boolean' }, Error: { type: 'object', nullable: true } } });
  const json = (schema: unknown) => ({ 200: { description: 'OK', content: { 'application/json': { schema } } } });
  const spec = {
    openapi: '3.0.3',
    info: { title: 'Echo service', version: '1.0.0' },
    paths: {
      '/api/account/info': { get: { responses: json(envelope({ Key: { type: 'string' }, Credential: { type: 'string', description: 'The API key itself.' }, MaxConcurrentConnections: { type: 'integer' } })) } },
      '/api/billing/summary': { get: { responses: json(envelope({})) } },
      '/api/tasking/models': { get: { responses: json(envelope({ TaskingModels: { type: 'array' } })) } },
      '/api/tasking/orders': { get: { parameters: [], responses: json(envelope({ TaskOrders: { type: 'array' } })) } },
      '/api/satelliteimages/process/composite/estimate': { post: { requestBody: { content: { 'application/json': { schema: { type: 'object' } } } }, responses: json(envelope({ CreditEstimate: { type: 'number' } })) } },
      '/api/satelliteimages/process/composite': { post: { requestBody: { content: { 'application/json': { schema: { type: 'object' } } } }, responses: { 200: { description: 'GeoTIFF' } } } },
    },
  };
  const tiff = readFileSync(fixturePath('utm33n-cog'));
  return startScriptServer((req, res) => {
    const k = String(req.headers['x-api-key'] ?? '');
    const send = (status: number, body: unknown): void => void res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    const url = new URL(req.url ?? '/', 'http://x');
    switch (`${req.method} ${url.pathname}`) {
      case 'GET /api/specification.json': return send(200, spec);
      case 'GET /api/account/info':
        return send(200, { Data: { Key: k, Credential: SECONDARY, Note: `issued to ${k}`, MaxConcurrentConnections: 2, MaxCompositeAreaKm2: 100, MaxTotalBands: 6 }, Succeeded: true, Error: null });
      case 'GET /api/tasking/models':
        return send(200, { Data: { TaskingModels: [{ Model: 'Stratus2', SupportedSatelliteConstellations: [{ SatelliteConstellation: 'Sentinel2', Optional: false }] }] }, Succeeded: true, Error: null });
      case 'GET /api/tasking/orders':
        return send(200, { Data: { TaskOrders: [{ TaskOrderGuid: '4b0c1f7e-96a4-4d4f-9a4c-2f7e1c5d3b21', CreatedBy: k }] }, Succeeded: true, Error: null });
      case 'POST /api/satelliteimages/process/composite/estimate':
        // Main estimates every download before it spends; the answer echoes the key too.
        return send(200, { Data: { AreaEstimateKm2: 4.7, CreditEstimate: 0, CurrencyCode: 'EUR', Note: `estimated for ${k}` }, Succeeded: true, Error: null });
      case 'POST /api/satelliteimages/process/composite':
        return void res.writeHead(200, { 'content-type': 'image/tiff', 'content-length': tiff.length, 'content-disposition': `attachment; filename="composite_${k}.tif"` }).end(tiff);
      default:
        return send(400, { Data: { [k]: [`${k} may not do this.`] }, Succeeded: false, Error: { Message: `The key ${k} may not call ${url.pathname}.`, Code: 993 } });
    }
  });
}

describe('app core over the dispatcher', () => {
  let dir: string;
  let app: SwathApp;
  let d: Dispatcher;
  const events: { event: string; payload: unknown }[] = [];
  const logs: string[] = [];
  // Every IPC message of the file, both ways, for the key-never-leaks check.
  const traffic: { channel: string; request: unknown; result: unknown }[] = [];
  const keychain = new MemoryKeychainBackend();
  const call = async (channel: string, payload: unknown = {}) => {
    const result = await d.dispatch(channel, payload, SENDER);
    traffic.push({ channel, request: payload, result });
    return result as any;
  };

  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'swath-app-'));
    app = await createApp({
      userDataDir: dir, downloadsDir: path.join(dir, 'Downloads'), version: '1.2.3', platform: 'linux', startSimulator,
      emit: (event, payload) => events.push({ event, payload }), keychainBackend: keychain, log: (l) => logs.push(l),
    });
    d = createDispatcher(app.handlers, { isAllowedSender: (u) => u === SENDER, secrets: app.secrets });
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

  it("the features' slices join into one handler per contract channel, no more, no fewer", () => {
    expect(Object.keys(app.handlers).sort()).toEqual([...channelNames].sort());
    for (const channel of channelNames) expect(typeof app.handlers[channel], channel).toBe('function');
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
    expect(accountLimits((await call('account:info')).data.data).maxConcurrentConnections).toBe(8);
    expect((await call('account:settings')).ok).toBe(true);
    expect(field((await call('billing:summary')).data.data, /^currency(code)?$/i)).toBe('EUR');
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
    // Cancel takes one parameter, the order's GUID (its name is the spec's).
    const [cancelParam, ...more] = Object.keys(cancel.parameters.properties);
    expect(more).toEqual([]);
    expect(cancel.parameters.properties[cancelParam!].format).toBe('uuid');
    // The voucher body's one field, whatever the spec calls it.
    const [voucherField] = Object.keys(ops.data.operations.find((o: any) => o.key === 'billing.redeemVoucher').body.properties);
    const voucher = await call('service:call', { key: 'billing.redeemVoucher', body: { [voucherField!]: 'SWATH-DEMO-50' } });
    expect(field(voucher.data.data, /^creditadded$/i)).toBe(50);
    const again = await call('service:call', { key: 'billing.redeemVoucher', body: { [voucherField!]: 'SWATH-DEMO-50' } });
    expect(again).toMatchObject({ ok: false, error: { kind: 'validation' } });
    expect(again.error.fields[voucherField!][0]).toMatch(/already redeemed/);
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
    expect(readEstimate(est.data.data).area).toBeGreaterThan(0);
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
    const lib = await call('library:query', { limit: 500 });
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
    expect(plan.data.estimate.AreaEstimateKm2).toBeCloseTo(readEstimate(single.data.data).area, 1);
    expect(plan.data.estimate.requests).toBe(2);
    const job = await call('downloads:enqueue', { kind: 'composite', request });
    expect(job.data.batch).toMatchObject({ type: 'split', parts: 2 });
    await expect.poll(async () => (await call('downloads:list')).data.jobs.find((j: any) => j.id === job.data.id).state, { timeout: 30_000 }).toBe('done');
    const done = (await call('downloads:list')).data.jobs.find((j: any) => j.id === job.data.id);
    const entry = (await call('library:query', { limit: 500 })).data.entries.find((e: any) => e.path === done.file);
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
    expect(done.files.map((f: string) => path.basename(f))).toEqual(plan.data.dates.map((d: string) => `composite_${d.replaceAll('-', '')}_ndvi_Stratus2_32633_160m.tif`));
    // The identical series again has nothing to buy: every date is in the library already.
    const identical = await call('downloads:enqueue-series', { request, from, until: null });
    expect(identical).toMatchObject({ ok: false, error: { kind: 'validation', message: expect.stringContaining('already in your library') } });
    // The series with other pixels (the same file names): every name stays unique in the library (the library's names are checked, not only the folder's).
    const again = await call('downloads:enqueue-series', { request: { ...request, PixelSelectionMode: 'contained' }, from, until: null });
    await expect.poll(async () => (await call('downloads:list')).data.jobs.find((j: any) => j.id === again.data.id).state, { timeout: 30_000 }).toBe('done');
    const second = (await call('downloads:list')).data.jobs.find((j: any) => j.id === again.data.id);
    expect(second.files.map((f: string) => path.basename(f))).toEqual(plan.data.dates.map((d: string) => `composite_${d.replaceAll('-', '')}_ndvi_Stratus2_32633_160m_1.tif`));
    const names = (await call('library:query', { limit: 500 })).data.entries.map((e: any) => path.basename(e.path));
    expect(new Set(names).size).toBe(names.length);
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
      expect(accountLimits((await call('account:info')).data.data).maxConcurrentConnections).toBe(4);
      await call('profiles:activate', { id: 'demo' });
      expect((await call('service:status')).data.demo).toBe(true);
      await call('profiles:set-key', { id: created.data.id, key: SECRET });
      const badUrl = await call('profiles:update', { id: created.data.id, baseUrl: 'http://imagery.example.com' });
      expect(badUrl.error.fields.baseUrl[0]).toMatch(/https/);
    } finally {
      await sim.close();
    }
  });

  it('the key never appears in results, events, logs, errors or files, even when the service echoes it', async () => {
    // The demo service echoes its key in account info, like the production service: main masks it.
    // (Wherever the answer style puts it.)
    const demo = await call('account:info');
    expect(JSON.stringify(demo.data.data)).toContain('"•••• -key"');

    const echo = await startEchoService();
    try {
      const created = await call('profiles:create', { name: 'Echo', baseUrl: echo.url, key: SECRET });
      await call('profiles:activate', { id: created.data.id });
      // Account info: the key in Key and in a note, another credential in a field only the specification marks.
      const info = await call('account:info');
      expect(info.data.data).toMatchObject({ Key: '•••• 9f3a', Credential: '•••• abcd', Note: 'issued to •••• 9f3a', MaxConcurrentConnections: 2 });
      expect((await call('profiles:test-key', { id: created.data.id })).data.status).toBe('ok');
      // Errors that quote the key in the message and as a field name.
      const refused = await call('billing:summary');
      expect(refused).toMatchObject({ ok: false, error: { kind: 'validation', message: expect.stringContaining('The key •••• 9f3a may not') } });
      expect(Object.keys(refused.error.fields)).toEqual(['•••• 9f3a']);
      // A specification-built operation's answer.
      const orders = await call('service:call', { key: 'tasking.orders.list' });
      expect(orders.data.data.TaskOrders[0].CreatedBy).toBe('•••• 9f3a');
      // A download whose file name, as the service sends it, holds the key.
      const job = await call('downloads:enqueue', { kind: 'composite', request: { Wkt: SMALL_AOI, Date: '2026-08-01', Model: 'Stratus2', Resolution: 40, EpsgProjection: 32633, Bandnames: 'rgb' } });
      expect(job.ok).toBe(true);
      await expect.poll(async () => (await call('downloads:list')).data.jobs.find((j: any) => j.id === job.data.id).state, { timeout: 20_000 }).toMatch(/done|failed/);
      const done = (await call('downloads:list')).data.jobs.find((j: any) => j.id === job.data.id);
      expect(done.state, JSON.stringify(done.error)).toBe('done');
      expect(path.basename(done.file)).not.toContain('9f3a-');
      expect((await call('account:info')).ok).toBe(true);
    } finally {
      await call('profiles:activate', { id: 'demo' });
      await echo.close();
    }

    // Every key main held during this file: the demo key, another profile's key, and the key of the echo profile.
    const keys = [SECRET, SECONDARY, 'demo-key-empty', 'demo-key'];
    const forbid = (text: string, where: string) => {
      for (const k of keys) expect(text.includes(k), `${where} contains ${k}`).toBe(false);
    };
    expect(traffic.length).toBeGreaterThan(40);
    for (const m of traffic) {
      // Main -> renderer: results and errors of every call.
      forbid(JSON.stringify(m.result), `result of ${m.channel}`);
      // Renderer -> main: a key only where the user gives one to main.
      const { key: _given, ...rest } = (m.request ?? {}) as Record<string, unknown>;
      if (!['profiles:create', 'profiles:set-key'].includes(m.channel)) expect(_given, m.channel).not.toBe(SECRET);
      forbid(JSON.stringify(rest), `request of ${m.channel}`);
    }
    forbid(JSON.stringify(events), 'events');
    expect(logs.length).toBeGreaterThan(0);
    forbid(JSON.stringify(logs), 'logs');
    for (const channel of ['profiles:list', 'service:status', 'app:info', 'downloads:list', 'settings:get']) forbid(JSON.stringify(await call(channel)), channel);
    forbid(JSON.stringify(await call('library:query', { limit: 500 })), 'library:query');
    const files = readdirSync(dir, { recursive: true, withFileTypes: true }).filter((f) => f.isFile());
    expect(files.length).toBeGreaterThan(3);
    for (const f of files) {
      const full = path.join(f.parentPath, f.name);
      forbid(path.relative(dir, full), 'file names');
      // The embedded demo service's own account store is the service's side: it keys accounts by their API key.
      if (full.endsWith('.tif') || f.name === 'demo-state.json') continue;
      forbid(readFileSync(full, 'utf8'), full);
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
