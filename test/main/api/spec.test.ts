import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError } from '../../../main/api/errors.js';
import { parseSpec, specCacheFile, toJsonSchema } from '../../../main/api/spec.js';
import { SMALL_AOI, listRows, startTestSim, type TestSim } from '../../simulator/helpers.js';
import { doctorDrift, makeClient, startDoctoringProxy, type TestClient } from './helpers.js';

async function failure(p: Promise<unknown>): Promise<ApiError> {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(ApiError);
    return e as ApiError;
  }
  throw new Error('expected the call to fail');
}

describe('contract discovery', () => {
  let t: TestSim;
  let c: TestClient;
  beforeAll(async () => {
    t = await startTestSim();
    c = makeClient(t.url);
    await c.client.connect();
  });
  afterAll(async () => { await c.close(); await t.close(); });

  it('builds the open operations from the specification, with parameter and body schemas', () => {
    const ops = c.client.openOperations();
    expect(ops.map((o) => o.key).sort()).toEqual([
      'billing.redeemVoucher', 'satelliteImages.geographyComposite', 'satelliteProducts.acquisitionPlans', 'satelliteProducts.composite',
      'tasking.orders.cancel', 'tasking.orders.details', 'tasking.orders.list', 'tasking.searchTiles',
    ]);
    const list = ops.find((o) => o.key === 'tasking.orders.list')!;
    expect(list).toMatchObject({ method: 'GET', path: '/api/tasking/orders', operationId: 'Tasking_ListOrders', body: null, deprecated: false, retries: true });
    expect(Object.keys((list.parameters as any).properties).sort()).toEqual(['getExpired', 'recurringOnly']);
    expect(list.parameterLocations).toEqual({ recurringOnly: 'query', getExpired: 'query' });
    const cancel = ops.find((o) => o.key === 'tasking.orders.cancel')!;
    expect(cancel).toMatchObject({ method: 'DELETE', retries: false });
    expect(cancel.parameters.required).toEqual(['taskOrderGuid']);
    const voucher = ops.find((o) => o.key === 'billing.redeemVoucher')!;
    expect(voucher.bodyRequired).toBe(true);
    expect((voucher.body as any).properties.VoucherCode.type).toBe('string');
    expect(voucher.retries).toBe(false);
    // Dereferenced and JSON-serialisable, so it can cross IPC as is.
    const text = JSON.stringify(ops);
    expect(text).not.toContain('$ref');
    expect(JSON.parse(text)).toEqual(ops);
    // OpenAPI 3.0 nullable became JSON Schema null types.
    const tiles = ops.find((o) => o.key === 'tasking.searchTiles')!;
    expect((tiles.body as any).properties.Wkt.type).toEqual(['string', 'null']);
  });

  it('lists every operation with deprecation and presence in the specification', () => {
    const all = c.client.operations();
    expect(all.filter((o) => !o.inSpec)).toEqual([]);
    expect(all.filter((o) => o.deprecated).map((o) => o.key).sort()).toEqual(['geographyComposite', 'satelliteImages.geographyComposite']);
    expect(all.find((o) => o.key === 'createOrder')).toMatchObject({ method: 'POST', path: '/api/tasking/orders' });
  });

  it('validates parameters and bodies against the schemas, in the service\'s shape', async () => {
    const before = c.attempts.length;
    const bad = await failure(c.client.callOpen('tasking.orders.details', { params: { taskOrderGuid: 'not-a-guid' } }));
    expect(bad.kind).toBe('validation');
    expect(Object.keys(bad.fields!)).toEqual(['taskOrderGuid']);
    const missing = await failure(c.client.callOpen('tasking.orders.cancel', { params: {} }));
    expect(missing.fields).toEqual({ taskOrderGuid: ['The taskOrderGuid field is required.'] });
    const extra = await failure(c.client.callOpen('tasking.orders.list', { params: { recurringOnly: 'maybe', page: 2 } }));
    expect(Object.keys(extra.fields!).sort()).toEqual(['page', 'recurringOnly']);
    const body = await failure(c.client.callOpen('billing.redeemVoucher', { body: {} }));
    expect(body.fields).toEqual({ VoucherCode: ['The VoucherCode field is required.'] });
    const noBody = await failure(c.client.callOpen('tasking.searchTiles', {}));
    expect(Object.keys(noBody.fields!)).toEqual(['Body']);
    const tooMany = await failure(c.client.callOpen('tasking.searchTiles', { body: { Wkt: SMALL_AOI, MaxResults: 0 } }));
    expect(Object.keys(tooMany.fields!)).toEqual(['MaxResults']);
    expect(c.attempts.length).toBe(before);
    // The same bad inputs sent anyway: the service names the same properties.
    for (const [key, input, fields] of [
      ['tasking.orders.details', { params: { taskOrderGuid: 'not-a-guid' } }, ['taskOrderGuid']],
      ['billing.redeemVoucher', { body: {} }, ['VoucherCode']],
      ['tasking.searchTiles', { body: { Wkt: SMALL_AOI, MaxResults: 0 } }, ['MaxResults']],
    ] as const) {
      const remote = await failure(c.client.callOpen(key, input as any, undefined, { validate: false }));
      expect(remote).toMatchObject({ kind: 'validation', status: 400, code: 992 });
      expect(Object.keys(remote.fields!)).toEqual(fields);
    }
  });

  it('coerces typed parameter values to the specification\'s types', async () => {
    const r: any = await c.client.callOpen('tasking.orders.list', { params: { recurringOnly: true, getExpired: false } });
    expect(listRows(r).every((o: any) => o.To === null)).toBe(true);
    const last = c.attempts.at(-1)!;
    expect(last.operation).toBe('GET /api/tasking/orders');
  });

  it('caches the specification per base URL atomically, and works from it offline', async () => {
    const t2 = await startTestSim();
    const first = makeClient(t2.url);
    await first.client.connect();
    const file = specCacheFile(first.cacheDir, t2.url);
    expect(existsSync(file)).toBe(true);
    expect(JSON.parse(readFileSync(file, 'utf8')).specification.info.version).toBe('1.0.0');
    expect(readdirSync(first.cacheDir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
    expect(specCacheFile(first.cacheDir, `${t2.url}/`)).toBe(file);
    expect(specCacheFile(first.cacheDir, 'http://127.0.0.1:1')).not.toBe(file);
    await t2.close();

    const states: string[] = [];
    const second = makeClient(t2.url, { cacheDir: first.cacheDir, retry: { maxAttempts: 2 }, onConnectionState: (s) => states.push(s) });
    expect(second.client.openOperations()).toEqual([]);
    const e = await failure(second.client.connect());
    expect(e.kind).toBe('transient');
    expect(states).toEqual(['connecting', 'offline']);
    expect(second.client.specification).toMatchObject({ source: 'cache', version: '1.0.0' });
    expect(second.client.openOperations().map((o) => o.key)).toHaveLength(8);
    expect(second.client.openOperations()).toEqual(first.client.openOperations());
    // Forms still work offline: validation runs from the cached schema.
    const v = await failure(second.client.callOpen('tasking.orders.cancel', { params: {} }));
    expect(v.kind).toBe('validation');
    await first.close();
    await second.close();
  });

  it('without a cache, an unreachable service fails connect with nothing to show', async () => {
    const t3 = await startTestSim();
    const url = t3.url;
    await t3.close();
    const k = makeClient(url, { retry: { maxAttempts: 2 } });
    await expect(k.client.connect()).rejects.toMatchObject({ kind: 'transient' });
    expect(k.client.openOperations()).toEqual([]);
    await k.close();
  });
});

describe('a specification of another contract version', () => {
  it('raises a contract notice and keeps working from the discovered specification', async () => {
    const t = await startTestSim();
    const proxy = await startDoctoringProxy(t.url, (spec) => {
      spec.info.version = '1.1.0';
      // Operations are matched by method and path, never by operationId.
      for (const item of Object.values<any>(spec.paths)) for (const op of Object.values<any>(item)) if (op.operationId) op.operationId = `V11_${op.operationId}`;
      spec.paths['/api/tasking/orders'].get.parameters.push({ name: 'pageSize', in: 'query', required: false, schema: { type: 'integer', minimum: 1, maximum: 100 } });
      spec.paths['/api/satelliteproducts/acquisitionplans'].post.deprecated = true;
      delete spec.paths['/api/satelliteproducts/satellitezones/composite'];
    });
    const c = makeClient(proxy.url);
    const r = await c.client.connect();
    expect(r.contractNotice).toEqual({ expected: '1.0.0', actual: '1.1.0', message: expect.stringMatching(/1\.1\.0.*built for 1\.0\.0/) });
    expect(c.client.contractNotice).toEqual(r.contractNotice);
    expect(c.logs.some((l) => l.includes('contract version 1.1.0'))).toBe(true);
    const ops = c.client.openOperations();
    const list = ops.find((o) => o.key === 'tasking.orders.list')!;
    expect(list.operationId).toBe('V11_Tasking_ListOrders');
    expect(Object.keys((list.parameters as any).properties)).toContain('pageSize');
    expect(ops.find((o) => o.key === 'satelliteProducts.acquisitionPlans')!.deprecated).toBe(true);
    expect(ops.find((o) => o.key === 'satelliteProducts.composite')).toBeUndefined();
    expect(c.client.operations().find((o) => o.key === 'satelliteProducts.composite')!.inSpec).toBe(false);
    // The new parameter is validated from the discovered schema and sent.
    await expect(c.client.callOpen('tasking.orders.list', { params: { pageSize: 500 } })).rejects.toMatchObject({ kind: 'validation', fields: { pageSize: [expect.any(String)] } });
    const orders: any = await c.client.callOpen('tasking.orders.list', { params: { pageSize: 5 } });
    expect(Array.isArray(listRows(orders))).toBe(true);
    await expect(c.client.callOpen('satelliteProducts.composite', { body: {} })).rejects.toMatchObject({ kind: 'not-found' });
    // Typed operations keep working.
    expect(await c.client.billingSummary()).toHaveProperty('EuroBalance');
    // A client built for 1.1.0 sees no notice.
    const same = makeClient(proxy.url, { contractVersion: '1.1.0' });
    expect((await same.client.connect()).contractNotice).toBeNull();
    await same.close();
    await c.close();
    await proxy.close();
    await t.close();
  });
});

describe('OpenAPI 3.0 to JSON Schema', () => {
  it('turns nullable and boolean exclusive bounds into JSON Schema and drops circular refs', async () => {
    expect(toJsonSchema({ type: 'integer', nullable: true, minimum: 1, exclusiveMinimum: true })).toEqual({ type: ['integer', 'null'], exclusiveMinimum: 1 });
    expect(toJsonSchema({ type: 'string', enum: ['a'], nullable: true })).toEqual({ type: ['string', 'null'], enum: ['a', null] });
    expect(toJsonSchema({ nullable: true, description: 'd', allOf: [{ type: 'object' }] })).toEqual({ description: 'd', anyOf: [{ allOf: [{ type: 'object' }] }, { type: 'null' }] });
    const doc = {
      openapi: '3.0.3', info: { title: 't', version: '9' },
      paths: { '/n': { parameters: [{ name: 'id', in: 'path', schema: { type: 'string' } }], post: { requestBody: { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/Node' } } } } } } },
      components: { schemas: { Node: { type: 'object', properties: { child: { $ref: '#/components/schemas/Node' } } } } },
    };
    const spec = await parseSpec(doc, { baseUrl: 'http://x', source: 'network', fetchedAt: 'now' });
    const op = spec.operations[0]!;
    expect(op.parameters).toEqual({ type: 'object', properties: { id: { type: 'string' } }, additionalProperties: false, required: ['id'] });
    expect(() => JSON.stringify(op.body)).not.toThrow();
    expect(spec.version).toBe('9');
  });
});

describe('parsing a specification on main', () => {
  it('gives the event loop turns while it works, a few operations at a time', async () => {
    // 40 operations sharing one body definition, as a service's specification does.
    const paths: Record<string, unknown> = {};
    for (let i = 0; i < 40; i++) {
      paths[`/op${i}`] = { post: { operationId: `Op${i}`, requestBody: { content: { 'application/json': { schema: { $ref: '#/components/schemas/Body' } } } } } };
    }
    const doc = {
      openapi: '3.0.3', info: { title: 't', version: '1' }, paths,
      components: { schemas: { Body: { type: 'object', properties: { Wkt: { type: 'string' }, Date: { type: 'string', format: 'date' } } } } },
    };
    let turns = 0;
    let parsing = true;
    const tick = (): void => {
      if (!parsing) return;
      turns++;
      setImmediate(tick);
    };
    setImmediate(tick);
    const spec = await parseSpec(doc, { baseUrl: 'http://x', source: 'network', fetchedAt: 'now' });
    parsing = false;
    expect(spec.operations).toHaveLength(40);
    expect(spec.operations[39]!.body).toEqual({ type: 'object', properties: { Wkt: { type: 'string' }, Date: { type: 'string', format: 'date' } } });
    // The expansion check, the dereferencing, every 8 operations and the key fields each end with a turn.
    expect(turns).toBeGreaterThanOrEqual(2 + 40 / 8 + 1);
  });
});

describe('a specification that changed since the cached copy (contract drift)', () => {
  it('reports operations and fields added, removed, renamed and retyped, keeps the report, and works from the new specification', async () => {
    const t = await startTestSim();
    let changed = false;
    let doctored = { renamedFrom: '', retyped: '', removed: '' };
    const proxy = await startDoctoringProxy(t.url, (spec) => {
      if (changed) doctored = doctorDrift(spec);
    });
    const first = makeClient(proxy.url);
    await first.client.connect();
    expect(first.client.specDrift).toBeNull();

    changed = true;
    const second = makeClient(proxy.url, { cacheDir: first.cacheDir });
    const connected = await second.client.connect();
    const drift = second.client.specDrift!;
    expect(drift).not.toBeNull();
    expect(drift.previous).toEqual({ version: '1.0.0', fetchedAt: first.client.specification!.fetchedAt });
    expect(drift.current.fetchedAt).toBe(second.client.specification!.fetchedAt);
    const opText = (o: { method: string; path: string }) => `${o.method} ${o.path}`;
    expect(drift.operations.added.map(opText)).toEqual(['GET /api/account/usage']);
    expect(drift.operations.removed.map(opText)).toEqual(['POST /api/satelliteproducts/satellitezones/composite']);
    expect(drift.operations.renamed.map((r) => `${opText(r.from)} -> ${r.to.path}`)).toEqual(['POST /api/satelliteproducts/acquisitionplans -> /api/satelliteproducts/acquisition-plans']);
    const of = (operation: string) => drift.fields.filter((f) => f.operation === operation).map((f) => `${f.section} ${f.change} ${f.field}${f.to ? ` -> ${f.to}` : ''}${f.fromType ? ` ${f.fromType}->${f.type}` : ''}`).sort();
    expect(of('GET /api/tasking/orders')).toEqual(['parameter added pageSize']);
    expect(of('POST /api/tasking/search/tiles')).toEqual(['body renamed MaxResults -> MaxResultCount']);
    const account = of('GET /api/account/info');
    expect(account).toEqual([
      'response added Region',
      `response removed ${doctored.removed}`,
      `response renamed ${doctored.renamedFrom} -> QuotaOfBands`,
      `response retyped ${doctored.retyped} number->string`,
    ]);
    expect(second.logs.some((l) => l.includes('specification changed'))).toBe(true);

    // The app works from the new specification: the new parameter is validated and sent, the removed operation is gone.
    expect(connected.account).toBeDefined();
    await expect(second.client.callOpen('tasking.orders.list', { params: { pageSize: 500 } })).rejects.toMatchObject({ kind: 'validation', fields: { pageSize: [expect.any(String)] } });
    expect(await second.client.callOpen('tasking.orders.list', { params: { pageSize: 5 } })).toBeTypeOf('object');
    await expect(second.client.callOpen('satelliteProducts.composite', { body: {} })).rejects.toMatchObject({ kind: 'not-found' });
    expect(second.client.operations().find((o) => o.key === 'satelliteProducts.composite')!.inSpec).toBe(false);

    // Connecting again to the same (changed) specification keeps the report of the last change.
    const third = makeClient(proxy.url, { cacheDir: first.cacheDir });
    await third.client.connect();
    expect(third.client.specDrift).toEqual(drift);
    for (const c of [first, second, third]) await c.close();
    await proxy.close();
    await t.close();
  });
});
