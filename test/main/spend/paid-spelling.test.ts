import { afterEach, describe, expect, it } from 'vitest';
import { searchTiles } from '../../../simulator/geo/tile-grid';
import { watchRequest } from '../../../main/watches';
import { startTestApp, type TestApp } from '../watches/app-helpers';

// A field in another case is the same field to the service (it binds names in any case), so main
// prices, checks and sends the one canonical spelling, and refuses an unknown field or one given
// twice. Driven as a page drives the bridge (no native dialog: the browser host), against the
// app's embedded simulator; its ledger and orders say whether anything was charged.

const SMALL = 'POLYGON((13.40 52.50, 13.43 52.50, 13.43 52.52, 13.40 52.52, 13.40 52.50))';
/** Covered by the demo order too, about 40 times SMALL. */
const WIDER = 'POLYGON((13.30 52.45, 13.50 52.45, 13.50 52.55, 13.30 52.55, 13.30 52.45))';
/** No order covers it: only AutomaticOrderCreation would make the service serve it (and bill an order for it). */
const HAMBURG = 'POLYGON((9.95 53.52, 9.98 53.52, 9.98 53.54, 9.95 53.54, 9.95 53.52))';
const DAY = 86_400_000;
const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const SMALL_POLY = { type: 'Polygon' as const, coordinates: [[[13.40, 52.50], [13.43, 52.50], [13.43, 52.52], [13.40, 52.52], [13.40, 52.50]]] };
const WIDER_POLY = { type: 'Polygon' as const, coordinates: [[[13.30, 52.45], [13.50, 52.45], [13.50, 52.55], [13.30, 52.55], [13.30, 52.45]]] };

let t: TestApp | null = null;
afterEach(async () => {
  await t?.close();
  t = null;
});

function billed(t: TestApp) {
  const acc = t.account();
  return { charges: acc.ledger.filter((e) => e.kind === 'Order' || e.kind === 'Download').length, balance: t.sim.state.balance(acc), orders: acc.orders.length };
}

function composite(t: TestApp, date: string, wkt = SMALL): Record<string, unknown> {
  const o = t.demoOrder(false);
  return {
    ...watchRequest({
      area: { Wkt: wkt }, model: o.model, constellations: o.constellations,
      settings: { EpsgProjection: 32633, Bandnames: 'B4,B8', DataType: 'INT16', Resolution: 80, PixelSelectionMode: 'intersect' },
    } as never, date),
  };
}

function order(t: TestApp): Record<string, unknown> {
  const o = t.demoOrder(false);
  const from = day(Date.now() - 21 * DAY);
  return { Wkt: SMALL, Model: o.model, SatelliteConstellations: o.constellations, ImageFrequency: 7, ReferenceDate: from, From: from, To: day(Date.now() - DAY) };
}

async function refusal(p: Promise<unknown>): Promise<{ kind: string; message: string; fields?: Record<string, string[]> }> {
  const r = await p.then(() => null, (e: unknown) => e as { kind: string; message: string; fields?: Record<string, string[]> });
  expect(r, 'the call went through').not.toBeNull();
  return r!;
}

async function finished(t: TestApp, id: string): Promise<any> {
  let job: any;
  await expect.poll(async () => {
    job = (await t.call('downloads:list')).jobs.find((j: any) => j.id === id);
    return ['done', 'failed', 'cancelled'].includes(job?.state);
  }, { timeout: 60_000, interval: 100 }).toBe(true);
  return job;
}

describe('one canonical paid request: other spellings are priced as what they are, or refused', () => {
  it('under a budget, no spelling of AutomaticOrderCreation, no field given twice and no unknown field gets a charge past main', async () => {
    t = await startTestApp();
    t.demoOrder(false).downloadsUsed = 1000;
    const o = t.demoOrder(false);
    const date = day(Date.parse(o.to!) - 2 * DAY);
    // Room for a plain small download (a few cents), not for an order or the wider area.
    await t.call('spend:set-budget', { budgetEur: 0.2 });
    const plain = await t.call('imagery:estimate', { request: composite(t, date, HAMBURG) });
    expect(plain.verdict).toMatchObject({ decision: 'ok', costKnown: true });
    const before = billed(t);
    const jobs = (await t.call('downloads:list')).jobs.length;
    const [m1, m2] = searchTiles(WIDER_POLY, { miniTiles: true }).cells;
    const [tile] = searchTiles(SMALL_POLY, { miniTiles: false }).cells;
    const tileBody = (guid: Record<string, string>) => ({ ...guid, Date: date, Model: o.model, SatelliteConstellations: o.constellations });

    // Another case of AutomaticOrderCreation is AutomaticOrderCreation: a cost no estimate gives, which needs main's dialog.
    const ordering = (name: string, wkt = HAMBURG) => {
      const { AutomaticOrderCreation: _off, ...rest } = composite(t!, date, wkt);
      return { ...rest, [name]: true };
    };
    for (const name of ['automaticOrderCreation', 'automaticordercreation', 'AUTOMATICORDERCREATION']) {
      const request = ordering(name);
      const r = await refusal(t.call('downloads:enqueue', { kind: 'composite', request }));
      expect(r.message, name).toMatch(/has an unknown cost \(AutomaticOrderCreation is on/);
      const series = await refusal(t.call('downloads:enqueue-series', { request: ordering(name, SMALL), from: o.from, until: o.to }));
      expect(series.message, name).toMatch(/unknown cost/);
    }
    const plan = await refusal(t.call('downloads:plan', { request: { ...ordering('automaticOrderCreation'), AutomaticOrderCreation: false } }));
    expect(plan.fields).toHaveProperty('AutomaticOrderCreation');
    // The plan of a request that may create an order says so: its cost is unknown, never "ok" on the parts' sum.
    const planned = await t.call('downloads:plan', { request: ordering('automaticOrderCreation') });
    expect(planned.verdict).toMatchObject({ costKnown: false });
    expect(planned.verdict.decision).not.toBe('ok');

    // The same field twice, in two cases: refused by name, whichever the service would have read.
    const twice: [string, Record<string, unknown>, string][] = [
      ['composite', { ...composite(t, date, HAMBURG), automaticOrderCreation: true }, 'automaticOrderCreation'],
      ['composite', { ...composite(t, date), wkt: WIDER }, 'wkt'],
      ['minitile', { ...tileBody({ MiniTileGuid: m1!.Guid }), miniTileGuid: m2!.Guid }, 'miniTileGuid'],
      ['tile', { ...tileBody({ TileGuid: tile!.Guid }), TILEGUID: tile!.Guid }, 'TILEGUID'],
    ];
    for (const [kind, request, field] of twice) {
      const r = await refusal(t.call('downloads:enqueue', { kind, request }));
      expect(r.kind, field).toBe('validation');
      expect(r.fields, field).toHaveProperty(field);
      expect(r.message, field).toMatch(/differ only by case/);
    }

    // A field the contract does not list: an estimate "as if" a large spend was made prices a cheaper tier than create charges.
    const asIf = { ...order(t), SimulatedEuroUsage: 1_000_000 };
    expect((await refusal(t.call('tasking:estimate', { request: asIf }))).fields).toHaveProperty('SimulatedEuroUsage');
    expect((await refusal(t.call('tasking:create', { payload: JSON.stringify(asIf) }))).fields).toHaveProperty('SimulatedEuroUsage');
    expect((await refusal(t.call('tasking:create', { payload: JSON.stringify({ ...order(t), simulatedEuroUsage: 1_000_000 }) }))).fields).toHaveProperty('simulatedEuroUsage');

    expect(billed(t)).toEqual(before);
    expect((await t.call('downloads:list')).jobs.length).toBe(jobs);
  });

  it('a GUID or a field in another case is priced and sent in the canonical spelling', async () => {
    t = await startTestApp();
    t.demoOrder(false).downloadsUsed = 1000;
    const o = t.demoOrder(false);
    const date = day(Date.parse(o.to!) - 2 * DAY);
    const [mini] = searchTiles(SMALL_POLY, { miniTiles: true }).cells;
    const canonical = await t.call('imagery:estimate', { request: { MiniTileGuid: mini!.Guid } });
    const other = await t.call('imagery:estimate', { request: { minitileguid: mini!.Guid } });
    expect(other.data).toEqual(canonical.data);
    expect(other.verdict.costEur).toBeGreaterThan(0);

    const before = billed(t);
    const job = await t.call('downloads:enqueue', { kind: 'minitile', request: { miniTileGuid: mini!.Guid, date, model: o.model, satelliteConstellations: o.constellations } });
    expect(job.request).toEqual({ MiniTileGuid: mini!.Guid, Date: date, Model: o.model, SatelliteConstellations: o.constellations });
    expect((await finished(t, job.id)).state).toBe('done');
    const after = billed(t);
    expect(after.charges).toBe(before.charges + 1);
    expect(before.balance - after.balance).toBeCloseTo(other.verdict.costEur, 2);
    expect(t.account().ledger.at(-1)!.description).toContain(mini!.Guid);

    // An order in other spellings: estimated and created as one canonical payload, the one the estimate returned.
    const lower = Object.fromEntries(Object.entries(order(t)).map(([k, v]) => [k.toLowerCase(), v]));
    const estimate = await t.call('tasking:estimate', { request: lower });
    expect(estimate.payload).toBe(JSON.stringify(order(t)));
    const created = await t.call('tasking:create', { payload: JSON.stringify(lower) });
    expect(created.data).toBeTruthy();
    expect(t.account().orders.length).toBe(before.orders + 1);
  });
});
