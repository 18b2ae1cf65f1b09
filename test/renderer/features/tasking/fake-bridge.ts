import { vi } from 'vitest';
import type { IpcError, Result } from '../../../../preload/contract';

/** Operations as the simulator's specification describes them (what service:operations returns). */
export const OPERATIONS = [
  {
    key: 'tasking.searchTiles', operationId: 'Tasking_SearchTiles', method: 'POST', path: '/api/tasking/search/tiles', summary: null, deprecated: false,
    parameters: { type: 'object', properties: {} },
    body: { type: 'object', properties: {
      Wkt: { type: ['string', 'null'] }, GeoJson: { type: ['object', 'null'] },
      MiniTiles: { type: 'boolean', default: false }, MaxResults: { type: 'integer', minimum: 1, maximum: 5000, default: 1000 },
    } },
    bodyRequired: true,
  },
  {
    key: 'tasking.orders.list', operationId: 'Tasking_ListOrders', method: 'GET', path: '/api/tasking/orders', summary: null, deprecated: false,
    parameters: { type: 'object', properties: {
      recurringOnly: { type: 'string', enum: ['true', 'false'], default: 'false' },
      getExpired: { type: 'string', enum: ['true', 'false'], default: 'false' },
    } },
    body: null, bodyRequired: false,
  },
  ...(['details', 'cancel'] as const).map((k) => ({
    key: `tasking.orders.${k}`, operationId: k, method: k === 'cancel' ? 'DELETE' : 'GET', path: `/api/tasking/orders/${k}`, summary: null, deprecated: false,
    parameters: { type: 'object', required: ['taskOrderGuid'], properties: { taskOrderGuid: { type: 'string', format: 'uuid' } } },
    body: null, bodyRequired: false,
  })),
];

export const MODELS = [
  { Model: 'Stratus2', SupportedSatelliteConstellations: [
    { SatelliteConstellation: 'Sentinel1', Optional: false }, { SatelliteConstellation: 'Sentinel2', Optional: false }, { SatelliteConstellation: 'Landsat89', Optional: true },
  ] },
  { Model: 'Nimbus', SupportedSatelliteConstellations: [{ SatelliteConstellation: 'Sentinel2L1', Optional: false }, { SatelliteConstellation: 'WFIAmazonia', Optional: true }] },
];

export const T1 = '11111111-1111-4111-8111-111111111111';
export const T2 = '22222222-2222-4222-8222-222222222222';

export const TILES = { Tiles: [
  { Guid: T1, MiniTile: false, Epsg: 32633, DataGeogWkt: 'POLYGON((13 52, 13.7 52, 13.7 52.5, 13 52.5, 13 52))' },
  { Guid: T2, MiniTile: false, Epsg: 32633, DataGeogWkt: 'POLYGON((13.7 52, 14.4 52, 14.4 52.5, 13.7 52.5, 13.7 52))' },
] };

const ok = <T>(data: T): Result<T> => ({ ok: true, data });
export const fail = (error: IpcError): Result<never> => ({ ok: false, error });

let seq = 0;
/** A GUID for a new order. */
export function newGuid(): string {
  seq++;
  return `aaaaaaaa-aaaa-4aaa-8aaa-${String(seq).padStart(12, '0')}`;
}

/** A fake window.swath for the tasking stores: orders live in `orders`; hooks override single calls. */
export function makeBridge() {
  const orders: Record<string, unknown>[] = [];
  const hooks = {
    estimate: null as null | ((request: Record<string, unknown>) => Result<{ estimate: unknown; payload: string }>),
    create: null as null | ((payload: string) => Promise<Result<{ data: unknown }>> | Result<{ data: unknown }>),
    list: null as null | (() => Result<{ data: unknown }>),
    cancel: null as null | ((params: Record<string, unknown>) => Result<{ data: unknown }>),
  };
  const toOrder = (body: Record<string, unknown>) => ({
    TaskOrderGuid: newGuid(), OrderingProcessStatus: 'Review', Model: body.Model, SatelliteConstellations: body.SatelliteConstellations,
    From: body.From, To: body.To ?? null, ImageFrequency: body.ImageFrequency, ReferenceDate: body.ReferenceDate,
    Wkt: body.Wkt ?? 'POLYGON((13 52, 14.4 52, 14.4 52.5, 13 52.5, 13 52))', Tiles: body.TileGuids ?? (body.TileGuid ? [body.TileGuid] : []), MiniTiles: [],
  });
  const api = {
    taskingModels: vi.fn(async () => ok({ models: MODELS })),
    serviceOperations: vi.fn(async () => ok({ operations: OPERATIONS })),
    taskingEstimate: vi.fn(async ({ request }: { request: Record<string, unknown> }) => {
      if (hooks.estimate) return hooks.estimate(request);
      // Main answers with the text it sent; indentation proves the renderer keeps it as is.
      return ok({ estimate: { AreaKm2: 12.5, TotalHistoricCost: 25, CurrencyCode: 'EUR', ImageDates: ['2025-01-01', '2025-01-08'] }, payload: JSON.stringify(request, null, 1) });
    }),
    taskingCreate: vi.fn(async ({ payload }: { payload: string; tileDeduplication?: boolean }) => {
      if (hooks.create) return hooks.create(payload);
      const order = toOrder(JSON.parse(payload) as Record<string, unknown>);
      orders.push(order);
      return ok({ data: order });
    }),
    serviceCall: vi.fn(async ({ key, params }: { key: string; params?: Record<string, unknown>; body?: unknown }) => {
      if (key === 'tasking.orders.list') return hooks.list ? hooks.list() : ok({ data: { Orders: orders.map((o) => ({ ...o })) } });
      if (key === 'tasking.orders.details') return ok({ data: { ...orders.find((o) => o.TaskOrderGuid === params?.taskOrderGuid), StatusHistory: [] } });
      if (key === 'tasking.orders.cancel') {
        if (hooks.cancel) return hooks.cancel(params ?? {});
        const o = orders.find((x) => x.TaskOrderGuid === params?.taskOrderGuid);
        if (o) o.OrderingProcessStatus = 'Canceled';
        return ok({ data: { TaskOrderGuid: params?.taskOrderGuid, Result: 'Canceled' } });
      }
      if (key === 'tasking.searchTiles') return ok({ data: TILES });
      return fail({ kind: 'not-found', message: key });
    }),
    imagerySearch: vi.fn(async (_r: { request: Record<string, unknown> }) => ok({ data: { ModelImageDates: [{ Model: 'Stratus2', SatelliteConstellations: [], DatesByGeog: [{ Wkt: 'POLYGON((13 52, 14 52, 14 53, 13 52))', Dates: ['2025-01-08', '2025-01-01'] }] }] } })),
    imageryEstimate: vi.fn(async (_r: { request: Record<string, unknown> }) => ok({ data: { CreditEstimate: 1.5 } })),
    downloadsEnqueue: vi.fn(async (_r: { kind: string; request: Record<string, unknown> }) => ok({ id: 'job' })),
    on: vi.fn(() => () => undefined),
    cancel: vi.fn(),
  };
  return { api, orders, hooks };
}
