import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator } from '../../simulator/index.js';
import { SMALL_AOI, UNCOVERED_AOI, demoDate, startTestSim, type TestSim } from './helpers.js';

const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as unknown as (ajv: Ajv) => Ajv;

/** Every object schema made closed, so an answer field the spec does not publish fails too. */
function closed(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(closed);
  if (!node || typeof node !== 'object') return node;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node)) out[k] = closed(v);
  if (out.type === 'object' && out.properties && out.additionalProperties === undefined) out.additionalProperties = false;
  // OpenAPI 3.0 writes a nullable reference as {allOf: [$ref], nullable: true}; JSON Schema says anyOf null.
  if (out.nullable === true && out.type === undefined) {
    const { nullable: _, ...rest } = out;
    return { anyOf: [rest, { type: 'null' }] };
  }
  return out;
}

/** Validates answers against the 200 (or error) schemas the simulator itself publishes. */
class SpecChecker {
  private readonly ajv = new Ajv({ strict: false, allErrors: true });
  private readonly cache = new Map<string, ValidateFunction>();
  constructor(readonly spec: any) {
    addFormats(this.ajv);
    this.ajv.addSchema({ $id: 'spec', components: closed(spec.components) });
  }

  check(method: string, path: string, status: number, json: unknown): string[] {
    const op = this.spec.paths[path]?.[method.toLowerCase()];
    if (!op) return [`${method} ${path} is not published`];
    const schema = op.responses[String(status)]?.content?.['application/json']?.schema;
    if (!schema) return [`${method} ${path} publishes no JSON answer for ${status}`];
    const key = `${method} ${path} ${status}`;
    let v = this.cache.get(key);
    if (!v) {
      v = this.ajv.compile({ $ref: `spec${schema.$ref}` });
      this.cache.set(key, v);
    }
    return v(json) ? [] : (v.errors ?? []).map((e) => `${key}: ${e.instancePath} ${e.message} ${JSON.stringify(e.params)}`);
  }
}

const ORDER = {
  Wkt: UNCOVERED_AOI, Model: 'Stratus2', SatelliteConstellations: ['Sentinel1', 'Sentinel2'],
  StorageMonths: 0, ApiRequests: 0, ImageFrequency: 7, ReferenceDate: '2026-01-01', From: '2026-10-01', To: null,
};

for (const shapes of ['production', 'variant'] as const) {
  describe(`answers in the ${shapes} style match the spec the simulator publishes`, () => {
    let t: TestSim;
    let checker: SpecChecker;
    const seen = new Set<string>();
    /** Calls the simulator and checks the answer against its published schema. */
    const call = async (method: string, path: string, body?: unknown, expectStatus = 200) => {
      const r = await t.call(method, path, body);
      expect(r.status, `${method} ${path}: ${JSON.stringify(r.json)}`).toBe(expectStatus);
      const template = path.replace(/\?.*$/, '').replace(/\/\d{4}-\d{1,2}$/, '/{year}-{month}');
      expect(checker.check(method, template, r.status, r.json)).toEqual([]);
      expect(Object.keys(r.json)).toEqual(['Data', 'Succeeded', 'Error']);
      if (r.status === 200) {
        seen.add(`${method.toLowerCase()} ${template}`);
        expect(r.json.Error).toBeNull();
      }
      return r.json;
    };
    // The style's names for the parameters it may rename.
    const q = shapes === 'variant'
      ? { guid: 'orderId', recurring: 'onlyRecurring', expired: 'includeExpired', voucher: 'Voucher' }
      : { guid: 'taskOrderGuid', recurring: 'recurringOnly', expired: 'getExpired', voucher: 'VoucherCode' };

    beforeAll(async () => {
      t = await startTestSim({ shapes });
      checker = new SpecChecker(await (await fetch(`${t.url}/api/specification.json`)).json());
    });
    afterAll(() => t.close());

    it('publishes its style and every JSON operation, and every answer validates (closed objects)', async () => {
      expect(checker.spec.info['x-answer-style']).toBe(shapes);
      const date = await demoDate(t);
      await call('GET', '/api/account/info');
      await call('GET', '/api/apikey/info');
      await call('GET', '/api/account/settings');
      await call('GET', '/api/billing/summary');
      await call('GET', '/api/billing/orders/2026-11');
      await call('GET', '/api/billing/transactions/2026-11');
      await call('POST', '/api/billing/vouchers/redeem', { [q.voucher]: 'SWATH-DEMO-50' });
      await call('POST', '/api/satelliteimages/geography/composite', { Wkt: SMALL_AOI, From: '2026-01-01', To: '2026-11-22' });
      await call('POST', '/api/satelliteimages/search/available', { Wkt: SMALL_AOI, From: '2026-01-01', Until: null });
      await call('POST', '/api/satelliteimages/process/composite/available', { Wkt: SMALL_AOI, Date: date, Model: 'Stratus2' });
      await call('POST', '/api/satelliteimages/process/composite/estimate', { Wkt: SMALL_AOI, Date: date, Model: 'Stratus2' });
      await call('POST', '/api/satelliteproducts/satellitezones/composite', { Wkt: SMALL_AOI, From: '2026-10-01', To: '2026-10-20' });
      await call('POST', '/api/satelliteproducts/acquisitionplans', { Wkt: SMALL_AOI });
      await call('GET', '/api/tasking/models');
      await call('POST', '/api/tasking/search/tiles', { Wkt: UNCOVERED_AOI });
      await call('POST', '/api/tasking/orders/estimate', ORDER);
      const created = await call('POST', '/api/tasking/orders', ORDER);
      const guid = shapes === 'variant' ? created.Data.orderId : created.Data.TaskOrderGuid;
      await call('GET', `/api/tasking/orders?${q.recurring}=True&${q.expired}=false`);
      await call('GET', `/api/tasking/orders/details?${q.guid}=${guid}`);
      await call('DELETE', `/api/tasking/orders/cancel?${q.guid}=${guid}`);
      // Failures validate too, and name the style's own request fields.
      const bad = await call('DELETE', `/api/tasking/orders/cancel?${q.guid}=${guid}`, undefined, 400);
      expect(Object.keys(bad.Data)).toEqual([q.guid]);
      const ops = Object.entries(checker.spec.paths as Record<string, Record<string, any>>)
        .flatMap(([p, m]) => Object.entries(m).filter(([, op]) => op.responses['200'].content?.['application/json']).map(([k]) => `${k} ${p}`));
      expect([...seen].sort()).toEqual(ops.sort());
    });
  });
}

describe('what differs between the styles', () => {
  let prod: TestSim;
  let variant: TestSim;
  beforeAll(async () => {
    [prod, variant] = await Promise.all([startTestSim(), startTestSim({ shapes: 'variant' })]);
  });
  afterAll(() => Promise.all([prod.close(), variant.close()]));

  const both = async (method: string, path: string, body?: unknown) =>
    Promise.all([prod.call(method, path, body), variant.call(method, path, body)]).then((r) => r.map((x) => x.json.Data));

  it('production: the shapes the facts name (TaskOrders, Epsg text, Key echoed, Costs, dates as days)', async () => {
    const [list] = await both('GET', '/api/tasking/orders');
    expect(Object.keys(list)).toEqual(['TaskOrders']);
    expect(list.TaskOrders[0]).toMatchObject({ TaskOrderGuid: expect.any(String), BillingCycle: expect.any(String), OrderingProcessStatus: expect.any(String) });
    expect(list.TaskOrders[0].From).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    const [tiles] = await both('POST', '/api/tasking/search/tiles', { Wkt: UNCOVERED_AOI });
    expect(tiles.Tiles[0].Epsg).toBe('32631');
    const [info] = await both('GET', '/api/apikey/info');
    expect(info.Key).toBe('demo-key');
  });

  it('variant: other names and casing, Epsg a number, date-times, extra fields, reversed order; contract names stay', async () => {
    const [pList, vList] = await both('GET', '/api/tasking/orders');
    expect(vList.TaskOrders).toBeUndefined();
    const row = vList.items[0];
    // An extra field first, then production's fields in reverse order.
    expect(Object.keys(row)[0]).toBe('etag');
    expect(Object.keys(pList.TaskOrders[0])[0]).toBe('TaskOrderGuid');
    expect(Object.keys(row).at(-1)).toBe('orderId');
    expect(row.orderId).toMatch(/^[0-9a-f-]{36}$/);
    expect(row.start).toBe(`${pList.TaskOrders[0].From}T00:00:00Z`);
    expect(vList.traceId).toMatch(/^[0-9a-f]{16}$/);
    const [, vTiles] = await both('POST', '/api/tasking/search/tiles', { Wkt: UNCOVERED_AOI });
    expect(vTiles.cells[0]).toMatchObject({ epsgCode: 32631, isMiniTile: false });
    const [, vInfo] = await both('GET', '/api/account/info');
    expect(vInfo.apiKey).toBe('demo-key');
    expect(vInfo.Key).toBeUndefined();
    const [pEst, vEst] = await both('POST', '/api/tasking/orders/estimate', ORDER);
    expect(vEst.costBreakdown.currency).toBe('EUR');
    expect(vEst.areaSqKm).toBe(pEst.AreaKm2);
    expect(vEst.cancellationDate).toBe(`${pEst.CancellationDate}T00:00:00Z`);
    for (const k of ['Data', 'Succeeded', 'Error']) expect(Object.keys((await variant.call('GET', '/api/tasking/models')).json)).toContain(k);
    const [pModels, vModels] = await both('GET', '/api/tasking/models');
    expect(vModels.TaskingModels.map((m: any) => m.Model)).toEqual(pModels.TaskingModels.map((m: any) => m.Model));
    expect(vModels.TaskingModels[0].SupportedSatelliteConstellations[0]).toMatchObject(pModels.TaskingModels[0].SupportedSatelliteConstellations[0]);
    const [, vBilling] = await both('GET', '/api/billing/summary');
    expect(Object.keys(vBilling)).toContain('balanceEur');
    const [, vProducts] = await both('POST', '/api/satelliteproducts/satellitezones/composite', { Wkt: SMALL_AOI, From: '2026-10-01', To: '2026-10-05' });
    expect(vProducts.scenes[0].date).toMatch(/T00:00:00Z$/);
  });

  it('variant: the renamed request parameters are the only ones it reads', async () => {
    const guid = (await prod.call('GET', '/api/tasking/orders')).json.Data.TaskOrders[0].TaskOrderGuid;
    const old = await variant.call('GET', `/api/tasking/orders/details?taskOrderGuid=${guid}`);
    expect(old.status).toBe(400);
    expect(old.json.Data).toEqual({ orderId: ['The orderId field is required.'] });
    const voucher = await variant.call('POST', '/api/billing/vouchers/redeem', { VoucherCode: 'SWATH-DEMO-50' });
    expect(voucher.status).toBe(400);
    expect(Object.keys(voucher.json.Data)).toEqual(['Voucher']);
  });

  it('an unknown style is refused at start', async () => {
    await expect(startSimulator({ shapes: 'fancy' })).rejects.toThrow(/production or variant/);
  });
});
