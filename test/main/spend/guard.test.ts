import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer, request as httpRequest, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { startBrowserHost } from '../../../main/hosts/browser-host';
import { ANSWER_STYLES } from '../../simulator/helpers';
import { Keychain, MemoryKeychainBackend, ProfileStore } from '../../../main/profiles';
import { seedPolicyProfiles, type PolicyState } from '../../../main/policy';
import { searchTiles } from '../../../simulator/geo/tile-grid';
import type { Watch } from '../../../main/watches';
import { watchRequest } from '../../../main/watches';
import { settled, startTestApp, type TestApp } from '../watches/app-helpers';
import { SecretRegistry } from '../../../main/platform/secrets';

// The one spend guard in main, driven as a page drives the bridge (no native dialog: the browser
// host), against the app's embedded simulator over loopback HTTP. The account's own billing (the
// simulator's ledger of charges and its orders) says whether anything was spent.

const SMALL = 'POLYGON((13.40 52.50, 13.43 52.50, 13.43 52.52, 13.40 52.52, 13.40 52.50))';
/** About 3000 km²: over the demo account's 2500 km² per request, so it downloads as a split batch. */
const LARGE = 'POLYGON((13.0 52.3, 13.9 52.3, 13.9 52.75, 13.0 52.75, 13.0 52.3))';
const DAY = 86_400_000;
const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
/** "… costs 1.23 EUR; spent this month (2026-11) 4.56 EUR; the monthly budget is 0.01 EUR" */
const NAMES_FIGURES = /costs \d+\.\d\d EUR; spent this month \(\d{4}-\d\d\) \d+\.\d\d EUR; the monthly budget is 0\.01 EUR/;

let t: TestApp | null = null;
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  await t?.close();
  t = null;
  for (const c of cleanups.splice(0)) await c();
});

function policy(p: PolicyState['policy']): { policy: PolicyState } {
  return { policy: { status: 'applied', file: '/etc/swath/policy.json', problems: [], policy: p } };
}

/** What the account was charged so far: its charges (orders, downloads) and its orders. */
function billed(t: TestApp) {
  const acc = t.account();
  return { charges: acc.ledger.filter((e) => e.kind === 'Order' || e.kind === 'Download').length, balance: t.sim.state.balance(acc), orders: acc.orders.length };
}

/** The historical demo order's image dates over the small area. */
async function imageDates(t: TestApp): Promise<string[]> {
  const o = t.demoOrder(false);
  const r = await t.call('imagery:search', { request: { Wkt: SMALL, From: o.from, Until: o.to, Model: o.model, SatelliteConstellations: o.constellations } });
  return [...new Set<string>(r.data.ModelImageDates.flatMap((g: any) => g.DatesByGeog.flatMap((d: any) => d.Dates)))].map((d) => d.slice(0, 10)).sort();
}

function watchInput(t: TestApp, over: Partial<Watch> = {}) {
  const o = t.demoOrder(false);
  return {
    name: 'Spend test', source: { kind: 'aoi' as const, orderId: null, recurring: null }, area: { Wkt: SMALL },
    model: o.model, constellations: o.constellations, from: o.from, to: o.to,
    settings: { EpsgProjection: 32633, Bandnames: 'B4,B8', DataType: 'INT16' as const, Resolution: 80, PixelSelectionMode: 'intersect' as const },
    capEur: null, everyHours: 6, ...over,
  };
}

/** A composite body for a date (the watch's settings). */
function composite(t: TestApp, date: string, wkt = SMALL): Record<string, unknown> {
  return { ...watchRequest(watchInput(t, { area: { Wkt: wkt } }), date) };
}

/** An order body: every week of the last three weeks over the small area. */
function order(t: TestApp): Record<string, unknown> {
  const o = t.demoOrder(false);
  const from = day(Date.now() - 21 * DAY);
  return { Wkt: SMALL, Model: o.model, SatelliteConstellations: o.constellations, ImageFrequency: 7, ReferenceDate: from, From: from, To: day(Date.now() - DAY) };
}

async function jobState(t: TestApp, id: string, states: string[]): Promise<any> {
  let job: any;
  await expect.poll(async () => {
    job = (await t.call('downloads:list')).jobs.find((j: any) => j.id === id);
    return states.includes(job?.state);
  }, { timeout: 90_000, interval: 100 }).toBe(true);
  return job;
}

describe.each(ANSWER_STYLES)('one spend guard in main: a caller of the bridge cannot spend past the budget (%s answers)', (shapes) => {
  it('refuses an order, a composite, a split composite, a tile, a mini-tile, a series, a retry and a watch, naming the budget, the spend and the cost; nothing is charged', async () => {
    t = await startTestApp({ shapes });
    t.demoOrder(false).downloadsUsed = 1000;
    t.demoOrder(true).downloadsUsed = 1000;
    const dates = await imageDates(t);
    expect(dates.length).toBeGreaterThan(1);
    const date = dates.at(-1)!;

    // A download that fails without a charge (no order covers this date), to retry later.
    const o = t.demoOrder(false);
    const failing = await t.call('downloads:enqueue', { kind: 'composite', request: composite(t, day(Date.parse(o.from) - 60 * DAY)) });
    expect((await jobState(t, failing.id, ['failed'])).state).toBe('failed');

    await t.call('spend:set-budget', { budgetEur: 0.01 });
    const before = billed(t);
    const jobsBefore = (await t.call('downloads:list')).jobs.length;
    const [tile] = searchTiles({ type: 'Polygon', coordinates: [[[13.40, 52.50], [13.43, 52.50], [13.43, 52.52], [13.40, 52.52], [13.40, 52.50]]] }, { miniTiles: false }).cells;
    const [mini] = searchTiles({ type: 'Polygon', coordinates: [[[13.40, 52.50], [13.43, 52.50], [13.43, 52.52], [13.40, 52.52], [13.40, 52.50]]] }, { miniTiles: true }).cells;
    const tileBody = (guid: Record<string, string>) => ({ ...guid, Date: date, Model: o.model, SatelliteConstellations: o.constellations });

    const paths: [string, string, unknown][] = [
      ['order', 'tasking:create', { payload: JSON.stringify(order(t)) }],
      ['composite', 'downloads:enqueue', { kind: 'composite', request: composite(t, date) }],
      ['split composite', 'downloads:enqueue', { kind: 'composite', request: composite(t, date, LARGE) }],
      ['tile', 'downloads:enqueue', { kind: 'tile', request: tileBody({ TileGuid: tile!.Guid }) }],
      ['mini-tile', 'downloads:enqueue', { kind: 'minitile', request: tileBody({ MiniTileGuid: mini!.Guid }) }],
      ['series', 'downloads:enqueue-series', { request: composite(t, date), from: o.from, until: o.to }],
      ['retry', 'downloads:retry', { id: failing.id }],
    ];
    for (const [name, channel, request] of paths) {
      const refused = await t.call(channel, request).then(() => null, (e: unknown) => e as { kind: string; message: string });
      expect(refused, name).not.toBeNull();
      expect(refused!.kind, name).toBe('validation');
      expect(refused!.message, name).toMatch(NAMES_FIGURES);
      expect(refused!.message, name).toMatch(/confirmation in Swath's own dialog/);
    }
    // A composite that lets the service order on its own has a cost no estimate gives: it needs the analyst's word.
    await expect(t.call('downloads:enqueue', { kind: 'composite', request: { ...composite(t, date), AutomaticOrderCreation: true } }))
      .rejects.toThrow(/has an unknown cost \(AutomaticOrderCreation is on: the service may create and charge an order/);
    // The verdict main shows before: the same figures, "confirm".
    const estimate = await t.call('imagery:estimate', { request: composite(t, date) });
    expect(estimate.verdict).toMatchObject({ decision: 'confirm', budgetEur: 0.01, costKnown: true, overBudget: true });
    const orderEstimate = await t.call('tasking:estimate', { request: order(t) });
    expect(orderEstimate.verdict).toMatchObject({ decision: 'confirm', costKnown: true });
    expect(orderEstimate.verdict.costEur).toBeGreaterThan(0.01);

    // A watch pauses at the budget instead of downloading.
    const w0 = await t.call<Watch>('watches:create', watchInput(t));
    const w1 = await settled(t, w0.id);
    expect(w1.state).toBe('paused');
    expect(w1.notice).toMatch(/^Paused at the monthly budget: \d{4}-\d\d-\d\d costs/);
    expect(w1.dates).toEqual([]);

    // Loosening a limit needs main's dialog, which this host does not have.
    await expect(t.call('watches:resume', { id: w0.id, pastCap: true })).rejects.toMatchObject({ kind: 'validation' });
    await expect(t.call('spend:set-budget', { budgetEur: 1000 })).rejects.toThrow(/cannot raise the monthly budget from 0\.01 EUR to 1000\.00 EUR/);
    await expect(t.call('spend:set-budget', { budgetEur: null })).rejects.toThrow(/cannot clear the monthly budget of 0\.01 EUR/);
    expect((await t.call('spend:get', {})).budgetEur).toBe(0.01);
    // Tightening needs nothing.
    expect((await t.call('spend:set-budget', { budgetEur: 0.005 })).budgetEur).toBe(0.01);

    expect(billed(t)).toEqual(before);
    expect((await t.call('downloads:list')).jobs.length).toBe(jobsBefore);
    expect((await t.call('downloads:list')).jobs.find((j: any) => j.id === failing.id).state).toBe('failed');
    expect((await t.call('library:query', { limit: 500 })).entries).toEqual([]);
  });

  it('with main\'s confirmation (the desktop host) the spend goes ahead, asked once, and main writes the ledger; declined, nothing is spent', async () => {
    const asked: string[] = [];
    let answer = false;
    t = await startTestApp({ shapes, confirm: async (r) => (asked.push(`${r.message} ${r.detail ?? ''}`), answer) });
    t.demoOrder(false).downloadsUsed = 1000;
    const date = (await imageDates(t)).at(-1)!;
    await t.call('spend:set-budget', { budgetEur: 0.01 });
    const before = billed(t);

    await expect(t.call('tasking:create', { payload: JSON.stringify(order(t)) })).rejects.toMatchObject({ kind: 'cancelled' });
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatch(NAMES_FIGURES);
    expect(billed(t)).toEqual(before);

    answer = true;
    const job = await t.call('downloads:enqueue', { kind: 'composite', request: composite(t, date) });
    expect(asked).toHaveLength(2);
    expect((await jobState(t, job.id, ['done', 'failed'])).state).toBe('done');
    const after = billed(t);
    expect(after.charges).toBe(before.charges + 1);
    const charged = before.balance - after.balance;
    expect(charged).toBeGreaterThan(0);
    // Main's ledger holds what it spent (the check after it reads the service's billing again).
    await expect.poll(async () => (await t!.call('spend:get', {})).spentEur, { timeout: 10_000, interval: 50 }).toBeGreaterThanOrEqual(charged - 0.005);

    // A raised budget, agreed in main's dialog.
    expect((await t.call('spend:set-budget', { budgetEur: 5000 })).budgetEur).toBe(5000);
    expect(asked).toHaveLength(3);
  });

  it('two spends at once cannot both pass a budget that has room for one', async () => {
    t = await startTestApp({ shapes });
    t.demoOrder(false).downloadsUsed = 1000;
    const date = (await imageDates(t)).at(-1)!;
    const one = await t.call('imagery:estimate', { request: composite(t, date) });
    const spent = (await t.call('spend:get', {})).spentEur;
    // Room for exactly one of the two.
    await t.call('spend:set-budget', { budgetEur: Math.round((spent + one.verdict.costEur * 1.5) * 100) / 100 });
    const results = await Promise.allSettled([
      t.call('downloads:enqueue', { kind: 'composite', request: composite(t, date) }),
      t.call('downloads:enqueue', { kind: 'composite', request: composite(t, date) }),
    ]);
    expect(results.map((r) => r.status).sort()).toEqual(['fulfilled', 'rejected']);
  });
});

describe('the policy\'s budget', () => {
  it('a policy ceiling cannot be passed, not even with the analyst\'s confirmation', async () => {
    const asked: string[] = [];
    t = await startTestApp({ confirm: async (r) => (asked.push(r.message), true), distribution: policy({ monthlyBudget: { amount: 0.01, currency: 'EUR' } }) });
    t.demoOrder(false).downloadsUsed = 1000;
    const date = (await imageDates(t)).at(-1)!;
    const before = billed(t);
    await expect(t.call('tasking:create', { payload: JSON.stringify(order(t)) })).rejects.toThrow(/monthly ceiling of 0\.01 EUR, which cannot be passed/);
    await expect(t.call('downloads:enqueue', { kind: 'composite', request: composite(t, date) })).rejects.toThrow(/monthly ceiling of 0\.01 EUR/);
    await expect(t.call('spend:set-budget', { budgetEur: 5 })).rejects.toThrow(/policy caps the monthly budget at 0\.01 EUR/);
    expect(asked).toEqual([]);
    expect(billed(t)).toEqual(before);
  });

  it('a budget in another currency is reported in Settings and diagnostics, and every spend then needs confirmation', async () => {
    const asked: string[] = [];
    t = await startTestApp({ confirm: async (r) => (asked.push(r.detail ?? ''), false), distribution: policy({ monthlyBudget: { amount: 100, currency: 'USD' } }) });
    const view = await t.call('policy:get');
    expect(view.problems.join('\n')).toMatch(/monthlyBudget: 100 USD cannot be enforced: the service bills in EUR/);
    expect((await t.call('diagnostics:get')).text).toMatch(/problem: monthlyBudget: 100 USD cannot be enforced/);
    // A download included in the demo order costs 0: still not without the analyst's word.
    const date = (await imageDates(t)).at(-1)!;
    const estimate = await t.call('imagery:estimate', { request: composite(t, date) });
    expect(estimate.verdict).toMatchObject({ decision: 'confirm' });
    const before = billed(t);
    await expect(t.call('downloads:enqueue', { kind: 'composite', request: composite(t, date) })).rejects.toMatchObject({ kind: 'cancelled' });
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatch(/100 USD cannot be enforced/);
    expect(billed(t)).toEqual(before);
  });
});

/**
 * A service in front of the simulator. With `money`, its composite/estimate answers carry `money`
 * instead of their own money fields; with `lagBilling`, its billing summary keeps answering what it
 * answered first (per key), as a service that has not counted the month's new charges yet.
 * Everything else, the charges included, is the simulator's.
 */
function serviceFront(opts: { money?: Record<string, unknown>; lagBilling?: boolean }) {
  return async (simUrl: string) => {
    const target = new URL(simUrl);
    const firstBilling = new Map<string, { headers: Record<string, unknown>; body: Buffer }>();
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const key = String(req.headers['x-api-key'] ?? '');
        const billing = opts.lagBilling && req.url?.startsWith('/api/billing/summary');
        const held = billing ? firstBilling.get(key) : undefined;
        if (held) {
          res.writeHead(200, held.headers as never).end(held.body);
          return;
        }
        const up = httpRequest({ host: target.hostname, port: target.port, path: req.url, method: req.method, headers: { ...req.headers, host: target.host } }, (answer: IncomingMessage) => {
          const estimate = opts.money && req.url?.startsWith('/api/satelliteimages/process/composite/estimate');
          if ((!estimate && !billing) || answer.statusCode !== 200) {
            res.writeHead(answer.statusCode ?? 502, answer.headers);
            answer.pipe(res);
            return;
          }
          const body: Buffer[] = [];
          answer.on('data', (c: Buffer) => body.push(c));
          answer.on('end', () => {
            let out = Buffer.concat(body);
            if (estimate) {
              const json = JSON.parse(out.toString('utf8'));
              const { CreditEstimate: _c, ...rest } = json.Data;
              json.Data = { ...rest, ...opts.money };
              out = Buffer.from(JSON.stringify(json));
            }
            const headers = { 'content-type': 'application/json', 'content-length': out.length };
            if (billing) firstBilling.set(key, { headers, body: out });
            res.writeHead(200, headers).end(out);
          });
        });
        up.on('error', () => res.destroy());
        up.end(Buffer.concat(chunks));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return {
      url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      close: () => new Promise<void>((resolve) => server.close(() => resolve())),
    };
  };
}

describe('a service whose estimates carry no, a negative or several money fields', () => {
  it.each([
    ['no money field', {}, /unknown cost \(The estimate names no amount of money\.\)/],
    ['a negative amount', { CreditEstimate: -5 }, /unknown cost \(The estimate's CreditEstimate is negative \(-5\)\.\)/],
    ['several amounts', { VoucherCredit: 0, CreditEstimate: 900 }, /several different amounts \(VoucherCredit 0, CreditEstimate 900\)/],
  ])('with %s: a watch pauses without spending, under a budget or a cap; a download is refused', async (_name, money, why) => {
    t = await startTestApp({ front: serviceFront({ money }) });
    t.demoOrder(false).downloadsUsed = 1000;
    const before = billed(t);
    // No budget at all: an unknown cost still needs the analyst's word.
    const w0 = await t.call<Watch>('watches:create', watchInput(t));
    const w1 = await settled(t, w0.id);
    expect(w1.state).toBe('paused');
    expect(w1.notice).toMatch(why);
    expect(w1.dates).toEqual([]);
    // A watch with a cap pauses at the cap for the same reason.
    const w2 = await settled(t, (await t.call<Watch>('watches:create', watchInput(t, { name: 'Capped', capEur: 1000 }))).id);
    expect(w2.state).toBe('paused');
    expect(w2.notice).toMatch(/^Paused at its cap: the cost of \d{4}-\d\d-\d\d is unknown/);
    const date = (await imageDates(t)).at(-1)!;
    await expect(t.call('downloads:enqueue', { kind: 'composite', request: composite(t, date) })).rejects.toThrow(why);
    expect(billed(t)).toEqual(before);
    expect((await t.call('library:query', { limit: 500 })).entries).toEqual([]);
  });
});

describe('through the browser host', () => {
  it('a page that calls the bridge itself cannot order or download past the budget', async () => {
    t = await startTestApp();
    t.demoOrder(false).downloadsUsed = 1000;
    const date = (await imageDates(t)).at(-1)!;
    await t.call('spend:set-budget', { budgetEur: 0.01 });
    const dir = mkdtempSync(path.join(os.tmpdir(), 'swath-spend-bh-'));
    const host = await startBrowserHost({ rendererDir: dir, handlers: t.app.handlers, secrets: t.app.secrets });
    cleanups.push(async () => {
      await host.close();
      rmSync(dir, { recursive: true, force: true });
    });
    const ws = new WebSocket(`${host.origin.replace('http', 'ws')}/__swath/ws?token=${host.token}`, { origin: host.origin });
    await new Promise((resolve) => ws.once('open', resolve));
    cleanups.push(() => ws.close());
    let next = 1;
    const call = (channel: string, payload: unknown) => new Promise<any>((resolve) => {
      const id = next++;
      const onMessage = (raw: unknown) => {
        const msg = JSON.parse(String(raw));
        if (msg.id !== id) return;
        ws.off('message', onMessage);
        resolve(msg.result);
      };
      ws.on('message', onMessage);
      ws.send(JSON.stringify({ id, channel, payload }));
    });
    const before = billed(t);
    const estimated = await call('tasking:estimate', { request: order(t) });
    expect(estimated).toMatchObject({ ok: true, data: { verdict: { decision: 'confirm' } } });
    for (const [channel, payload] of [
      ['tasking:create', { payload: estimated.data.payload }],
      ['downloads:enqueue', { kind: 'composite', request: composite(t, date) }],
    ] as const) {
      const r = await call(channel, payload);
      expect(r.ok, channel).toBe(false);
      expect(r.error.kind, channel).toBe('validation');
      expect(r.error.message, channel).toMatch(NAMES_FIGURES);
    }
    // The page cannot loosen the budget either.
    expect(await call('spend:set-budget', { budgetEur: null })).toMatchObject({ ok: false, error: { kind: 'validation' } });
    expect(billed(t)).toEqual(before);
  });
});

describe('a policy-fixed download folder', () => {
  it('is where downloads, watch downloads, analysis saves and exports write', async () => {
    const root = mkdtempSync(path.join(os.tmpdir(), 'swath-spend-policy-'));
    cleanups.push(() => rmSync(root, { recursive: true, force: true }));
    const fixed = path.join(root, 'Fixed');
    const users = path.join(root, 'Mine');
    t = await startTestApp({ downloadsDir: users, distribution: policy({ downloadDir: fixed }) });
    expect((await t.call('settings:get')).downloadDir).toBe(fixed);
    await expect(t.call('settings:set', { downloadDir: users })).rejects.toMatchObject({ fields: { downloadDir: [expect.stringMatching(/policy/)] } });
    const dates = await imageDates(t);
    const inFixed = (file: string) => path.resolve(file).startsWith(fixed + path.sep);

    // A download (a page naming another folder is refused, naming the field).
    await expect(t.call('downloads:enqueue', { kind: 'composite', request: composite(t, dates.at(-1)!), targetDir: users })).rejects.toMatchObject({ fields: { targetDir: [expect.any(String)] } });
    const job = await t.call('downloads:enqueue', { kind: 'composite', request: composite(t, dates.at(-1)!) });
    const done = await jobState(t, job.id, ['done', 'failed']);
    expect(done.state).toBe('done');
    expect(inFixed(done.file)).toBe(true);

    // A watch's downloads.
    const w = await settled(t, (await t.call<Watch>('watches:create', watchInput(t, { from: dates.at(-2)!, to: dates.at(-2)! }))).id);
    expect(w.dates.map((d) => d.state)).toEqual(['downloaded']);
    expect(w.dates[0]!.files.every(inFixed)).toBe(true);

    // An analysis save.
    const entries = (await t.call('library:query', { limit: 500 })).entries as { id: string; date: string }[];
    expect(entries).toHaveLength(2);
    const [a, b] = [...entries].sort((x, y) => x.date.localeCompare(y.date));
    const change = await t.call('analysis:change', { expression: 'B8', fromId: a!.id, toId: b!.id });
    const saved = await t.call('analysis:change-save', { id: change.id });
    expect(inFixed(saved.file)).toBe(true);

    // An export (this host has no save dialog: under the download folder).
    const stac = await t.call('export:stac', { title: 'Test' });
    expect(inFixed(stac.dir)).toBe(true);
    const geojson = await t.call('export:geojson', { name: 'aoi', features: [{ type: 'Feature', properties: {}, geometry: { type: 'Point', coordinates: [13.4, 52.5] } }] });
    expect(inFixed(geojson.file)).toBe(true);

    // Nothing went to the user's own folder.
    expect(existsSync(users) ? readdirSync(users, { recursive: true }) : []).toEqual([]);
  });

  it('the profile store itself refuses edits to a locked profile', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'swath-spend-lock-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const store = await ProfileStore.open({ dir, demoKey: 'demo-test', secrets: new SecretRegistry(), keychain: new Keychain({ backend: new MemoryKeychainBackend() }) });
    const ids = await seedPolicyProfiles(store, policy({ profiles: [{ name: 'Org service', baseUrl: 'https://imagery.example.org' }] }).policy);
    expect(ids).toHaveLength(1);
    // Straight to the store, no channel in between.
    await expect(store.update(ids[0]!, { name: 'Renamed' })).rejects.toMatchObject({ kind: 'validation', fields: { id: [expect.stringMatching(/policy/)] } });
    await expect(store.delete(ids[0]!)).rejects.toThrow(/cannot be deleted/);
    // Its key is the user's to set.
    expect((await store.setKey(ids[0]!, 'sk-org-0123456789abcdef')).keySet).toBe(true);
  });
});

describe('a policy ceiling and a cost main cannot read', () => {
  it.each([
    ['AutomaticOrderCreation', null, true],
    ['a negative estimate', { CreditEstimate: -5 }, false],
  ] as const)('refuses a download whose cost is unknown or invalid (%s), though the analyst would confirm it; nothing is charged', async (_name, money, automatic) => {
    const asked: string[] = [];
    t = await startTestApp({ confirm: async (r) => (asked.push(r.message), true), distribution: policy({ monthlyBudget: { amount: 1000, currency: 'EUR' } }), ...(money ? { front: serviceFront({ money }) } : {}) });
    t.demoOrder(false).downloadsUsed = 1000;
    const date = (await imageDates(t)).at(-1)!;
    const before = billed(t);
    const jobs = (await t.call('downloads:list')).jobs.length;
    await expect(t.call('downloads:enqueue', { kind: 'composite', request: { ...composite(t, date), ...(automatic ? { AutomaticOrderCreation: true } : {}) } }))
      .rejects.toThrow(/under your organisation's monthly ceiling of 1000\.00 EUR a cost Swath cannot read is refused, since no confirmation may pass the ceiling/);
    expect(asked).toEqual([]);
    // The verdict the imagery estimate shows before is the download's own: refused, not "goes ahead".
    const estimate = await t.call('imagery:estimate', { request: { ...composite(t, date), ...(automatic ? { AutomaticOrderCreation: true } : {}) } });
    expect(estimate.verdict).toMatchObject({ decision: 'refused', costKnown: false });
    expect((await t.call('downloads:list')).jobs.length).toBe(jobs);
    expect(billed(t)).toEqual(before);
  });

  it("a watch resumed past its limit (the month's consent) still pauses at a cost main cannot read, and spends nothing", async () => {
    const asked: string[] = [];
    t = await startTestApp({ front: serviceFront({ money: {} }), confirm: async (r) => (asked.push(r.title), true) });
    t.demoOrder(false).downloadsUsed = 1000;
    const before = billed(t);
    const w1 = await settled(t, (await t.call<Watch>('watches:create', watchInput(t))).id);
    expect(w1.state).toBe('paused');
    await t.call('watches:resume', { id: w1.id, pastCap: true });
    expect(asked).toEqual(['Spend past the limit?']);
    const w2 = await settled(t, w1.id, w1.lastRunAt);
    expect(w2.state).toBe('paused');
    expect(w2.notice).toMatch(/unknown cost \(The estimate names no amount of money\.\).*Download that date yourself to confirm its cost\.$/);
    expect(w2.dates.filter((d) => d.state === 'downloaded')).toEqual([]);
    expect(asked).toHaveLength(1);
    expect(billed(t)).toEqual(before);
  });
});

/** A composite download to its end, through the bridge. */
async function downloaded(t: TestApp, date: string): Promise<void> {
  const job = await t.call('downloads:enqueue', { kind: 'composite', request: composite(t, date) });
  expect((await jobState(t, job.id, ['done', 'failed'])).state).toBe('done');
}

describe("spend the service's billing does not show yet", () => {
  it('still counts: of two downloads that each fit under the ceiling but not together, the second is refused while billing lags', async () => {
    const money = { CreditEstimate: 0 };
    t = await startTestApp({ front: serviceFront({ money, lagBilling: true }), distribution: policy({ monthlyBudget: { amount: 100, currency: 'EUR' } }) });
    t.demoOrder(false).downloadsUsed = 1000;
    const dates = await imageDates(t);
    const start = await t.call('spend:get', {});
    expect(start.source).toBe('billing');
    // Two spends of 90% of what the ceiling leaves (90 EUR each from an empty month).
    money.CreditEstimate = Math.round((100 - start.spentEur) * 0.9 * 100) / 100;
    await downloaded(t, dates.at(-1)!);
    const after = await t.call('spend:get', {});
    expect(after.spentEur).toBeCloseTo(start.spentEur + money.CreditEstimate, 2);
    await expect(t.call('downloads:enqueue', { kind: 'composite', request: composite(t, dates.at(-2)!) })).rejects.toThrow(/monthly ceiling of 100\.00 EUR, which cannot be passed/);
    expect(t.events.some((e) => e.event === 'spend:changed')).toBe(true);
  });
});

describe('the month is the account\'s, not the profile\'s', () => {
  it('two profiles holding one key for one service share the spend, the budget and the ceiling; the key is stored nowhere', async () => {
    const KEY = 'sk-shared-0123456789abcdef';
    const money = { CreditEstimate: 0 };
    t = await startTestApp({ extraKeys: { [KEY]: 'demo-key' }, front: serviceFront({ money, lagBilling: true }), distribution: policy({ monthlyBudget: { amount: 100, currency: 'EUR' } }) });
    t.demoOrder(false).downloadsUsed = 1000;
    const base = (await t.call('profiles:list')).profiles.find((p: any) => p.builtIn).baseUrl as string;
    const a = await t.call('profiles:create', { name: 'Analyst A', baseUrl: base, key: KEY });
    const b = await t.call('profiles:create', { name: 'Analyst B', baseUrl: `${base}/`, key: KEY });
    await t.call('profiles:activate', { id: a.id });
    const dates = await imageDates(t);
    const start = await t.call('spend:get', {});
    money.CreditEstimate = Math.round((100 - start.spentEur) * 0.6 * 100) / 100;
    await t.call('spend:set-budget', { budgetEur: 99 });
    await downloaded(t, dates.at(-1)!);

    await t.call('profiles:activate', { id: b.id });
    const seen = await t.call('spend:get', {});
    expect(seen).toMatchObject({ profileId: b.id, budgetEur: 99 });
    expect(seen.spentEur).toBeCloseTo(start.spentEur + money.CreditEstimate, 2);
    const before = billed(t);
    await expect(t.call('downloads:enqueue', { kind: 'composite', request: composite(t, dates.at(-2)!) })).rejects.toThrow(/monthly ceiling of 100\.00 EUR/);
    expect(billed(t)).toEqual(before);

    // The spend tables name the account by the service and a fingerprint of the key, never the key.
    const db = ['swath.db', 'swath.db-wal'].map((f) => path.join(t!.dir, f)).filter(existsSync).map((f) => readFileSync(f).toString('latin1')).join('');
    expect(db).toContain(`${base} key:`);
    expect(db).not.toContain(KEY);
  });
});

describe('with no budget and no ceiling', () => {
  it('a known cost above 50 EUR still asks in main, and the browser host (no dialog) refuses it', async () => {
    t = await startTestApp({ front: serviceFront({ money: { CreditEstimate: 60 } }) });
    t.demoOrder(false).downloadsUsed = 1000;
    expect((await t.call('spend:get', { costEur: 49.99 })).decision).toBe('ok');
    const big = await t.call('spend:get', { costEur: 50.01 });
    expect(big).toMatchObject({ decision: 'confirm', budgetEur: null, ceilingEur: null });
    expect(big.reason).toMatch(/with no monthly budget, a spend above 50\.00 EUR needs your confirmation/);
    const before = billed(t);
    const date = (await imageDates(t)).at(-1)!;
    await expect(t.call('downloads:enqueue', { kind: 'composite', request: composite(t, date) }))
      .rejects.toThrow(/costs 60\.00 EUR; .*with no monthly budget, a spend above 50\.00 EUR needs your confirmation\. Going on needs your confirmation in Swath's own dialog/);
    expect(billed(t)).toEqual(before);
  });

  it('the policy sets that threshold: a download above it asks in main, and without a dialog is refused', async () => {
    const asked: string[] = [];
    let answer = false;
    t = await startTestApp({ confirm: async (r) => (asked.push(r.detail ?? ''), answer), distribution: policy({ confirmSpendAboveEur: 0.01 }) });
    t.demoOrder(false).downloadsUsed = 1000;
    const date = (await imageDates(t)).at(-1)!;
    const before = billed(t);
    await expect(t.call('downloads:enqueue', { kind: 'composite', request: composite(t, date) })).rejects.toMatchObject({ kind: 'cancelled' });
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatch(/with no monthly budget, a spend above 0\.01 EUR needs your confirmation/);
    expect(billed(t)).toEqual(before);
    answer = true;
    await downloaded(t, date);
    expect(asked).toHaveLength(2);
  });
});

