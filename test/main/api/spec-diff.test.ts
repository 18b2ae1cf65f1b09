import { describe, expect, it } from 'vitest';
import { diffSpecs, similarity, typeOf } from '../../../main/api/spec-diff.js';
import type { JsonSchema, SpecOperation } from '../../../main/api/spec.js';

const obj = (properties: Record<string, JsonSchema>): JsonSchema => ({ type: 'object', properties });
const str: JsonSchema = { type: 'string' };
const int: JsonSchema = { type: 'integer' };

function op(method: string, path: string, parts: Partial<SpecOperation> = {}): SpecOperation {
  return {
    method, path, operationId: null, summary: null, description: null, deprecated: false,
    parameters: obj({}), parameterLocations: {}, body: null, bodyRequired: false, response: null, ...parts,
  };
}

describe('specification diff', () => {
  it('no change: null, even when parameter names in paths and $ref layout differ', () => {
    const a = [op('GET', '/api/billing/orders/{year}-{month}', { response: obj({ Total: { type: 'number' } }) })];
    const b = [op('GET', '/api/billing/orders/{y}-{m}', { response: { anyOf: [obj({ Total: { type: 'number' } }), { type: 'null' }] } })];
    expect(diffSpecs({ operations: a }, { operations: b })).toBeNull();
  });

  it('operations added, removed, and renamed by operationId or a similar path', () => {
    const before = [
      op('GET', '/api/account/info'),
      op('POST', '/api/satelliteproducts/acquisitionplans'),
      op('GET', '/api/tasking/orders/details', { operationId: 'Tasking_GetOrderDetails' }),
      op('DELETE', '/api/tasking/orders/cancel'),
    ];
    const after = [
      op('GET', '/api/account/info'),
      op('POST', '/api/satelliteproducts/acquisition-plans'),
      op('GET', '/api/tasking/order', { operationId: 'Tasking_GetOrderDetails' }),
      op('GET', '/api/apikey/info'),
    ];
    const d = diffSpecs({ operations: before }, { operations: after })!;
    expect(d.operations.added.map((o) => `${o.method} ${o.path}`)).toEqual(['GET /api/apikey/info']);
    expect(d.operations.removed.map((o) => `${o.method} ${o.path}`)).toEqual(['DELETE /api/tasking/orders/cancel']);
    expect(d.operations.renamed.map((r) => `${r.from.path} -> ${r.to.path}`).sort()).toEqual([
      '/api/satelliteproducts/acquisitionplans -> /api/satelliteproducts/acquisition-plans',
      '/api/tasking/orders/details -> /api/tasking/order',
    ]);
  });

  it('fields of parameters, bodies and responses: added, removed, renamed (same type and place, or a similar name), retyped', () => {
    const before = op('POST', '/api/tasking/search/tiles', {
      parameters: obj({ pageSize: int }),
      body: obj({ Wkt: str, MaxResults: int, Legacy: str }),
      response: obj({
        Orders: { type: 'array', items: obj({ Guid: str, Epsg: str, AreaKm2: { type: 'number' } }) },
        Count: int,
      }),
    });
    const after = op('POST', '/api/tasking/search/tiles', {
      parameters: obj({ pageSize: int, page: int }),
      body: obj({ Wkt: str, MaxResultCount: int }),
      response: obj({
        TaskOrders: { type: 'array', items: obj({ Guid: str, Epsg: int, Area: { type: 'number' }, Extra: str }) },
        Total: int,
      }),
    });
    const d = diffSpecs({ operations: [before] }, { operations: [after] })!;
    const lines = d.fields.map((f) => `${f.section} ${f.change} ${f.field}${f.to ? ` -> ${f.to}` : ''} ${f.fromType ? `${f.fromType}->` : ''}${f.type}`);
    expect(lines.sort()).toEqual([
      'body removed Legacy string',
      'body renamed MaxResults -> MaxResultCount integer',
      'parameter added page integer',
      // Same type, same place among their siblings: a rename though the names share nothing.
      'response renamed Count -> Total integer',
      // Children of a renamed field are compared under its new name.
      'response renamed Orders -> TaskOrders array<object>',
      'response renamed TaskOrders[].AreaKm2 -> TaskOrders[].Area number',
      'response added TaskOrders[].Extra string',
      'response retyped TaskOrders[].Epsg string->integer',
    ].sort());
    expect(d.fields.every((f) => f.operation === 'POST /api/tasking/search/tiles')).toBe(true);
  });

  it('a different type in another place is a removal and an addition, not a rename', () => {
    const d = diffSpecs(
      { operations: [op('GET', '/x', { response: obj({ A: str, B: int, Old: str }) })] },
      { operations: [op('GET', '/x', { response: obj({ A: str, New: int, B: int }) })] },
    )!;
    expect(d.fields.map((f) => `${f.change} ${f.field}`).sort()).toEqual(['added New', 'removed Old']);
  });

  it('type signatures and name similarity', () => {
    expect(typeOf({ type: ['string', 'null'], format: 'date' })).toBe('string(date)');
    expect(typeOf({ type: 'array', items: { type: 'integer' } })).toBe('array<integer>');
    expect(typeOf({ anyOf: [{ type: 'number' }, { type: 'null' }] })).toBe('number');
    expect(typeOf({ properties: {} })).toBe('object');
    expect(similarity('Epsg', 'EpsgCode')).toBeGreaterThanOrEqual(0.75);
    expect(similarity('task_order_guid', 'TaskOrderGuid')).toBe(1);
    expect(similarity('Model', 'Wkt')).toBeLessThan(0.6);
  });
});
