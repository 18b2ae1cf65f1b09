import { z, type ZodType } from 'zod';
import { Guid } from '../schemas.js';
import type { OperationDef } from '../operation.js';
import { OPERATIONS } from '../spec.js';
import { etagExtra, reshape, type ReshapeRules, type Reshaped } from './reshape.js';
import { unchanged, type ShapeStyle, type WireOperation } from './wire.js';

/**
 * The variant style: legal under the contract, but different from production in everything
 * the contract leaves "not shown", so a client that assumes production's names breaks here.
 *
 * What stays (the contract names it): paths, the envelope {Data, Succeeded, Error}, the
 * TaskingModels fields, request field names of contract sections 2.4, 2.5 and 4.3.
 * What changes, in answers: other names and camelCase for order rows, estimates (order and
 * composite), tile search results, billing, products, account info and settings; Epsg as a
 * number; every plain date as a UTC date-time; extra unknown fields (`traceId` on Data, `etag`
 * on list items); properties in reverse order. Search/available, composite/available, the
 * deprecated geography/composite and the model list keep their names (only dates, extras and
 * order change).
 * What changes in requests: only parameters a client can find in the spec by what they are:
 * the one GUID query parameter of order details and cancel (`orderId`), the two optional
 * filters of the orders list (`onlyRecurring`, `includeExpired`) and the one required string
 * of the voucher body (`Voucher`). The production names are refused there. Tile search and the
 * products/acquisition-plan bodies keep their fields (their meaning cannot be told from a
 * type alone).
 */

/** Renamed beyond camelCase. */
const NAMES: Record<string, string> = {
  TaskOrders: 'items', TaskOrderGuid: 'orderId', OrderingProcessStatus: 'state', TaskOrderAreaKm2: 'areaSqKm',
  BillingCycle: 'billingPeriod', SatelliteConstellations: 'sensors', Tiles: 'tileIds', MiniTiles: 'miniTileIds',
  Guid: 'id', MiniTile: 'isMiniTile', Epsg: 'epsgCode', DataGeogWkt: 'footprintWkt', AreaKm2: 'areaSqKm',
  AreaKm2BeforeMinimum1Km2PerAoi: 'areaSqKmBeforeMinimum', AreasOfInterestWkt: 'billedAoisWkt', Costs: 'costBreakdown',
  CurrencyCode: 'currency', ImageDates: 'dates', From: 'start', To: 'end', Key: 'apiKey', Orders: 'lines',
  Transactions: 'entries', Products: 'scenes', AcquisitionPlans: 'plans', Truncated: 'hasMore',
  AreaEstimateKm2: 'areaSqKm', CreditEstimate: 'priceEur', EuroBalance: 'balanceEur', Cost: 'amountEur',
};

/** Names that differ by operation. */
const OP_NAMES: Record<string, Record<string, string>> = {
  Tasking_SearchTiles: { Tiles: 'cells' },
};

/** Operations whose answers keep production's names (the contract or the client's own flow names them). */
const KEEP_NAMES = new Set([
  'Tasking_GetModels', 'SatelliteImages_SearchAvailable', 'SatelliteImages_CompositeAvailable', 'SatelliteImages_GeographyComposite',
]);

const camel = (k: string) => k.charAt(0).toLowerCase() + k.slice(1);

function rules(operationId: string): ReshapeRules {
  const names = { ...NAMES, ...OP_NAMES[operationId] };
  return {
    key: KEEP_NAMES.has(operationId) ? (k) => k : (k) => names[k] ?? camel(k),
    property: (name) => (name === 'Epsg' ? epsgAsNumber : null),
    dateTimes: true,
    reverse: true,
    extras: { top: { traceId: etagExtra() }, item: { etag: etagExtra() } },
  };
}

const epsgAsNumber: Reshaped = {
  schema: z.number().int().openapi({ description: 'EPSG code of the tile\'s UTM zone.', example: 32633 }),
  map: (v) => Number(v),
};

interface RequestOverride {
  query?: z.ZodObject;
  body?: ZodType;
  /** Handler name -> wire name. */
  names: Record<string, string>;
}

const Flag = (description: string, name: string) =>
  z.enum(['true', 'false']).default('false').openapi({ param: { name, in: 'query' }, description });
const OrderIdQuery = z.object({ orderId: Guid.openapi({ param: { name: 'orderId', in: 'query' }, description: 'The order.' }) });

const REQUESTS: Record<string, RequestOverride> = {
  Tasking_ListOrders: {
    query: z.object({
      onlyRecurring: Flag('Only recurring orders.', 'onlyRecurring'),
      includeExpired: Flag('Include cancelled and expired orders.', 'includeExpired'),
    }),
    names: { recurringOnly: 'onlyRecurring', getExpired: 'includeExpired' },
  },
  Tasking_GetOrderDetails: { query: OrderIdQuery, names: { taskOrderGuid: 'orderId' } },
  Tasking_CancelOrder: { query: OrderIdQuery, names: { taskOrderGuid: 'orderId' } },
  Billing_RedeemVoucher: {
    body: z.object({ Voucher: z.string().min(1, 'The Voucher field is required.').openapi({ example: 'SWATH-DEMO-50' }) }).openapi('VoucherRedemption'),
    names: { VoucherCode: 'Voucher' },
  },
};

function renameKeys(src: Record<string, unknown>, names: Record<string, string>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(src)) out[names[k] ?? k] = v;
  return out;
}

function variantOperation(op: OperationDef): WireOperation {
  const base = unchanged(op);
  const req = REQUESTS[op.operationId];
  if (req) {
    const back = Object.fromEntries(Object.entries(req.names).map(([a, b]) => [b, a]));
    Object.assign(base, {
      query: req.query ?? op.query,
      body: req.body ?? op.body,
      queryIn: (q: Record<string, unknown>) => renameKeys(q, back),
      bodyIn: (b: Record<string, unknown>) => renameKeys(b, back),
      fieldOut: (n: string) => req.names[n] ?? n,
    });
  }
  if (op.response !== 'binary') {
    const shaped = reshape(op.response, rules(op.operationId));
    Object.assign(base, { response: shaped.schema, toWire: shaped.map });
  }
  return base;
}

/** The variant style (`--shapes variant`, `SWATH_SIM_SHAPES=variant`). */
export function variantStyle(): ShapeStyle {
  return {
    name: 'variant',
    description: 'Answer style "variant": legal under the contract, different from production in every part the contract leaves "not shown".',
    operations: OPERATIONS.map(variantOperation),
  };
}
