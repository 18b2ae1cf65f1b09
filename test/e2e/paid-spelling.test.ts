import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type RunningSimulator } from '../../simulator';
import { searchTiles } from '../../simulator/geo/tile-grid';
import type { Account } from '../../simulator/state';
import type { PolicyState } from '../../main/policy';
import { chromiumAvailable } from './chromium';
import { openWorkspace, waitForMap, type Workspace } from './workspace-harness';

// A page that calls the bridge itself, with any spelling of a paid request's fields: the service
// binds names in any case, so main prices what it will send in the one canonical spelling and
// refuses a field given twice or one the contract does not list. The browser host has no native
// dialog, so whatever needs the analyst's consent is refused: under a budget and under the
// policy's ceiling, the account is charged nothing and no order is created.

const DAY = 86_400_000;
const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
/** Inside the demo order. */
const SMALL = 'POLYGON((13.40 52.50, 13.43 52.50, 13.43 52.52, 13.40 52.52, 13.40 52.50))';
const WIDER = 'POLYGON((13.30 52.45, 13.50 52.45, 13.50 52.55, 13.30 52.55, 13.30 52.45))';
/** No order covers it: the service serves it only by creating (and billing) an order itself. */
const HAMBURG = 'POLYGON((9.95 53.52, 9.97 53.52, 9.97 53.54, 9.95 53.54, 9.95 53.52))';
const poly = (w: number, s: number, e: number, n: number) => ({ type: 'Polygon' as const, coordinates: [[[w, s], [e, s], [e, n], [w, n], [w, s]]] });

/** One call the page makes: a bridge method, its request, and what main must answer. */
type Attempt = { name: string; method: string; request: unknown; refusal: RegExp };

function attempts(account: Account): Attempt[] {
  const o = account.orders.find((x) => x.to != null)!;
  const date = day(Date.parse(o.to!) - 2 * DAY);
  const base = (wkt: string) => ({
    Wkt: wkt, Date: date, Model: o.model, SatelliteConstellations: o.constellations, Resolution: 80, EpsgProjection: 32633,
    FileType: 'tif', PixelSelectionMode: 'intersect', DataType: 'INT16', Bandnames: 'B4,B8',
  });
  const [tile] = searchTiles(poly(13.40, 52.50, 13.43, 52.52), { miniTiles: false }).cells;
  const [m1, m2] = searchTiles(poly(13.30, 52.45, 13.50, 52.55), { miniTiles: true }).cells;
  const tileBody = { Date: date, Model: o.model, SatelliteConstellations: o.constellations };
  const from = day(Date.now() - 21 * DAY);
  const order = { Wkt: SMALL, Model: o.model, SatelliteConstellations: o.constellations, ImageFrequency: 7, ReferenceDate: from, From: from, To: day(Date.now() - DAY) };
  const consent = /was not done: .*(unknown cost|costs \d+\.\d\d EUR)/;
  const twice = /differ only by case/;
  const unknown = /is not a field of/;
  const out: Attempt[] = [];
  for (const name of ['automaticOrderCreation', 'automaticordercreation', 'AUTOMATICORDERCREATION']) {
    out.push({ name: `composite, ${name}`, method: 'downloadsEnqueue', request: { kind: 'composite', request: { ...base(HAMBURG), [name]: true } }, refusal: /was not done: .*unknown cost/ });
    out.push({ name: `series, ${name}`, method: 'downloadsEnqueueSeries', request: { request: { ...base(SMALL), [name]: true }, from: o.from, until: o.to }, refusal: /was not done: .*unknown cost/ });
  }
  out.push(
    { name: 'composite, AutomaticOrderCreation twice', method: 'downloadsEnqueue', request: { kind: 'composite', request: { ...base(HAMBURG), AutomaticOrderCreation: false, automaticOrderCreation: true } }, refusal: twice },
    { name: 'composite, Wkt twice', method: 'downloadsEnqueue', request: { kind: 'composite', request: { ...base(SMALL), wkt: WIDER } }, refusal: twice },
    { name: 'plan, Wkt twice', method: 'downloadsPlan', request: { request: { ...base(SMALL), WKT: WIDER } }, refusal: twice },
    { name: 'tile, tileGuid', method: 'downloadsEnqueue', request: { kind: 'tile', request: { tileGuid: tile!.Guid, ...tileBody } }, refusal: consent },
    { name: 'tile, TILEGUID', method: 'downloadsEnqueue', request: { kind: 'tile', request: { TILEGUID: tile!.Guid, ...tileBody } }, refusal: consent },
    { name: 'tile, TileGuid twice', method: 'downloadsEnqueue', request: { kind: 'tile', request: { TileGuid: tile!.Guid, tileguid: tile!.Guid, ...tileBody } }, refusal: twice },
    { name: 'mini-tile, miniTileGuid', method: 'downloadsEnqueue', request: { kind: 'minitile', request: { miniTileGuid: m1!.Guid, ...tileBody } }, refusal: consent },
    { name: 'mini-tile, MINITILEGUID', method: 'downloadsEnqueue', request: { kind: 'minitile', request: { MINITILEGUID: m1!.Guid, ...tileBody } }, refusal: consent },
    { name: 'mini-tile, MiniTileGuid twice', method: 'downloadsEnqueue', request: { kind: 'minitile', request: { MiniTileGuid: m1!.Guid, miniTileGuid: m2!.Guid, ...tileBody } }, refusal: twice },
    { name: 'order estimate, simulatedEuroUsage', method: 'taskingEstimate', request: { request: { ...order, simulatedEuroUsage: 1_000_000 } }, refusal: unknown },
    { name: 'order, SimulatedEuroUsage', method: 'taskingCreate', request: { payload: JSON.stringify({ ...order, SimulatedEuroUsage: 1_000_000 }) }, refusal: unknown },
    { name: 'order, From twice', method: 'taskingCreate', request: { payload: JSON.stringify({ ...order, from: day(Date.now() - 400 * DAY) }) }, refusal: twice },
  );
  return out;
}

/** Every attempt made by the page itself; what each answered. */
async function attemptAll(ws: Workspace, list: Attempt[]): Promise<{ name: string; ok: boolean; message: string }[]> {
  return ws.page.evaluate(async (calls) => {
    const swath = (window as unknown as { swath: Record<string, (r: unknown) => Promise<{ ok: boolean; error?: { message: string } }>> }).swath;
    const out = [];
    for (const c of calls) {
      const r = await swath[c.method]!(c.request);
      out.push({ name: c.name, ok: r.ok, message: r.error?.message ?? '' });
    }
    return out;
  }, list.map(({ name, method, request }) => ({ name, method, request })));
}

function scenario(title: string, setup: { policy?: PolicyState; budgetEur?: number }) {
  describe.skipIf(!chromiumAvailable())(title, () => {
    let ws: Workspace;
    let sim: RunningSimulator;
    const account = (): Account => Object.values(sim.state.accounts).find((a) => a.profile.seedDemoOrder)!;
    const billed = () => ({ charges: account().ledger.filter((e) => e.kind === 'Order' || e.kind === 'Download').length, orders: account().orders.length, balance: sim.state.balance(account()) });

    beforeAll(async () => {
      ws = await openWorkspace({
        ...(setup.policy ? { app: { distribution: { policy: setup.policy } } } : {}),
        startSimulator: async (o) => {
          sim = await startSimulator(o);
          return sim;
        },
      });
      await waitForMap(ws.page);
      // Every download costs credit (the demo orders' included downloads are used up).
      for (const o of account().orders) o.downloadsUsed = 1000;
    });
    afterAll(async () => {
      await ws?.close();
    });

    it('the page\'s own calls in other spellings are refused or need a consent this host refuses; nothing is created or charged', async () => {
      const page = ws.page;
      if (setup.budgetEur !== undefined) {
        const set = await page.evaluate((budgetEur) => (window as unknown as { swath: { spendSetBudget(r: unknown): Promise<{ ok: boolean }> } }).swath.spendSetBudget({ budgetEur }), setup.budgetEur);
        expect(set.ok).toBe(true);
      }
      const list = attempts(account());
      // Room for the plain small download an ordering one would be priced as, not for what the service would charge.
      const ordering = (list[0]!.request as { request: Record<string, unknown> }).request;
      const { automaticOrderCreation: _on, ...alone } = ordering;
      const plain = await page.evaluate(async (request) => (window as unknown as { swath: { imageryEstimate(r: unknown): Promise<any> } }).swath.imageryEstimate({ request }), alone);
      expect(plain.ok).toBe(true);
      expect(plain.data.verdict).toMatchObject({ decision: 'ok', costKnown: true });
      // The same request with AutomaticOrderCreation on, in another case: its estimate says its cost is not known.
      const estimated = await page.evaluate(async (request) => (window as unknown as { swath: { imageryEstimate(r: unknown): Promise<any> } }).swath.imageryEstimate({ request }), ordering);
      expect(estimated.data.verdict).toMatchObject({ costKnown: false });
      expect(estimated.data.verdict.decision).not.toBe('ok');
      const before = billed();
      const jobs = await page.evaluate(async () => (await (window as unknown as { swath: { downloadsList(r: unknown): Promise<any> } }).swath.downloadsList({})).data.total);

      const answers = await attemptAll(ws, list);
      for (const [i, a] of answers.entries()) {
        expect(a.ok, a.name).toBe(false);
        expect(a.message, a.name).toMatch(list[i]!.refusal);
      }
      expect(billed()).toEqual(before);
      expect(await page.evaluate(async () => (await (window as unknown as { swath: { downloadsList(r: unknown): Promise<any> } }).swath.downloadsList({})).data.total)).toBe(jobs);
      expect(ws.pageErrors).toEqual([]);
    });
  });
}

scenario('browser host: a page\'s own paid calls in other spellings, under a budget', { budgetEur: 0.05 });
scenario('browser host: a page\'s own paid calls in other spellings, under the policy\'s ceiling', {
  policy: { status: 'applied', file: '/etc/swath/policy.json', problems: [], policy: { monthlyBudget: { amount: 0.05, currency: 'EUR' } } },
});
