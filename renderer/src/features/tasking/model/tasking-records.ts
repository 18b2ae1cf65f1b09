/**
 * Reading tasking records whose fields the contract leaves "not shown" (order
 * list and details rows, tile search results): values are found by what they
 * are (GUID, geometry, date) and by loose name hints, and operation parameters
 * are prefilled from a row by matching names case-insensitively. Nothing here
 * assumes the simulator's field names.
 */

import { KM2_KEY, findGeometry, findGuid, findKey, findRows, isDate, isDateTime, isGuid, isObject, type JsonObject } from '../../../platform/lib/recognise';

/** A name reduced for matching: case and separators ignored ("task_order-GUID" = "TaskOrderGuid"). */
export function nameKey(name: string): string {
  return name.toLowerCase().replace(/[\s_-]/g, '');
}

/** The property of `obj` whose name matches `name` case-insensitively, or null. */
export function keyByName(obj: unknown, name: string): string | null {
  if (!isObject(obj)) return null;
  if (Object.prototype.hasOwnProperty.call(obj, name)) return name;
  const want = nameKey(name);
  return Object.keys(obj).find((k) => nameKey(k) === want) ?? null;
}

/** The value of the property whose name matches `name` case-insensitively (undefined when there is none). */
export function valueByName(obj: unknown, name: string): unknown {
  const k = keyByName(obj, name);
  return k === null ? undefined : (obj as JsonObject)[k];
}

/**
 * Parameter values prefilled from a row: each parameter takes the row's value
 * of the same name, compared case-insensitively (TaskOrderGuid fills
 * taskOrderGuid). The one parameter that takes a GUID (`guidParams`, found in
 * the spec by its format) takes the row's identifier when no field shares its
 * name. Other parameters without a namesake are left out; objects and arrays
 * are not used as parameter values.
 */
export function prefillFromRow(paramNames: readonly string[], row: unknown, guidParams: readonly string[] = []): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const name of paramNames) {
    const v = valueByName(row, name);
    if (v === undefined || v === null || typeof v === 'object') continue;
    out[name] = v;
  }
  // A parameter that takes a GUID but has no namesake in the row (the spec names it
  // otherwise, e.g. orderId for the row's TaskOrderGuid): when it is the only such
  // parameter, it takes the row's own GUID (the record's identifier).
  const open = guidParams.filter((n) => !(n in out));
  if (open.length === 1 && guidParams.length === 1 && isObject(row)) {
    const id = findGuid(row);
    if (id) out[open[0]!] = id.value;
  }
  return out;
}

/** The rows of a list response (the first array of objects in it). */
export function rowsOf(data: unknown): JsonObject[] {
  return findRows(data)?.rows ?? [];
}

const isDateLike = (v: unknown) => isDate(v) || isDateTime(v);
const guidList = (v: unknown): v is string[] => Array.isArray(v) && v.every(isGuid);

function stringAt(row: JsonObject, re: RegExp): string | null {
  const hit = findKey(row, re, (v) => typeof v === 'string' && v !== '');
  return hit ? (hit.value as string) : null;
}

/** An order row reduced to what the list shows; every part is null when the row does not carry it. */
export interface OrderSummary {
  id: string | null;
  idKey: string | null;
  status: string | null;
  from: string | null;
  /** The end date; null when the row has an end field that is empty (recurring). */
  to: string | null;
  /** true: To is present and empty; false: To is a date; null: the row does not say. */
  recurring: boolean | null;
  model: string | null;
  constellations: string[] | null;
  imageFrequency: number | null;
  referenceDate: string | null;
  areaKm2: number | null;
  geometry: unknown;
  tiles: string[];
  miniTiles: string[];
  /** The order cannot change any more (cancelled or expired). */
  ended: boolean;
  /** A recurring order whose renewal is already stopped. */
  renewalStopped: boolean;
  createdAt: string | null;
}

/** Reads an order record generically (see {@link OrderSummary}). */
export function summarizeOrder(row: JsonObject): OrderSummary {
  const guid = findGuid(row);
  const status = stringAt(row, /status|state/i);
  const fromKey = keyByName(row, 'From') ?? findKey(row, /^(start|from)(date)?$/i)?.key ?? null;
  const toKey = keyByName(row, 'To') ?? findKey(row, /^(end|to|until)(date)?$/i)?.key ?? null;
  const from = fromKey && isDateLike(row[fromKey]) ? String(row[fromKey]).slice(0, 10) : null;
  const toRaw = toKey ? row[toKey] : undefined;
  const to = isDateLike(toRaw) ? String(toRaw).slice(0, 10) : null;
  const recurring = toKey === null ? null : toRaw === null || toRaw === '' ? true : to !== null ? false : null;
  const model = typeof valueByName(row, 'Model') === 'string' ? (valueByName(row, 'Model') as string) : stringAt(row, /model/i);
  const cons = valueByName(row, 'SatelliteConstellations') ?? findKey(row, /constellation/i, (v) => Array.isArray(v))?.value;
  const freq = valueByName(row, 'ImageFrequency') ?? findKey(row, /frequency/i, (v) => typeof v === 'number')?.value;
  const ref = valueByName(row, 'ReferenceDate');
  const area = findKey(row, KM2_KEY, (v) => typeof v === 'number') ?? findKey(row, /area/i, (v) => typeof v === 'number');
  const tileEntries = Object.entries(row).filter(([k, v]) => /tile/i.test(k) && !/dedup/i.test(k) && guidList(v)) as [string, string[]][];
  const tiles = tileEntries.filter(([k]) => !/mini/i.test(k)).flatMap(([, v]) => v);
  const miniTiles = tileEntries.filter(([k]) => /mini/i.test(k)).flatMap(([, v]) => v);
  const expired = findKey(row, /expired/i, (v) => v === true);
  const stopped = findKey(row, /renewal.*stop|stopped/i, (v) => v === true);
  const created = findKey(row, /created/i, isDateLike);
  return {
    id: guid?.value ?? null,
    idKey: guid?.key ?? null,
    status,
    from,
    to,
    recurring,
    model,
    constellations: Array.isArray(cons) && cons.every((c) => typeof c === 'string') ? (cons as string[]) : null,
    imageFrequency: typeof freq === 'number' ? freq : null,
    referenceDate: isDateLike(ref) ? String(ref).slice(0, 10) : null,
    areaKm2: area ? (area.value as number) : null,
    geometry: findGeometry(row)?.geometry ?? null,
    tiles,
    miniTiles,
    ended: (status !== null && /cancel|expired|rejected|failed/i.test(status)) || !!expired,
    renewalStopped: !!stopped,
    createdAt: created ? String(created.value) : null,
  };
}

/** One tile or mini-tile from tile search. */
export interface TileCell {
  guid: string;
  mini: boolean;
  epsg: number | null;
  footprint: unknown;
  areaKm2: number | null;
  raw: JsonObject;
}

/** The tiles of a tile search response; `requestedMini` decides the kind when a row does not say. */
export function extractTiles(data: unknown, requestedMini: boolean): TileCell[] {
  const out: TileCell[] = [];
  const seen = new Set<string>();
  for (const row of rowsOf(data)) {
    const guid = findGuid(row);
    if (!guid || seen.has(guid.value)) continue;
    seen.add(guid.value);
    const mini = findKey(row, /mini/i, (v) => typeof v === 'boolean');
    const epsg = findKey(row, /epsg|srid|crs/i, (v) => typeof v === 'number' || (typeof v === 'string' && /^\d+$/.test(v)));
    const area = findKey(row, /area|km2/i, (v) => typeof v === 'number');
    out.push({
      guid: guid.value,
      mini: mini ? (mini.value as boolean) : requestedMini,
      epsg: epsg ? Number(epsg.value) : null,
      footprint: findGeometry(row)?.geometry ?? null,
      areaKm2: area ? (area.value as number) : null,
      raw: row,
    });
  }
  return out;
}

/**
 * Whether a listed order is the one a request would create: Model and From
 * must be listed and equal; To (or recurring-ness), cadence and tile GUIDs
 * must agree wherever the record carries them. Used after a create whose
 * outcome is unknown, to find out whether it went through.
 */
export function orderMatchesRequest(s: OrderSummary, request: Record<string, unknown>): boolean {
  if (s.model === null || s.from === null) return false;
  if (s.model !== request.Model || s.from !== request.From) return false;
  const recurring = request.To === null || request.To === undefined;
  if (s.recurring !== null && s.recurring !== recurring) return false;
  if (!recurring && s.to !== null && s.to !== request.To) return false;
  if (s.imageFrequency !== null && s.imageFrequency !== request.ImageFrequency) return false;
  if (s.referenceDate !== null && s.referenceDate !== request.ReferenceDate) return false;
  const asked = (['TileGuids', 'MiniTileGuids', 'TileGuid', 'MiniTileGuid'] as const).flatMap((k) => {
    const v = request[k];
    return Array.isArray(v) ? (v as string[]) : typeof v === 'string' ? [v] : [];
  });
  const held = [...s.tiles, ...s.miniTiles];
  // With TileDeduplication a service may list only the tiles it did not skip: held must be within asked.
  if (asked.length && held.length && !held.every((g) => asked.includes(g))) return false;
  return true;
}
