import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSim, type TestSim } from './helpers.js';

// The operations of service-contract.md section 4 (method, path).
const CONTRACT_OPERATIONS: [string, string][] = [
  ['get', '/api/account/info'], ['get', '/api/apikey/info'], ['get', '/api/account/settings'],
  ['get', '/api/billing/summary'], ['get', '/api/billing/orders/{year}-{month}'],
  ['get', '/api/billing/transactions/{year}-{month}'], ['post', '/api/billing/vouchers/redeem'],
  ['post', '/api/satelliteimages/geography/composite'], ['post', '/api/satelliteimages/search/available'],
  ['post', '/api/satelliteimages/process/composite/available'], ['post', '/api/satelliteimages/process/composite/estimate'],
  ['post', '/api/satelliteimages/process/composite'], ['post', '/api/satelliteimages/process/tile'],
  ['post', '/api/satelliteimages/process/minitile'], ['post', '/api/satelliteproducts/satellitezones/composite'],
  ['post', '/api/satelliteproducts/acquisitionplans'], ['get', '/api/tasking/models'],
  ['post', '/api/tasking/search/tiles'], ['get', '/api/tasking/orders'], ['get', '/api/tasking/orders/details'],
  ['post', '/api/tasking/orders/estimate'], ['post', '/api/tasking/orders'], ['delete', '/api/tasking/orders/cancel'],
];

const CONTRACT_ENVELOPES = [
  'ServiceResultOfApiKeyLimitedDto', 'ServiceResultOfApiKeySettingsDto', 'ServiceResultOfBillingSummaryDto',
  'ServiceResultOfBillingOrdersListDto', 'ServiceResultOfBillingTransactionsListDto', 'ServiceResultOfVoucherRedeemResultDto',
  'ServiceResultOfSatelliteMergedAreaDto', 'ServiceResultOfSatelliteImagerySearchResultsDto',
  'ServiceResultOfSatelliteMergedAreaAvailableDto', 'ServiceResultOfSatellitePreviewEstimateDto',
  'ServiceResultOfSatelliteProductSatelliteCompositeDto', 'ServiceResultOfSatelliteAcquisitionPlansDto',
  'ServiceResultOfTaskingModelListDto',
];

describe('GET /api/specification.json', () => {
  let t: TestSim;
  let spec: any;
  beforeAll(async () => {
    t = await startTestSim();
    const res = await fetch(`${t.url}/api/specification.json`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/application\/json/);
    spec = await res.json();
  });
  afterAll(() => t.close());

  it('is a valid OpenAPI 3 document (independent validator), version 1.0.0', async () => {
    const validator = new Validator();
    const res = await validator.validate(structuredClone(spec));
    expect(res.errors ?? []).toEqual([]);
    expect(res.valid).toBe(true);
    expect(spec.openapi).toMatch(/^3\./);
    expect(spec.info.version).toBe('1.0.0');
    expect(spec.servers[0].url).toBe(t.url);
  });

  it('has every contract operation with a unique operationId, parameters and schemas', () => {
    const ids = new Set<string>();
    for (const [method, path] of CONTRACT_OPERATIONS) {
      const op = spec.paths[path]?.[method];
      expect(op, `${method} ${path}`).toBeDefined();
      expect(op.operationId).toMatch(/^[A-Za-z]+_[A-Za-z]+$/);
      ids.add(op.operationId);
      expect(op.security).toEqual([{ ApiKey: [] }]);
      if (method === 'post') expect(op.requestBody.content['application/json'].schema).toBeDefined();
      expect(op.responses['200']).toBeDefined();
      expect(op.responses['400']).toBeDefined();
    }
    expect(ids.size).toBe(CONTRACT_OPERATIONS.length);
    const paramNames = (p: string, m: string) => spec.paths[p][m].parameters.map((x: any) => x.name);
    expect(paramNames('/api/billing/orders/{year}-{month}', 'get')).toEqual(['year', 'month']);
    expect(paramNames('/api/tasking/orders', 'get')).toEqual(['recurringOnly', 'getExpired']);
    expect(paramNames('/api/tasking/orders/cancel', 'delete')).toEqual(['taskOrderGuid']);
    expect(paramNames('/api/tasking/orders/details', 'get')).toEqual(['taskOrderGuid']);
  });

  it('uses the envelope names the contract lists', () => {
    for (const name of CONTRACT_ENVELOPES) {
      const schema = spec.components.schemas[name];
      expect(schema, name).toBeDefined();
      expect(Object.keys(schema.properties)).toEqual(expect.arrayContaining(['Data', 'Succeeded', 'Error']));
    }
    for (const path of ['/api/account/info', '/api/apikey/info']) {
      const info = spec.paths[path].get.responses['200'].content['application/json'].schema;
      expect(info.$ref).toBe('#/components/schemas/ServiceResultOfApiKeyLimitedDto');
    }
    // Success envelopes always carry Error (null), as the production service sends it.
    const envelope = spec.components.schemas.ServiceResultOfApiKeyLimitedDto;
    expect(envelope.required).toEqual(expect.arrayContaining(['Data', 'Succeeded', 'Error']));
    expect(envelope.properties.Error.nullable).toBe(true);
    // The echoed key is marked as a secret.
    expect(spec.components.schemas.ApiKeyLimitedDto.properties.Key).toMatchObject({ format: 'password', 'x-secret': true });
  });

  it('marks geography/composite deprecated and only it', () => {
    const deprecated = Object.entries(spec.paths).flatMap(([p, ops]: [string, any]) =>
      Object.entries(ops).filter(([, op]: [string, any]) => op.deprecated).map(([m]) => `${m} ${p}`));
    expect(deprecated).toEqual(['post /api/satelliteimages/geography/composite']);
  });

  it('publishes the binary responses and the concrete shapes chosen for "not shown" parts', () => {
    const composite = spec.paths['/api/satelliteimages/process/composite'].post;
    expect(composite.responses['200'].content['image/tiff'].schema.format).toBe('binary');
    expect(composite.responses['201']).toBeDefined();
    const body = spec.components.schemas.SatelliteCompositeProcessCommand.properties;
    expect(body.Resolution.enum).toEqual([10, 20, 40, 80, 160, 320, 640, 1280]);
    expect(body.PixelSelectionMode.enum).toEqual(['intersect', 'contained']);
    expect(body.DataType.enum).toEqual(['INT16', 'UINT8']);
    expect(body.UtmDataSelectionMode.enum).toEqual(['single_utm_fully_covered', 'combined_utm', 'single_utm']);
    expect(spec.components.schemas.VoucherRedeemCommand.required).toEqual(['VoucherCode']);
    expect(spec.components.schemas.TileSearchQuery.properties.MiniTiles.type).toBe('boolean');
    const search = spec.components.schemas.SatelliteImagerySearchQuery.properties;
    expect(search.Until).toBeDefined();
  });

  it('needs no API key', async () => {
    const res = await fetch(`${t.url}/api/specification.json`);
    expect(res.status).toBe(200);
  });
});

describe('GET /api/specification.json in the variant style', () => {
  let t: TestSim;
  let spec: any;
  beforeAll(async () => {
    t = await startTestSim({ shapes: 'variant' });
    spec = await (await fetch(`${t.url}/api/specification.json`)).json();
  });
  afterAll(() => t.close());

  it('is a valid OpenAPI 3 document with the same paths and contract envelope names', async () => {
    const res = await new Validator().validate(structuredClone(spec));
    expect(res.errors ?? []).toEqual([]);
    expect(res.valid).toBe(true);
    expect(spec.info['x-answer-style']).toBe('variant');
    for (const [method, path] of CONTRACT_OPERATIONS) expect(spec.paths[path]?.[method], `${method} ${path}`).toBeDefined();
    for (const name of CONTRACT_ENVELOPES) {
      expect(Object.keys(spec.components.schemas[name].properties)).toEqual(expect.arrayContaining(['Data', 'Succeeded', 'Error']));
    }
  });

  it('publishes its own names: renamed parameters, renamed and re-typed answer fields, the key still marked secret', () => {
    const paramNames = (p: string, m: string) => spec.paths[p][m].parameters.map((x: any) => x.name);
    expect(paramNames('/api/tasking/orders', 'get')).toEqual(['onlyRecurring', 'includeExpired']);
    expect(paramNames('/api/tasking/orders/cancel', 'delete')).toEqual(['orderId']);
    const list = spec.components.schemas.ServiceResultOfTaskOrderListDto.properties.Data;
    expect(Object.keys(list.properties)).toEqual(['traceId', 'items']);
    expect(list.properties.items.items.properties.start.format).toBe('date-time');
    const tiles = spec.components.schemas.ServiceResultOfTileSearchResultsDto.properties.Data.properties.cells.items.properties;
    expect(tiles.epsgCode.type).toBe('integer');
    const info = spec.components.schemas.ServiceResultOfApiKeyLimitedDto.properties.Data.properties;
    expect(info.apiKey).toMatchObject({ format: 'password', 'x-secret': true });
    const models = spec.components.schemas.ServiceResultOfTaskingModelListDto.properties.Data.properties.TaskingModels.items.properties;
    expect(Object.keys(models)).toEqual(expect.arrayContaining(['Model', 'SupportedSatelliteConstellations']));
  });
});
