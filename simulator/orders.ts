import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import {
  MIN_BILLABLE_KM2, OPTIONAL_ADDON_PER_KM2, SPEND_TIERS, TILE_PRICE_FACTOR,
  checkModelConstellations, findModel, type Constellation,
} from './catalog.js';
import { addMonths, cadenceDates, endOfMonthUtc, firstOfNextMonthUtc, isoDate, parseUtc } from './dates.js';
import { Codes, FieldErrorBag, ServiceError, validationError } from './envelope.js';
import { areaKm2, bboxPolygon, parseAoi, toWkt, union } from './geo/aoi.js';
import { cellByGuid } from './geo/tile-grid.js';
import type { OrderCreateBody, OrderEstimateBody } from './schemas.js';
import { round2, type Account, type Polygonal, type SimState, type StoredOrder } from './state.js';
import type { Polygon } from 'geojson';

type EstimateBody = z.infer<typeof OrderEstimateBody>;
type CreateBody = z.infer<typeof OrderCreateBody>;

/** Statuses an order moves through (service-facts.md). */
export type OrderStatus =
  | 'Review' | 'Preparing' | 'AwaitingSatelliteProducts' | 'Processing' | 'Predicting' | 'Completed' | 'UpToDate' | 'Canceled';

/** An order request after validation: its area resolved to geometry and tiles (the stored order's request fields). */
export interface ResolvedOrder extends Pick<StoredOrder,
  'mode' | 'wkt' | 'tiles' | 'miniTiles' | 'geometry' | 'areaKm2' | 'model' | 'constellations' | 'from' | 'to' | 'imageFrequency' | 'referenceDate' | 'storageMonths' | 'apiRequests'> {
  /** The billed shape of each AOI: a polygon's bounding box, or a tile or mini-tile. */
  aois: Polygonal[];
}

/** Each polygon of an AOI is billed by its lon/lat bounding box. */
export function billedBoxes(polygons: Polygon[]): Polygonal[] {
  return polygons.map((p) => bboxPolygon(p));
}

/** Splits `Tiles` (the production client's field) into tile and mini-tile GUIDs by what each names. */
function splitTiles(list: string[] | null | undefined, errors: FieldErrorBag): { tiles: string[]; mini: string[] } {
  const out = { tiles: [] as string[], mini: [] as string[] };
  for (const g of list ?? []) {
    const cell = cellByGuid(g);
    if (!cell) errors.add('Tiles', `Unknown tile GUID ${g}.`);
    else (cell.MiniTile ? out.mini : out.tiles).push(g);
  }
  if (out.tiles.length && out.mini.length) errors.add('Tiles', 'Tiles mixes tiles and mini-tiles; order them separately.');
  return out;
}

/** Validates the domain rules of an order request (the zod shape is already checked; empty lists and nulls were dropped as "not given"). */
export function resolveOrder(body: EstimateBody | CreateBody): ResolvedOrder {
  const errors = new FieldErrorBag();
  const fromTiles = splitTiles(body.Tiles, errors);
  const tileSingles = body.TileGuid ? [body.TileGuid] : [];
  const miniSingles = body.MiniTileGuid ? [body.MiniTileGuid] : [];
  const tiles = [...(body.TileGuids ?? []), ...tileSingles, ...fromTiles.tiles];
  const miniTiles = [...(body.MiniTileGuids ?? []), ...miniSingles, ...fromTiles.mini];
  const hasTiles = body.TileGuids != null || body.TileGuid != null || fromTiles.tiles.length > 0;
  const hasMini = body.MiniTileGuids != null || body.MiniTileGuid != null || fromTiles.mini.length > 0;
  const hasPolygon = (body.Wkt != null && body.Wkt !== '') || body.GeoJson != null;
  const selectors = [hasPolygon, hasTiles, hasMini].filter(Boolean).length;
  const to = body.To ?? body.Until ?? null;
  let geometry: Polygonal | null = null;
  let mode: StoredOrder['mode'] = 'Wkt';
  let wkt: string | null = null;
  let aois: Polygonal[] = [];
  if (selectors === 0) {
    if (errors.empty) errors.add('Wkt', 'Give the area as Wkt, GeoJson, Tiles, TileGuids or MiniTileGuids.');
  } else if (selectors > 1) {
    for (const [k, on] of [['Wkt', hasPolygon], ['TileGuids', hasTiles], ['MiniTileGuids', hasMini]] as const) {
      if (on) errors.add(k, 'Give exactly one of Wkt, GeoJson, Tiles/TileGuids or MiniTileGuids.');
    }
  } else if (hasPolygon) {
    const aoi = parseAoi(body, { required: true, collections: true });
    if (!aoi.ok) errors.merge(aoi.errors);
    else if (aoi.geometry) {
      geometry = aoi.geometry;
      mode = aoi.mode;
      wkt = toWkt(aoi.geometry);
      aois = billedBoxes(aoi.aois);
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
      aois = geoms;
    }
  }
  errors.merge(checkModelConstellations(body.Model, body.SatelliteConstellations));
  const def = findModel(body.Model);
  if (def && (body.ImageFrequency < def.frequency.min || body.ImageFrequency > def.frequency.max)) {
    errors.add('ImageFrequency', `ImageFrequency must be between ${def.frequency.min} and ${def.frequency.max} days for ${def.Model}.`);
  }
  if (to != null && parseUtc(body.From) > parseUtc(to)) {
    const toField = body.To != null ? 'To' : 'Until';
    errors.add('From', `From must not be after ${toField}.`);
    errors.add(toField, `${toField} must not be before From.`);
  }
  errors.throwIfAny();
  return {
    mode, wkt, geometry: geometry!, areaKm2: areaKm2(geometry!), aois,
    tiles: hasTiles ? tiles : [], miniTiles: hasMini ? miniTiles : [],
    model: body.Model, constellations: body.SatelliteConstellations,
    from: body.From, to, imageFrequency: body.ImageFrequency,
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

/** The AOI areas before and after the minimum billable area per AOI, km2. */
function billedAreas(o: ResolvedOrder): { before: number; billed: number } {
  const each = o.aois.map(areaKm2);
  return { before: each.reduce((s, a) => s + a, 0), billed: each.reduce((s, a) => s + Math.max(a, MIN_BILLABLE_KM2), 0) };
}

/** What an order costs: charged now (historical images and this month's recurring ones), and per later month. */
function orderCosts(acc: Account, o: ResolvedOrder, now: number, simulatedSpend?: number | null) {
  const spend = simulatedSpend ?? monthSpend(acc, now);
  const price = pricePerKm2(o, spend);
  const areas = billedAreas(o);
  const dates = orderDates(o, now);
  const recurringOrder = o.to == null;
  const historic = round2(areas.billed * price * dates.historic.length);
  const currentMonth = round2(historic + (recurringOrder ? areas.billed * price * dates.recurring.length : 0));
  const perMonth = recurringOrder ? round2(areas.billed * price * Math.ceil(30 / o.imageFrequency)) : null;
  return { spend, price, areas, dates, historic, currentMonth, perMonth };
}

/** Computes the estimate record for a resolved order. */
export function estimateOrder(acc: Account, o: ResolvedOrder, now: number, simulatedSpend?: number | null) {
  const c = orderCosts(acc, o, now, simulatedSpend);
  const tiles = [...o.tiles, ...o.miniTiles];
  return {
    StorageMonths: o.storageMonths,
    ApiRequests: o.apiRequests,
    Model: o.model,
    SatelliteConstellations: o.constellations,
    CancellationDate: o.to == null ? isoDate(firstOfNextMonthUtc(now)) : isoDate(now),
    AreaKm2: round2(c.areas.billed),
    AreaKm2BeforeMinimum1Km2PerAoi: Math.round(c.areas.before * 1e4) / 1e4,
    AreasOfInterestWkt: `GEOMETRYCOLLECTION (${o.aois.map(toWkt).join(', ')})`,
    Tiles: tiles.length ? tiles : null,
    CurrencyCode: 'EUR',
    PricePerKm2: Math.round(c.price * 1e4) / 1e4,
    CurrentMonthCost: c.currentMonth,
    NextMonthCost: c.perMonth ?? 0,
    Costs: {
      CurrencyCode: 'EUR',
      CurrentMonthOrderCostEstimate: c.currentMonth,
      CurrentMonthStorageCosts: 0,
      NextMonthOrderCostEstimate: c.perMonth ?? 0,
      NextMonthStorageCosts: 0,
      HistoricOrderCostEstimate: c.historic,
      HistoricStorageCosts: 0,
      RecurringOrderCostEstimate: c.perMonth ?? 0,
      RecurringStorageCosts: 0,
    },
    TotalHistoricCost: c.historic,
    NextMonthRecurringCost: c.perMonth ?? 0,
    CurrentMonthCosts: round2(c.spend),
    RecurringCostsEstimate: c.perMonth,
    HistoricImageDates: c.dates.historic,
    RecurringImageDates: c.dates.recurring,
    ImageDates: [...c.dates.historic, ...c.dates.recurring],
  };
}

/** What the key's active recurring orders cost next month, EUR. */
export function nextMonthCosts(acc: Account): number {
  return round2(acc.orders
    .filter((o) => o.to == null && o.canceledAt == null && o.renewalStoppedAt == null)
    .reduce((s, o) => s + (o.monthlyCost ?? 0), 0));
}

/** The canonical, comparable form of an order body (key order and defaults do not matter). */
export function canonicalOrder(body: EstimateBody | CreateBody): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const skip = new Set(['TileDeduplication', 'SimulatedEuroUsage', 'Until']);
  // To and Until name the same end.
  const src: Record<string, unknown> = { ...body, To: body.To ?? body.Until };
  for (const k of Object.keys(src).sort()) {
    const v = src[k];
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
    Tiles: o.mode === 'TileGuids' ? o.tiles : null,
    MiniTiles: o.mode === 'MiniTileGuids' ? o.miniTiles : null,
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
  const costs = orderCosts(acc, charged, now);
  const cost = charged.aois.length === 0 ? 0 : costs.currentMonth;
  const balance = state.balance(acc);
  if (cost > balance + acc.profile.euroOverdraftLimit) {
    throw new ServiceError(400, Codes.noCredit, `Not enough credit: the order costs ${cost.toFixed(2)} EUR and the balance is ${balance.toFixed(2)} EUR.`);
  }
  const order: StoredOrder = {
    guid: randomUUID(), createdAt: now, model: o.model, constellations: o.constellations, mode: o.mode, wkt: o.wkt,
    tiles: o.tiles, miniTiles: o.miniTiles, dedupedTiles: deduped, geometry: o.geometry, areaKm2: o.areaKm2,
    from: o.from, to: o.to, imageFrequency: o.imageFrequency, referenceDate: o.referenceDate,
    storageMonths: o.storageMonths, apiRequests: o.apiRequests, cost, canceledAt: null, renewalStoppedAt: null,
    effectiveTo: null, downloadsUsed: 0, instant: opts.instant ?? false, monthlyCost: costs.perMonth,
  };
  acc.orders.push(order);
  if (cost > 0) state.addLedger(acc, 'Order', -cost, `Tasking order ${o.model} ${round2(o.areaKm2)} km²`, order.guid);
  return order;
}

function dedupedOrder(o: ResolvedOrder, tiles: string[], miniTiles: string[]): ResolvedOrder {
  const cells = [...tiles, ...miniTiles].map((g) => cellByGuid(g)!);
  const geometry = cells.length ? union(cells.map((c) => c.geometry)) : null;
  return { ...o, tiles, miniTiles, aois: cells.map((c) => c.geometry), geometry: geometry ?? o.geometry, areaKm2: geometry ? areaKm2(geometry) : 0 };
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
