/**
 * Recognition of values in service responses whose fields the contract leaves
 * "not shown": geometry (WKT, GeoJSON), dates, GUIDs, money and units are found
 * by value and by property name, never by a hard-coded field list.
 */

import { isPolygonal, parseAoiText, vertexCount, type AnyGeometry } from './geometry';

/** A GUID in its canonical 8-4-4-4-12 form. */
export const GUID_RE = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
const DATE_RE = /^\d{4}-\d{2}-\d{2}$/;
const DATETIME_RE = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?$/i;
const WKT_RE = /^\s*(SRID=\d+;\s*)?(POINT|LINESTRING|POLYGON|MULTIPOINT|MULTILINESTRING|MULTIPOLYGON|GEOMETRYCOLLECTION)\s*(Z|M|ZM)?\s*(\(|EMPTY)/i;
const WKT_NAMES: Record<string, string> = {
  POINT: 'Point', LINESTRING: 'LineString', POLYGON: 'Polygon', MULTIPOINT: 'MultiPoint',
  MULTILINESTRING: 'MultiLineString', MULTIPOLYGON: 'MultiPolygon', GEOMETRYCOLLECTION: 'GeometryCollection',
};
const GEOJSON_TYPES = new Set(['Point', 'LineString', 'Polygon', 'MultiPoint', 'MultiLineString', 'MultiPolygon']);

/** A plain JSON object. */
export type JsonObject = Record<string, unknown>;

/** True for a plain (non-array) object. */
export function isObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** True for a GUID string. */
export function isGuid(v: unknown): v is string {
  return typeof v === 'string' && GUID_RE.test(v);
}

/** True for a YYYY-MM-DD date string. */
export function isDate(v: unknown): v is string {
  return typeof v === 'string' && DATE_RE.test(v) && !Number.isNaN(Date.parse(`${v}T00:00:00Z`));
}

/** True for an ISO date-time string. */
export function isDateTime(v: unknown): v is string {
  return typeof v === 'string' && DATETIME_RE.test(v) && !Number.isNaN(Date.parse(v));
}

/** True for a WKT geometry string. */
export function isWkt(v: unknown): v is string {
  return typeof v === 'string' && WKT_RE.test(v);
}

/** True for a GeoJSON geometry object. */
export function isGeoJsonGeometry(v: unknown): v is { type: string; coordinates: unknown } {
  return isObject(v) && typeof v.type === 'string' && GEOJSON_TYPES.has(v.type) && Array.isArray(v.coordinates);
}

/** True for a geometry in either encoding. */
export function isGeometry(v: unknown): boolean {
  return isWkt(v) || isGeoJsonGeometry(v);
}

/**
 * Geometry type and vertex count of a WKT or GeoJSON value, for a short label such as "Polygon · 3
 * vertices". Vertices are counted as the map and the AOI count them (geometry.ts `vertexCount`): a
 * ring's closing position repeats its first and is not another vertex, so a triangle has 3.
 */
export function describeGeometry(v: unknown): string {
  let type: string;
  let positions: number;
  if (isWkt(v)) {
    const word = /(MULTIPOLYGON|MULTILINESTRING|MULTIPOINT|GEOMETRYCOLLECTION|POLYGON|LINESTRING|POINT)/i.exec(v)![1]!.toUpperCase();
    type = WKT_NAMES[word] ?? word;
    positions = v.match(/-?\d+(\.\d+)?(e[-+]?\d+)?\s+-?\d+(\.\d+)?/gi)?.length ?? 0;
    if (type === 'Polygon' || type === 'MultiPolygon') {
      const parsed = parseAoiText(v);
      if (parsed.ok && isPolygonal(parsed.geometry)) positions = vertexCount(parsed.geometry);
    }
  } else if (isGeoJsonGeometry(v)) {
    type = v.type;
    positions = JSON.stringify(v.coordinates).match(/\[\s*-?[\d.eE+-]+\s*,/g)?.length ?? 0;
    if (isPolygonal(v as unknown as AnyGeometry)) positions = vertexCount(v as unknown as AnyGeometry);
  } else return '';
  return `${type} · ${positions} ${positions === 1 ? 'vertex' : 'vertices'}`;
}

const MONEY_KEY = /euro|amount|cost|price|balance|credit|fee|charge|total/i;
const NOT_MONEY_KEY = /count|band|km2|sqkm|area|percent|bytes|size|days|months|requests|connections|resolution|pixels?/i;

/** Names that say square kilometres: AreaKm2, areaSqKm, area_sq_km, squareKilometres. */
export const KM2_KEY = /km2|sq_?km|square_?kilomet/i;

/** True when a numeric property of this name holds money. */
export function isMoneyKey(key: string): boolean {
  return MONEY_KEY.test(key) && !NOT_MONEY_KEY.test(key);
}

/** The unit a numeric property's name implies, or null. */
export function unitForKey(key: string): string | null {
  if (/per_?(km2|sq_?km)$/i.test(key) || /ratePerKm2/i.test(key)) return 'EUR/km²';
  if (KM2_KEY.test(key)) return 'km²';
  if (/percent$/i.test(key)) return '%';
  if (/bytes$/i.test(key)) return 'B';
  if (/(^|[a-z])resolution$/i.test(key) || /meters?$|metres?$/i.test(key)) return 'm';
  if (/pixels?$|^width$|^height$/i.test(key)) return 'px';
  if (/months$/i.test(key)) return 'months';
  if (/days$/i.test(key)) return 'days';
  return null;
}

/** The currency code an object carries (CurrencyCode, Currency), if any. */
export function currencyOf(obj: unknown): string | null {
  if (!isObject(obj)) return null;
  for (const [k, v] of Object.entries(obj)) {
    if (/^currency(code)?$/i.test(k) && typeof v === 'string' && /^[A-Z]{3}$/.test(v)) return v;
  }
  return null;
}

/** The first property of an object holding a geometry, if any. */
export function findGeometry(obj: unknown): { key: string; geometry: unknown } | null {
  if (!isObject(obj)) return null;
  for (const [key, value] of Object.entries(obj)) {
    if (isGeometry(value)) return { key, geometry: value };
  }
  return null;
}

/** The first property whose name matches `re` and whose value passes `test`. */
export function findKey(obj: unknown, re: RegExp, test: (v: unknown) => boolean = () => true): { key: string; value: unknown } | null {
  if (!isObject(obj)) return null;
  for (const [key, value] of Object.entries(obj)) {
    if (re.test(key) && test(value)) return { key, value };
  }
  return null;
}

/** The first GUID-valued property, preferring names that say "guid" or "id". */
export function findGuid(obj: unknown): { key: string; value: string } | null {
  if (!isObject(obj)) return null;
  const entries = Object.entries(obj).filter(([, v]) => isGuid(v)) as [string, string][];
  const named = entries.find(([k]) => /guid|id$/i.test(k)) ?? entries[0];
  return named ? { key: named[0], value: named[1] } : null;
}

/** The first date-valued property (date or date-time), preferring names that say "date". */
export function findDate(obj: unknown): { key: string; value: string } | null {
  if (!isObject(obj)) return null;
  const entries = Object.entries(obj).filter(([, v]) => isDate(v) || isDateTime(v)) as [string, string][];
  const named = entries.find(([k]) => /date/i.test(k)) ?? entries[0];
  return named ? { key: named[0], value: named[1] } : null;
}

/** The first array of objects in a response (breadth first), e.g. the rows of a list. */
export function findRows(data: unknown): { key: string; rows: JsonObject[] } | null {
  if (Array.isArray(data) && data.every(isObject)) return { key: '', rows: data as JsonObject[] };
  let level: [string, unknown][] = isObject(data) ? Object.entries(data) : [];
  for (let depth = 0; depth < 4 && level.length; depth++) {
    for (const [key, value] of level) {
      if (Array.isArray(value) && value.length > 0 && value.every(isObject)) return { key, rows: value as JsonObject[] };
    }
    for (const [key, value] of level) {
      if (Array.isArray(value) && value.length === 0) return { key, rows: [] };
    }
    level = level.flatMap(([k, v]) => (isObject(v) ? Object.entries(v).map(([k2, v2]) => [`${k}.${k2}`, v2] as [string, unknown]) : []));
  }
  return null;
}

/** The scalar (non-object, non-array) properties of an object. */
export function scalarFields(obj: unknown): [string, unknown][] {
  if (!isObject(obj)) return [];
  return Object.entries(obj).filter(([, v]) => v === null || typeof v !== 'object');
}

/** One geography with its dates, found anywhere in a search response. */
export interface DatedGeography {
  id: string;
  geometry: unknown;
  dates: string[];
  model: string | null;
  constellations: string[];
  /** Where in the response it was found, e.g. "ModelImageDates[0].DatesByGeog[1]". */
  path: string;
}

/**
 * Walks a search response and returns every object that carries a geometry and a
 * list of dates, with the model and constellations of its nearest ancestor that
 * names them. Field names are not assumed; values and name hints are.
 */
export function extractDatedGeographies(data: unknown): DatedGeography[] {
  const out: DatedGeography[] = [];
  const walk = (node: unknown, path: string, model: string | null, constellations: string[]): void => {
    if (Array.isArray(node)) {
      node.forEach((item, i) => walk(item, `${path}[${i}]`, model, constellations));
      return;
    }
    if (!isObject(node)) return;
    const m = findKey(node, /model/i, (v) => typeof v === 'string');
    const c = findKey(node, /constellation/i, (v) => Array.isArray(v) && v.every((x) => typeof x === 'string'));
    const here = { model: (m?.value as string | undefined) ?? model, constellations: (c?.value as string[] | undefined) ?? constellations };
    const geom = findGeometry(node);
    const dates = Object.values(node).find((v) => Array.isArray(v) && v.length > 0 && v.every((x) => isDate(x) || isDateTime(x))) as string[] | undefined;
    if (geom && dates) {
      out.push({ id: `g${out.length}`, geometry: geom.geometry, dates: dates.map((d) => d.slice(0, 10)), ...here, path: path || '(root)' });
    }
    for (const [k, v] of Object.entries(node)) {
      if (typeof v === 'object' && v !== null) walk(v, path ? `${path}.${k}` : k, here.model, here.constellations);
    }
  };
  walk(data, '', null, []);
  return out;
}
