import type { z } from 'zod';
import { DOWNLOAD_EUR_PER_KM2, checkModelConstellations, findModel, requiredConstellations } from './catalog.js';
import { addMonths, isoDate, parseUtc } from './dates.js';
import { Codes, FieldErrorBag, ServiceError } from './envelope.js';
import { areaKm2, bbox4326, covers, intersect, parseAoi, toWkt, union, utmEpsgFor } from './geo/aoi.js';
import { cellByGuid } from './geo/tile-grid.js';
import { billedBoxes, createOrder, availableDates, orderStatus } from './orders.js';
import { isSupportedEpsg as rasterSupportsEpsg, parseBandnames, planRaster, type BandSpec, type RasterRequest } from './raster/index.js';
import type * as S from './schemas.js';
import { round2, type Account, type Polygonal, type SimState, type StoredOrder } from './state.js';

type CompositeBody = z.infer<typeof S.CompositeProcessBody>;
type TileBody = z.infer<typeof S.TileProcessBody> | z.infer<typeof S.MiniTileProcessBody>;

/** Orders whose model and constellations can serve a request. */
function matchingOrders(acc: Account, model: string | null | undefined, constellations: string[] | null | undefined): StoredOrder[] {
  return acc.orders.filter((o) => o.canceledAt == null && (!model || o.model === model) &&
    (!constellations || constellations.every((c) => o.constellations.includes(c))));
}

/** search/available: per model, the intersection of the AOI with ordered areas and their dates in the period. */
export function searchAvailable(state: SimState, acc: Account, aoi: Polygonal, from: string, until: string | null, model?: string | null, constellations?: string[] | null) {
  const start = isoDate(parseUtc(from));
  const end = isoDate(until ? parseUtc(until) : state.now());
  const groups = new Map<string, { Model: string; SatelliteConstellations: string[]; DatesByGeog: { Wkt: string; Dates: string[] }[] }>();
  const box = bbox4326(aoi);
  for (const o of matchingOrders(acc, model, constellations)) {
    const dates = availableDates(o, state).filter((d) => d >= start && d <= end);
    if (!dates.length || !boxesMeet(box, bbox4326(o.geometry))) continue;
    const part = intersect(aoi, o.geometry);
    if (!part || areaKm2(part) < 1e-6) continue;
    const key = `${o.model}|${[...o.constellations].sort().join(',')}`;
    const g = groups.get(key) ?? { Model: o.model, SatelliteConstellations: o.constellations, DatesByGeog: [] };
    g.DatesByGeog.push({ Wkt: toWkt(part), Dates: dates });
    groups.set(key, g);
  }
  return { ModelImageDates: [...groups.values()] };
}

/** The deprecated geography/composite: merged area and the union of dates. */
export function geographyComposite(state: SimState, acc: Account, aoi: Polygonal, from: string, to: string) {
  const res = searchAvailable(state, acc, aoi, from, to);
  const parts: Polygonal[] = [];
  const dates = new Set<string>();
  for (const g of res.ModelImageDates) for (const d of g.DatesByGeog) {
    dates.add(d.Dates[0]!);
    for (const x of d.Dates) dates.add(x);
    const p = parseAoi({ Wkt: d.Wkt }, { required: true });
    if (p.ok && p.geometry) parts.push(p.geometry);
  }
  const merged = parts.length ? union(parts) : null;
  return { Wkt: merged ? toWkt(merged) : null, AreaKm2: merged ? round2(areaKm2(merged)) : 0, Dates: [...dates].sort() };
}

/**
 * What the key's orders cover for one date: geometry, and the orders involved. Its cost follows the
 * orders that have the date, not all the key's orders: `byArea` (every order sharing area with the
 * AOI) and `ordersCover` are worked out when read, and an order whose box misses the AOI's is never
 * clipped.
 */
export function coverageFor(state: SimState, acc: Account, aoi: Polygonal, date: string, model: string, constellations: string[] | null | undefined) {
  const day = isoDate(parseUtc(date));
  const box = bbox4326(aoi);
  const near = matchingOrders(acc, model, constellations).filter((o) => boxesMeet(box, bbox4326(o.geometry)));
  const shares = new Map<StoredOrder, boolean>();
  const sharesArea = (o: StoredOrder): boolean => {
    let v = shares.get(o);
    if (v === undefined) shares.set(o, (v = intersect(aoi, o.geometry) !== null));
    return v;
  };
  const withDate = near.filter((o) => availableDates(o, state).includes(day) && sharesArea(o));
  const geom = withDate.length ? union(withDate.map((o) => o.geometry)) : null;
  const covered = geom ? intersect(aoi, geom) : null;
  const requested = areaKm2(aoi);
  const availableKm2 = covered ? areaKm2(covered) : 0;
  let byArea: StoredOrder[] | null = null;
  const overlapping = (): StoredOrder[] => (byArea ??= near.filter(sharesArea));
  let ordersCover: boolean | null = null;
  return {
    day, withDate, covered, requested, availableKm2,
    full: covered != null && (covers(geom!, aoi) || availableKm2 >= requested * 0.999),
    get byArea(): StoredOrder[] {
      return overlapping();
    },
    /** Whether the orders, whatever their dates, cover the AOI: one alone, or all of them together. */
    get ordersCover(): boolean {
      const orders = overlapping();
      return (ordersCover ??= orders.length > 0 && (orders.some((o) => covers(o.geometry, aoi)) || covers(union(orders.map((o) => o.geometry))!, aoi)));
    },
  };
}

/** Whether two lon/lat boxes [minLon, minLat, maxLon, maxLat] overlap or touch. */
function boxesMeet(a: [number, number, number, number], b: [number, number, number, number]): boolean {
  return a[0] <= b[2] && b[0] <= a[2] && a[1] <= b[3] && b[1] <= a[3];
}

/** Validates the Bandnames and EPSG of a request, adding reasons to the bag. */
function checkOutputSettings(errors: FieldErrorBag, bandnames: string, epsg: number): BandSpec[] {
  const bands = parseBandnames(bandnames);
  if (!bands.ok) errors.add('Bandnames', bands.reason);
  if (!isSupportedEpsg(epsg)) {
    errors.add('EpsgProjection', `EPSG ${epsg} is not supported: use 4326, 3857, 47000 or a UTM zone 32601-32660 / 32701-32760.`);
  }
  return bands.ok ? bands.bands : [];
}

/** EPSG codes this simulator renders; 47000 lets the service pick the UTM zone. */
export function isSupportedEpsg(epsg: number): boolean {
  return epsg === 47000 || rasterSupportsEpsg(epsg);
}

/** composite/available: readable flags for one exact request. */
export function compositeAvailable(state: SimState, acc: Account, body: z.infer<typeof S.CompositeAvailableQuery>) {
  const errors = new FieldErrorBag();
  const aoi = parseAoi(body, { required: true });
  if (!aoi.ok) errors.merge(aoi.errors);
  errors.merge(checkModelConstellations(body.Model, body.SatelliteConstellations));
  checkOutputSettings(errors, body.Bandnames, body.EpsgProjection);
  errors.throwIfAny();
  const geom = aoi.ok ? aoi.geometry! : null!;
  const cov = coverageFor(state, acc, geom, body.Date, body.Model, body.SatelliteConstellations);
  const inData = inDataArea(geom, body.EpsgProjection, body.UtmDataSelectionMode);
  const now = state.now();
  return {
    FullyAvailable: cov.full && inData,
    PartiallyAvailable: cov.availableKm2 > 0 && !cov.full,
    OrdersCoverPolygon: cov.ordersCover,
    DataAvailableForUser: cov.availableKm2 > 0,
    PolygonInDataArea: inData,
    AllImagesPredicted: cov.byArea.length > 0 && cov.byArea.every((o) => ['Completed', 'UpToDate', 'Processing', 'Predicting'].includes(orderStatus(o, state))),
    AnyImageWithinStorageMonths: cov.withDate.some((o) => isoDate(now) <= addMonths(cov.day, 1 + o.storageMonths)),
    RequestedAreaKm2: round2(cov.requested),
    AvailableAreaKm2: round2(cov.availableKm2),
  };
}

/** Whether the AOI lies where data exists for the projection (UTM zones only cover their own 6° band when fully-covered is asked). */
function inDataArea(aoi: Polygonal, epsg: number, mode: string): boolean {
  const [minX, minY, maxX, maxY] = bbox4326(aoi);
  if (minY < -84 || maxY > 84) return false;
  const zone = utmZoneOf(epsg);
  if (zone == null || mode !== 'single_utm_fully_covered') return true;
  const west = -180 + (zone - 1) * 6;
  return minX >= west - 1e-9 && maxX <= west + 6 + 1e-9;
}

function utmZoneOf(epsg: number): number | null {
  if (epsg >= 32601 && epsg <= 32660) return epsg - 32600;
  if (epsg >= 32701 && epsg <= 32760) return epsg - 32700;
  return null;
}

/** Download credit in EUR for an area and band count. */
export function downloadCredit(km2: number, bandCount: number): number {
  return round2(Math.max(km2, 1) * DOWNLOAD_EUR_PER_KM2 * Math.max(1, Math.ceil(bandCount / 4)));
}

/** An order whose included downloads cover the request, if any. */
function includingOrder(orders: StoredOrder[]): StoredOrder | undefined {
  return orders.find((o) => o.downloadsUsed < 1 + o.apiRequests);
}

/** composite/estimate: area and download credit of a polygon, tile or mini-tile. */
export function compositeEstimate(state: SimState, acc: Account, body: z.infer<typeof S.CompositeEstimateQuery>) {
  const errors = new FieldErrorBag();
  const hasAoi = (body.Wkt != null && body.Wkt !== '') || body.GeoJson != null;
  const guid = body.TileGuid ?? body.MiniTileGuid ?? null;
  let geom: Polygonal | null = null;
  if (body.TileGuid && body.MiniTileGuid) errors.add('TileGuid', 'Give TileGuid or MiniTileGuid, not both.');
  if (hasAoi && guid) errors.add(body.TileGuid ? 'TileGuid' : 'MiniTileGuid', 'Give either an AOI (Wkt or GeoJson) or a tile GUID, not both.');
  if (guid) {
    const cell = cellByGuid(guid);
    if (!cell) errors.add(body.TileGuid ? 'TileGuid' : 'MiniTileGuid', `Unknown tile GUID ${guid}.`);
    else geom = cell.geometry;
  } else {
    const aoi = parseAoi(body, { required: true });
    if (!aoi.ok) errors.merge(aoi.errors);
    else geom = aoi.geometry;
  }
  let bandCount = guid ? 4 : 3;
  if (body.Bandnames != null) {
    const b = parseBandnames(body.Bandnames);
    if (!b.ok) errors.add('Bandnames', b.reason);
    else bandCount = b.bands.length;
  }
  const rest = body as Record<string, unknown>;
  // Date is optional here (it only decides whether an order already includes the download),
  // but one that is given must be a date: "" or "soon" is refused, never a 500.
  const dateGiven = typeof rest.Date === 'string' && rest.Date.trim() !== '';
  if (rest.Date != null && (!dateGiven || Number.isNaN(parseUtc(rest.Date as string)))) {
    errors.add('Date', 'Date must be a date (YYYY-MM-DD) or a UTC date-time.');
  }
  errors.throwIfAny();
  const km2 = areaKm2(geom!);
  let included = false;
  if (dateGiven && typeof rest.Model === 'string') {
    // Model is not a field of this query's schema, so its case is resolved here.
    const model = findModel(rest.Model)?.Model ?? rest.Model;
    const cov = coverageFor(state, acc, geom!, rest.Date as string, model, rest.SatelliteConstellations as string[] | undefined);
    included = cov.full && includingOrder(cov.withDate) != null;
  }
  return {
    AreaEstimateKm2: round2(km2),
    CreditEstimate: included ? 0 : downloadCredit(km2, bandCount),
    CurrencyCode: 'EUR',
    IncludedInOrder: included,
    BandCount: bandCount,
  };
}

/** A validated imagery request, ready to render and bill. */
export interface PreparedDownload {
  raster: RasterRequest;
  fileName: string;
  charge: number;
  includedBy: StoredOrder | null;
  uploadUrl: string | null;
}

function tagsFor(date: string, model: string, constellations: string[]) {
  return { IMAGE_DATE: date.replaceAll('-', ''), MODEL_VERSION: `${model}-1.0`, IMAGE_VERSION: '1', CONSTELLATIONS: constellations.join(',') };
}

/** Enforces credit, limits and order coverage, then describes the composite to render. */
export function prepareComposite(state: SimState, acc: Account, body: CompositeBody): PreparedDownload {
  const errors = new FieldErrorBag();
  const aoi = parseAoi(body, { required: true });
  if (!aoi.ok) errors.merge(aoi.errors);
  errors.merge(checkModelConstellations(body.Model, body.SatelliteConstellations));
  const bands = checkOutputSettings(errors, body.Bandnames, body.EpsgProjection);
  errors.throwIfAny();
  const geom = aoi.ok ? aoi.geometry! : null!;
  const constellations = body.SatelliteConstellations ?? requiredConstellations(findModel(body.Model)!);
  const km2 = areaKm2(geom);
  if (bands.length > acc.profile.maxTotalBands) {
    throw new ServiceError(400, Codes.tooManyBands, `Too many bands: ${bands.length} requested, the account allows ${acc.profile.maxTotalBands} (MaxTotalBands). Split the request.`, { Bandnames: [`At most ${acc.profile.maxTotalBands} bands per request.`] });
  }
  if (km2 > acc.profile.maxCompositeAreaKm2) {
    throw new ServiceError(400, Codes.areaTooLarge, `Area too large: ${round2(km2)} km² requested, the account allows ${acc.profile.maxCompositeAreaKm2} km² (MaxCompositeAreaKm2). Split the request.`, { [aoi.ok && aoi.mode ? aoi.mode : 'Wkt']: [`The area is ${round2(km2)} km²; at most ${acc.profile.maxCompositeAreaKm2} km² per request.`] });
  }
  checkOutputSize(geom, body, bands, aoi.ok && aoi.mode ? aoi.mode : 'Wkt');
  let cov = coverageFor(state, acc, geom, body.Date, body.Model, body.SatelliteConstellations);
  const included = cov.full ? includingOrder(cov.withDate) ?? null : null;
  const charge = included ? 0 : downloadCredit(km2, bands.length);
  const balance = state.balance(acc);
  if (charge > balance + acc.profile.euroOverdraftLimit) {
    throw new ServiceError(400, Codes.noCredit, `Not enough credit: the download costs ${charge.toFixed(2)} EUR and the balance is ${balance.toFixed(2)} EUR. Redeem a voucher or top up.`);
  }
  if (!cov.full && !(body.AllowPartialImage && cov.availableKm2 > 0)) {
    if (body.AutomaticOrderCreation) {
      createOrder(state, acc, {
        mode: aoi.ok && aoi.mode ? aoi.mode : 'Wkt', wkt: toWkt(geom), tiles: [], miniTiles: [], geometry: geom, areaKm2: km2,
        aois: billedBoxes(aoi.ok ? aoi.aois : []),
        model: body.Model, constellations, from: cov.day, to: cov.day, imageFrequency: 1, referenceDate: cov.day, storageMonths: 0, apiRequests: 0,
      }, false, { instant: true });
      cov = coverageFor(state, acc, geom, body.Date, body.Model, body.SatelliteConstellations);
    } else if (cov.byArea.length > 0 && cov.ordersCover) {
      throw new ServiceError(400, Codes.noImagery, `No imagery for ${cov.day}: the ordered dates here are not on this day or not processed yet. Use search/available for the dates.`, { Date: [`No imagery on ${cov.day} for this area.`] });
    } else {
      throw new ServiceError(400, Codes.notCovered, `The area and date are not covered by an order${cov.availableKm2 > 0 ? ' (only partly; set AllowPartialImage)' : ''}. Order this area first, or set AutomaticOrderCreation.`);
    }
  }
  const mask = cov.full ? geom : (cov.covered ?? geom);
  const epsg = resolveEpsg(body.EpsgProjection, mask);
  if (body.UtmDataSelectionMode === 'single_utm_fully_covered' && !inDataArea(geom, epsg, body.UtmDataSelectionMode)) {
    throw new ServiceError(400, Codes.noImagery, `The AOI is not fully covered by data in EPSG:${epsg} (single_utm_fully_covered). Use combined_utm or the AOI's own zone.`, { UtmDataSelectionMode: ['The AOI extends beyond this UTM zone.'] });
  }
  return {
    raster: {
      aoi: mask, date: cov.day, epsg, resolution: body.Resolution, bands, dataType: body.DataType,
      pixelSelection: body.PixelSelectionMode, tags: tagsFor(cov.day, body.Model, constellations),
    },
    fileName: `composite_${cov.day.replaceAll('-', '')}_${body.Model}_${epsg}_${body.Resolution}m.tif`,
    charge,
    includedBy: included,
    uploadUrl: body.UploadUrl ?? null,
  };
}

/** Largest composite file the simulator writes (a 2500 km² square of 12 INT16 bands at 10 m is about 0.6 GB). */
export const MAX_OUTPUT_BYTES = 1024 ** 3;

/**
 * Refuses (1004) a composite whose file would exceed {@link MAX_OUTPUT_BYTES}: the area limit alone
 * lets a sliver AOI of 2500 km² span a 200 km box, about 9.6 GB at 10 m.
 */
function checkOutputSize(geom: Polygonal, body: CompositeBody, bands: BandSpec[], field: string): void {
  const plan = planRaster({
    aoi: geom, date: body.Date, epsg: resolveEpsg(body.EpsgProjection, geom), resolution: body.Resolution, bands,
    dataType: body.DataType, pixelSelection: body.PixelSelectionMode, tags: tagsFor(body.Date, body.Model, []),
  });
  const gb = (n: number) => `${(n / 1024 ** 3).toFixed(2)} GiB`;
  const size = 'error' in plan ? (/output too large: (.*)/.exec(plan.error)?.[1] ?? null) : plan.estimatedBytes > MAX_OUTPUT_BYTES ? `${plan.width} x ${plan.height} px, ${gb(plan.estimatedBytes)}` : null;
  if (size === null) return;
  throw new ServiceError(400, Codes.areaTooLarge, `Output too large: the AOI's bounding box at ${body.Resolution} m gives a file of ${size}; at most ${gb(MAX_OUTPUT_BYTES)} per request. Split the request or use a coarser resolution.`, { [field]: [`The output would be ${size}; at most ${gb(MAX_OUTPUT_BYTES)} per request.`] });
}

/** The output EPSG: 47000 picks the UTM zone of the AOI's centre. */
export function resolveEpsg(epsg: number, aoi: Polygonal): number {
  if (epsg !== 47000) return epsg;
  const [minX, minY, maxX, maxY] = bbox4326(aoi);
  return utmEpsgFor((minX + maxX) / 2, (minY + maxY) / 2);
}

/** Like prepareComposite, for a tile or mini-tile GUID (B2,B3,B4,B8 at 10 m on the tile's own grid). */
export function prepareTile(state: SimState, acc: Account, body: TileBody, mini: boolean): PreparedDownload {
  const errors = new FieldErrorBag();
  const field = mini ? 'MiniTileGuid' : 'TileGuid';
  const guid = (body as unknown as Record<string, string>)[field]!;
  const cell = cellByGuid(guid);
  if (!cell) errors.add(field, `Unknown ${mini ? 'mini-tile' : 'tile'} GUID ${guid}.`);
  else if (cell.MiniTile !== mini) errors.add(field, `${guid} is a ${cell.MiniTile ? 'mini-tile' : 'tile'}; use /process/${cell.MiniTile ? 'minitile' : 'tile'}.`);
  errors.merge(checkModelConstellations(body.Model, body.SatelliteConstellations));
  errors.throwIfAny();
  const constellations = body.SatelliteConstellations ?? requiredConstellations(findModel(body.Model)!);
  const cov = coverageFor(state, acc, cell!.geometry, body.Date, body.Model, body.SatelliteConstellations);
  const included = cov.full ? includingOrder(cov.withDate) ?? null : null;
  const charge = included ? 0 : downloadCredit(cell!.areaKm2, 4);
  const balance = state.balance(acc);
  if (charge > balance + acc.profile.euroOverdraftLimit) {
    throw new ServiceError(400, Codes.noCredit, `Not enough credit: the download costs ${charge.toFixed(2)} EUR and the balance is ${balance.toFixed(2)} EUR.`);
  }
  if (cov.availableKm2 <= 0) {
    throw new ServiceError(400, Codes.notCovered, `The ${mini ? 'mini-tile' : 'tile'} is not covered by an order with imagery on ${cov.day}.`);
  }
  const bands = (parseBandnames('B2,B3,B4,B8') as { ok: true; bands: BandSpec[] }).bands;
  const b = cell!.utmBounds;
  return {
    raster: {
      aoi: cov.covered ?? cell!.geometry, date: cov.day, epsg: cell!.Epsg, resolution: 10, bands, dataType: 'INT16',
      pixelSelection: 'intersect', tags: tagsFor(cov.day, body.Model, constellations),
      grid: { minX: b.minX, minY: b.minY, maxX: b.maxX, maxY: b.maxY },
    },
    fileName: `${mini ? 'minitile' : 'tile'}_${guid}_${cov.day.replaceAll('-', '')}.tif`,
    charge,
    includedBy: included,
    uploadUrl: body.UploadUrl ?? null,
  };
}

/** Bills a finished download. */
export function billDownload(state: SimState, acc: Account, p: PreparedDownload): void {
  if (p.includedBy) p.includedBy.downloadsUsed++;
  if (p.charge > 0) state.addLedger(acc, 'Download', -p.charge, `Download ${p.fileName}`, null);
}
