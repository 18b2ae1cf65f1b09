import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import {
  MIN_BILLABLE_KM2, OPTIONAL_ADDON_PER_KM2, SPEND_TIERS, TILE_PRICE_FACTOR,
  checkModelConstellations, findModel, type Constellation,
} from './catalog.js';
import { addMonths, cadenceDates, endOfMonthUtc, firstOfNextMonthUtc, isoDate, parseUtc } from './dates.js';
import { Codes, FieldErrorBag, ServiceError, validationError } from './envelope.js';
import { areaKm2, parseAoi, toWkt, union } from './geo/aoi.js';
import { cellByGuid } from './geo/tile-grid.js';
import type { OrderCreateBody, OrderEstimateBody } from './schemas.js';
import { round2, type Account, type Polygonal, type SimState, type StoredOrder } from './state.js';

type EstimateBody = z.infer<typeof OrderEstimateBody>;
type CreateBody = z.infer<typeof OrderCreateBody>;

/** Statuses an order moves through (service-facts.md). */
export type OrderStatus =
  | 'Review' | 'Preparing' | 'AwaitingSatelliteProducts' | 'Processing' | 'Predicting' | 'Completed' | 'UpToDate' | 'Canceled';

/** An order request after validation: its area resolved to geometry and tiles (the stored order's request fields). */
export interface ResolvedOrder extends Pick<StoredOrder,
  'mode' | 'wkt' | 'tiles' | 'miniTiles' | 'geometry' | 'areaKm2' | 'model' | 'constellations' | 'from' | 'to' | 'imageFrequency' | 'referenceDate' | 'storageMonths' | 'apiRequests'> {
  aoiCount: number;
}

/** Validates the domain rules of an order request (the zod shape is already checked). */
export function resolveOrder(body: EstimateBody | CreateBody): ResolvedOrder {
  const errors = new FieldErrorBag();
  const tileSingles = body.TileGuid ? [body.TileGuid] : [];
  const miniSingles = body.MiniTileGuid ? [body.MiniTileGuid] : [];
  const tiles = [...(body.TileGuids ?? []), ...tileSingles];
  const miniTiles = [...(body.MiniTileGuids ?? []), ...miniSingles];
  const hasTiles = body.TileGuids != null || body.TileGuid != null;
  const hasMini = body.MiniTileGuids != null || body.MiniTileGuid != null;
  const hasPolygon = (body.Wkt != null && body.Wkt !== '') || body.GeoJson != null;
  const selectors = [hasPolygon, hasTiles, hasMini].filter(Boolean).length;
  let geometry: Polygonal | null = null;
  let mode: StoredOrder['mode'] = 'Wkt';
  let wkt: string | null = null;
  let aoiCount = 1;
  if (selectors === 0) {
    errors.add('Wkt', 'Give the area as Wkt, GeoJson, TileGuids or MiniTileGuids.');
  } else if (selectors > 1) {
    for (const [k, on] of [['Wkt', hasPolygon], ['TileGuids', hasTiles], ['MiniTileGuids', hasMini]] as const) {
      if (on) errors.add(k, 'Give exactly one of Wkt, GeoJson, TileGuids or MiniTileGuids.');
    }
  } else if (hasPolygon) {
    const aoi = parseAoi(body, { required: true });
    if (!aoi.ok) errors.merge(aoi.errors);
    else if (aoi.geometry) {
      geometry = aoi.geometry;
      mode = aoi.mode;
      wkt = toWkt(aoi.geometry);
    }
  } else {
    const list = hasTiles ? tiles : miniTiles;
    const field = hasTiles ? 'TileGuids' : 'MiniTileGuids';
    mode = hasTiles ? 'TileGuids' : 'MiniTileGuids';
    if (list.length === 0) errors.add(field, `${field} must hold at least one GUID.`);
    const geoms: Polygonal[] = [];
    for (const g of list) {
      const cell = cellByGuid(g);
      if (!cell) errors.add(field, `Unknown tile GUID ${g}.`);
      else if (cell.MiniTile !== !hasTiles) errors.add(field, `${g} is a ${cell.MiniTile ? 'mini-tile' : 'tile'}; use ${cell.MiniTile ? 'MiniTileGuids' : 'TileGuids'}.`);
      else geoms.push(cell.geometry);
    }
    if (new Set(list).size !== list.length) errors.add(field, 'The same GUID is listed twice.');
    if (geoms.length === list.length && geoms.length > 0) {
      geometry = union(geoms);
      aoiCount = geoms.length;
    }
  }
  errors.merge(checkModelConstellations(body.Model, body.SatelliteConstellations));
  const def = findModel(body.Model);
  if (def && (body.ImageFrequency < def.frequency.min || body.ImageFrequency > def.frequency.max)) {
    errors.add('ImageFrequency', `ImageFrequency must be between ${def.frequency.min} and ${def.frequency.max} days for ${def.Model}.`);
  }
  if (body.To != null && parseUtc(body.From) > parseUtc(body.To)) {
    errors.add('From', 'From must not be after To.');
    errors.add('To', 'To must not be before From.');
  }
  errors.throwIfAny();
  return {
    mode, wkt, geometry: geometry!, areaKm2: areaKm2(geometry!), aoiCount,
    tiles: hasTiles ? tiles : [], miniTiles: hasMini ? miniTiles : [],
    model: body.Model, constellations: body.SatelliteConstellations,
    from: body.From, to: body.To ?? null, imageFrequency: body.ImageFrequency,
    referenceDate: body.ReferenceDate, storageMonths: body.StorageMonths, apiRequests: body.ApiRequests,
  };
}

/** Spend so far in the current UTC month (positive EUR). */
export function monthSpend(acc: Account, now: number): number {
  const month = isoDate(now).slice(0, 7);
  return -acc.ledger
    .filter((e) => (e.kind === 'Order' || e.kind === 'Download' || e.kind === 'Refund') && isoDate(e.at).slice(0, 7) === month)
    .reduce((s, e) => s + e.amount, 0);
}

/** EUR per km2 per image for a model at a monthly spend, with optional add-ons and the tile discount. */
export function pricePerKm2(o: Pick<ResolvedOrder, 'model' | 'constellations' | 'mode'>, spend: number): number {
  const def = findModel(o.model)!;
  const tier = SPEND_TIERS.find((t) => spend < t.upTo)!;
  const family = def.Model === 'Nimbus' ? tier.nimbus : tier.stratus;
  // Tiers are quoted for the base price of each family; other models scale from theirs.
  const base = family * (def.basePricePerKm2 / (def.Model === 'Nimbus' ? 0.1 : 0.2));
  const optional = new Set(def.SupportedSatelliteConstellations.filter((c) => c.Optional).map((c) => c.SatelliteConstellation as string));
  const addons = o.constellations.filter((c) => optional.has(c)).reduce((s, c) => s + (OPTIONAL_ADDON_PER_KM2[c as Constellation] ?? 0), 0);
  const factor = o.mode === 'TileGuids' ? TILE_PRICE_FACTOR.tile : o.mode === 'MiniTileGuids' ? TILE_PRICE_FACTOR.miniTile : 1;
  return (base + addons) * factor;
}

/** The image dates of an order: historical ones (up to today) and this month's recurring ones. */
export function orderDates(o: Pick<ResolvedOrder, 'referenceDate' | 'imageFrequency' | 'from' | 'to'>, now: number): { historic: string[]; recurring: string[] } {
  const today = isoDate(now);
  if (o.to != null) {
    const all = cadenceDates(o.referenceDate, o.imageFrequency, o.from, o.to);
    return { historic: all.filter((d) => d <= today), recurring: all.filter((d) => d > today) };
  }
  const monthEnd = endOfMonthUtc(now);
  const all = cadenceDates(o.referenceDate, o.imageFrequency, o.from, monthEnd);
  return { historic: all.filter((d) => d <= today), recurring: all.filter((d) => d > today) };
}

/** The billable area: at least the minimum per AOI. */
function billableKm2(o: ResolvedOrder): number {
  return Math.max(o.areaKm2, MIN_BILLABLE_KM2 * o.aoiCount);
}

/** Computes the estimate record for a resolved order. */
export function estimateOrder(acc: Account, o: ResolvedOrder, now: number, simulatedSpend?: number | null) {
  const spend = simulatedSpend ?? monthSpend(acc, now);
  const price = pricePerKm2(o, spend);
  const billable = billableKm2(o);
  const { historic, recurring } = orderDates(o, now);
  const recurringOrder = o.to == null;
  const historicCost = round2(billable * price * historic.length);
  const perMonth = recurringOrder ? round2(billable * price * Math.ceil(30 / o.imageFrequency)) : null;
  return {
    AreaKm2: round2(billable),
    AreaKm2BeforeMinimum1Km2PerAoi: Math.round(o.areaKm2 * 1e4) / 1e4,
    CurrencyCode: 'EUR',
    PricePerKm2: Math.round(price * 1e4) / 1e4,
    TotalHistoricCost: historicCost,
    CurrentMonthCosts: round2(spend),
    RecurringCostsEstimate: perMonth,
    CancellationDate: recurringOrder ? new Date(firstOfNextMonthUtc(now)).toISOString() : null,
    HistoricImageDates: historic,
    RecurringImageDates: recurring,
    ImageDates: [...historic, ...recurring],
  };
}

/** The canonical, comparable form of an order body (key order and defaults do not matter). */
export function canonicalOrder(body: EstimateBody | CreateBody): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const skip = new Set(['TileDeduplication', 'SimulatedEuroUsage']);
  for (const k of Object.keys(body).sort()) {
    const v = (body as Record<string, unknown>)[k];
    if (skip.has(k) || v === undefined) continue;
    out[k] = v === '' ? null : v;
  }
  return out;
}

/** Names the fields in which a create body differs from the last estimate. */
export function diffEstimate(estimated: Record<string, unknown> | null, created: Record<string, unknown>) {
  if (!estimated) {
    return { Estimate: ['No estimate was made for this order; call /api/tasking/orders/estimate with the same body first.'] };
  }
  const fields: Record<string, string[]> = {};
  const keys = new Set([...Object.keys(estimated), ...Object.keys(created)]);
  for (const k of keys) {
    const a = JSON.stringify(estimated[k] ?? null);
    const b = JSON.stringify(created[k] ?? null);
    if (a !== b) fields[k] = [`Differs from the last estimated order (estimated ${a}, sent ${b}). Estimate again before creating.`];
  }
  return Object.keys(fields).length ? fields : null;
}

/** Current status of an order, derived from its age. */
export function orderStatus(o: StoredOrder, state: SimState): OrderStatus {
  const now = state.now();
  if (o.canceledAt != null) return 'Canceled';
  const recurring = o.to == null;
  const done: OrderStatus = recurring && !(o.effectiveTo && isoDate(now) > o.effectiveTo) ? 'UpToDate' : 'Completed';
  if (o.instant) return done;
  const l = state.lifecycle;
  const age = now - o.createdAt;
  if (age < l.review) return 'Review';
  if (age < l.review + l.preparing) return 'Preparing';
  if (age < l.review + l.preparing + l.awaiting) return 'AwaitingSatelliteProducts';
  if (age < l.review + l.preparing + l.awaiting + l.processing) return recurring ? 'Predicting' : 'Processing';
  return done;
}

/** Whether an order's storage has run out or it was cancelled. */
export function orderExpired(o: StoredOrder, state: SimState): boolean {
  if (o.canceledAt != null) return true;
  const end = o.to ?? o.effectiveTo;
  if (!end) return false;
  return isoDate(state.now()) > addMonths(end, 1 + o.storageMonths);
}

/** The status history implied by the order's age. */
function statusHistory(o: StoredOrder, state: SimState) {
  const l = state.lifecycle;
  const steps: [OrderStatus, number][] = o.instant
    ? [['Review', 0]]
    : [['Review', 0], ['Preparing', l.review], ['AwaitingSatelliteProducts', l.review + l.preparing],
      [o.to == null ? 'Predicting' : 'Processing', l.review + l.preparing + l.awaiting]];
  const out = steps
    .filter(([, t]) => o.createdAt + t <= state.now() && (o.canceledAt == null || o.createdAt + t <= o.canceledAt))
    .map(([s, t]) => ({ Status: s as string, At: new Date(o.createdAt + t).toISOString() }));
  const final = orderStatus(o, state);
  if (out[out.length - 1]?.Status !== final) {
    const at = o.canceledAt ?? (o.instant ? o.createdAt : o.createdAt + l.review + l.preparing + l.awaiting + l.processing);
    out.push({ Status: final, At: new Date(at).toISOString() });
  }
  return out;
}

/** Dates of an order whose imagery can be downloaded now. */
export function availableDates(o: StoredOrder, state: SimState): string[] {
  const status = orderStatus(o, state);
  if (!['Processing', 'Predicting', 'Completed', 'UpToDate'].includes(status)) return [];
  const today = isoDate(state.now());
  const end = o.to ?? o.effectiveTo ?? today;
  return cadenceDates(o.referenceDate, o.imageFrequency, o.from, end < today ? end : today);
}

/** The list record of an order. */
export function orderDto(o: StoredOrder, state: SimState) {
  return {
    TaskOrderGuid: o.guid,
    OrderingProcessStatus: orderStatus(o, state),
    BillingCycle: (o.to == null ? 'Monthly' : 'OneTime') as 'Monthly' | 'OneTime',
    CreatedAt: new Date(o.createdAt).toISOString(),
    TaskOrderAreaKm2: round2(o.areaKm2),
    From: o.from,
    To: o.to,
    Model: o.model,
    SatelliteConstellations: o.constellations,
    ImageFrequency: o.imageFrequency,
    ReferenceDate: o.referenceDate,
    StorageMonths: o.storageMonths,
    ApiRequests: o.apiRequests,
    Wkt: o.wkt ?? toWkt(o.geometry),
    Tiles: o.tiles,
    MiniTiles: o.miniTiles,
    TotalCost: o.cost,
    RenewalStopped: o.renewalStoppedAt != null,
    Expired: orderExpired(o, state),
  };
}

/** The details record of an order. */
export function orderDetailsDto(o: StoredOrder, state: SimState) {
  const avail = new Set(availableDates(o, state));
  const end = o.to ?? o.effectiveTo ?? endOfMonthUtc(state.now());
  return {
    ...orderDto(o, state),
    ImageDates: cadenceDates(o.referenceDate, o.imageFrequency, o.from, end).map((d) => ({ Date: d, Available: avail.has(d) })),
    StatusHistory: statusHistory(o, state),
    CancellationDate: o.to == null && o.renewalStoppedAt == null ? new Date(firstOfNextMonthUtc(state.now())).toISOString() : null,
    DeduplicatedTiles: o.dedupedTiles,
  };
}

/** Whether an earlier tile order was made with settings that deduplication can match. */
function consistentForDedup(prev: StoredOrder, o: ResolvedOrder): boolean {
  const sameSet = (a: string[], b: string[]) => a.length === b.length && [...a].sort().join() === [...b].sort().join();
  return prev.model === o.model && sameSet(prev.constellations, o.constellations) &&
    (prev.to == null) === (o.to == null) && prev.imageFrequency === o.imageFrequency && prev.referenceDate === o.referenceDate;
}

/** Stores a new order, charging its cost; applies TileDeduplication for tile orders. */
export function createOrder(state: SimState, acc: Account, o: ResolvedOrder, dedup: boolean, opts: { instant?: boolean } = {}): StoredOrder {
  const now = state.now();
  let { tiles, miniTiles } = o;
  const deduped: string[] = [];
  if (dedup && (o.mode === 'TileGuids' || o.mode === 'MiniTileGuids')) {
    const earlier = acc.orders.filter((p) => p.canceledAt == null && p.mode === o.mode && consistentForDedup(p, o));
    const owned = new Set(earlier.flatMap((p) => [...p.tiles, ...p.miniTiles]));
    const keep = (g: string) => (owned.has(g) ? (deduped.push(g), false) : true);
    tiles = tiles.filter(keep);
    miniTiles = miniTiles.filter(keep);
  }
  const charged: ResolvedOrder = deduped.length ? dedupedOrder(o, tiles, miniTiles) : o;
  const est = estimateOrder(acc, charged, now);
  const cost = charged.aoiCount === 0 ? 0 : est.TotalHistoricCost + (o.to == null ? round2(est.AreaKm2 * est.PricePerKm2 * est.RecurringImageDates.length) : 0);
  const balance = state.balance(acc);
  if (cost > balance + acc.profile.euroOverdraftLimit) {
    throw new ServiceError(400, Codes.noCredit, `Not enough credit: the order costs ${cost.toFixed(2)} EUR and the balance is ${balance.toFixed(2)} EUR.`);
  }
  const order: StoredOrder = {
    guid: randomUUID(), createdAt: now, model: o.model, constellations: o.constellations, mode: o.mode, wkt: o.wkt,
    tiles: o.tiles, miniTiles: o.miniTiles, dedupedTiles: deduped, geometry: o.geometry, areaKm2: o.areaKm2,
    from: o.from, to: o.to, imageFrequency: o.imageFrequency, referenceDate: o.referenceDate,
    storageMonths: o.storageMonths, apiRequests: o.apiRequests, cost, canceledAt: null, renewalStoppedAt: null,
    effectiveTo: null, downloadsUsed: 0, instant: opts.instant ?? false,
  };
  acc.orders.push(order);
  if (cost > 0) state.addLedger(acc, 'Order', -cost, `Tasking order ${o.model} ${round2(o.areaKm2)} km²`, order.guid);
  return order;
}

function dedupedOrder(o: ResolvedOrder, tiles: string[], miniTiles: string[]): ResolvedOrder {
  const cells = [...tiles, ...miniTiles].map((g) => cellByGuid(g)!);
  const geometry = cells.length ? union(cells.map((c) => c.geometry)) : null;
  return { ...o, tiles, miniTiles, aoiCount: cells.length, geometry: geometry ?? o.geometry, areaKm2: geometry ? areaKm2(geometry) : 0 };
}

/** Cancels in Review (full refund), or stops a recurring order's renewal before the deadline. */
export function cancelOrder(state: SimState, acc: Account, guid: string) {
  const o = acc.orders.find((x) => x.guid.toLowerCase() === guid.toLowerCase());
  if (!o) throw new ServiceError(404, Codes.notFound, `Order ${guid} was not found for this API key.`);
  const status = orderStatus(o, state);
  const now = state.now();
  if (status === 'Canceled') throw new ServiceError(400, Codes.invalidRequest, 'The order is already cancelled.', { taskOrderGuid: ['The order is already cancelled.'] });
  if (status === 'Review') {
    o.canceledAt = now;
    if (o.cost > 0) state.addLedger(acc, 'Refund', o.cost, `Refund of cancelled order`, o.guid);
    return { TaskOrderGuid: o.guid, Result: 'Canceled' as const, OrderingProcessStatus: 'Canceled', RefundedAmount: o.cost, EffectiveTo: null };
  }
  if (o.to == null && o.renewalStoppedAt == null && now < firstOfNextMonthUtc(now)) {
    o.renewalStoppedAt = now;
    o.effectiveTo = endOfMonthUtc(now);
    return { TaskOrderGuid: o.guid, Result: 'RenewalStopped' as const, OrderingProcessStatus: orderStatus(o, state), RefundedAmount: 0, EffectiveTo: o.effectiveTo };
  }
  const reason = o.to == null
    ? 'The renewal of this recurring order is already stopped.'
    : `A historical order can only be cancelled in Review; it is ${status}.`;
  throw new ServiceError(400, Codes.invalidRequest, reason, { taskOrderGuid: [reason] });
}

/** Raises the estimate/create mismatch as the contract's 400. */
export function assertMatchesEstimate(acc: Account, body: CreateBody): void {
  const diff = diffEstimate(acc.lastEstimate, canonicalOrder(body));
  if (diff) throw validationError(diff);
}
