/**
 * What a paid request is, in canonical terms: the date the service reads, the model, the area
 * (canonical WKT), the bands, resolution, EPSG and data type with the service's defaults filled in
 * ({@link ownershipQueryFor}), the key two identical purchases share ({@link purchaseKey}), and the
 * key of an identical request down to its constellations and pixel selection
 * ({@link identicalRequestKey}), which the library indexes so a request already in it is never
 * bought again, and {@link IdenticalRasters}, which collapses such rasters in a series or an export.
 * The team library's ownership rules (main/team/match.ts) build on the same functions. No I/O.
 */
import { createHash } from 'node:crypto';
import path from 'node:path';
import type { Position } from 'geojson';
import { parseBandnames } from '../../common/bandnames.js';
import { utmEpsgFor } from '../../common/geodesy.js';
import { isAbsent, readGeoJson, readWkt, toWkt, type Polygonal } from '../../common/aoi-text.js';
import * as turf from '../shared/turf.js';
import type { DownloadKind } from './download-sink.js';

/** "Does the team (or the library) already own this?": the purchase about to be made, in canonical terms. */
export interface OwnershipQuery {
  kind: DownloadKind;
  date: string;
  model: string | null;
  /** Composites: the request's area as WKT in EPSG:4326 (the footprint must cover it). */
  aoiWkt: string | null;
  /** Tiles and mini-tiles: matched by GUID and date. */
  tileGuid: string | null;
  /** The bands asked for (the team's copy must have them, or more). */
  bands: string[];
  /** Metres per pixel asked for (the team's copy must be at least as fine); null: any. */
  resolution: number | null;
  /** The projection asked for; a copy in another one is offered with the difference named. */
  epsg: number | null;
  /**
   * The GDAL data type asked for ("Int16" for the service's INT16, "Byte" for UINT8); a copy of
   * another type is offered with the difference named. Absent or null: any (added after the first
   * version of these types, hence optional).
   */
  dataType?: string | null;
}

/** Decimal places AOI coordinates are rounded to (1e-6° is about 0.1 m): a redrawn-identical AOI gets the same key. */
export const AOI_DECIMALS = 6;
/** Most vertices an AOI may have to be matched (beyond: the purchase is made without a team check, and says so). */
export const MAX_QUERY_VERTICES = 100_000;
/** Longest WKT per vertex allowed before parsing ("-179.1234567890123 -89.1234567890123, " and some room). */
const MAX_CHARS_PER_VERTEX = 64;
/** The service's default output projection: the UTM zone of the AOI's centre. */
const AUTO_UTM = 47000;
/** The service's defaults for a composite's fields the request leaves out. */
export const COMPOSITE_DEFAULTS = { Bandnames: 'rgb', Resolution: 10, EpsgProjection: AUTO_UTM, DataType: 'INT16' } as const;
/** Bands of a tile or mini-tile: the service delivers them at 10 m on the tile's own grid. */
const TILE_BANDS = ['B2', 'B3', 'B4', 'B8'];
export const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const DATETIME = /^(\d{4}-\d{2}-\d{2})([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

/** The service's DataType values as GDAL names them (what the team catalog records). */
export const GDAL_DATA_TYPE: Record<string, string> = { INT16: 'Int16', UINT8: 'Byte' };

/** What {@link ownershipQueryFor} already knows of a query's AOI, so the key and the differences do not parse its WKT again. */
const known = new WeakMap<OwnershipQuery, { wkt: string; hash: string; bounds: [number, number, number, number] }>();

const sha256Hex = (text: string) => createHash('sha256').update(text).digest('hex');

/** The answer of {@link ownershipQueryFor}: the query, or why the request cannot be matched. */
export type OwnershipQueryResult = { query: OwnershipQuery; reason?: undefined } | { query: null; reason: string };

/** A request field by name, in any case (the service binds property names case-insensitively). */
export function field(request: Record<string, unknown>, name: string): unknown {
  if (Object.hasOwn(request, name)) return request[name];
  const lower = name.toLowerCase();
  for (const [k, v] of Object.entries(request)) if (k.toLowerCase() === lower) return v;
  return undefined;
}

/** A request field, or the service's default when it is not given (null and absent alike). */
export function fieldOr<T>(request: Record<string, unknown>, name: string, fallback: T): unknown {
  const v = field(request, name);
  return v === undefined || v === null ? fallback : v;
}

/** The UTC day (YYYY-MM-DD) of a Date field as the service reads it (a date-time without offset is UTC), or null. */
export function utcDayOf(v: unknown): string | null {
  if (typeof v !== 'string') return null;
  const m = DATETIME.exec(v.trim());
  if (!m) return null;
  const day = m[1]!;
  const d = new Date(`${day}T00:00:00Z`);
  if (Number.isNaN(d.getTime()) || d.toISOString().slice(0, 10) !== day) return null;
  if (!m[2]) return day;
  const t = Date.parse(`${day}T${m[2].slice(1)}${m[5] ? '' : 'Z'}`);
  return Number.isNaN(t) ? null : new Date(t).toISOString().slice(0, 10);
}

function round(n: number, decimals: number): number {
  const f = 10 ** decimals;
  const r = Math.round(n * f) / f;
  return Object.is(r, -0) ? 0 : r;
}

/** A number as the key writes it: 12 significant digits, so 10 and 10.0000000000001 are one resolution. */
export function normNumber(n: number | null): number | null {
  return n === null ? null : Number(n.toPrecision(12));
}

function signedArea(ring: Position[]): number {
  let s = 0;
  for (let i = 0; i + 1 < ring.length; i++) s += ring[i]![0]! * ring[i + 1]![1]! - ring[i + 1]![0]! * ring[i]![1]!;
  return s / 2;
}

/** A ring rounded, without repeated points, turned counter-clockwise (outer) or clockwise (hole), starting at its smallest point, closed; null when degenerate. */
function canonicalRing(ring: Position[], outer: boolean): Position[] | null {
  const pts: Position[] = [];
  for (const p of ring) {
    const q: Position = [round(p[0]!, AOI_DECIMALS), round(p[1]!, AOI_DECIMALS)];
    const last = pts[pts.length - 1];
    if (!last || last[0] !== q[0] || last[1] !== q[1]) pts.push(q);
  }
  while (pts.length > 1 && pts[0]![0] === pts[pts.length - 1]![0] && pts[0]![1] === pts[pts.length - 1]![1]) pts.pop();
  if (pts.length < 3) return null;
  const closed = [...pts, pts[0]!];
  const area = signedArea(closed);
  if (area === 0) return null;
  if ((area > 0) !== outer) pts.reverse();
  let start = 0;
  for (let i = 1; i < pts.length; i++) {
    const a = pts[i]!;
    const b = pts[start]!;
    if (a[0]! < b[0]! || (a[0] === b[0] && a[1]! < b[1]!)) start = i;
  }
  const rotated = [...pts.slice(start), ...pts.slice(0, start)];
  return [...rotated, rotated[0]!];
}

const ringKey = (r: Position[]) => r.map((p) => `${p[0]} ${p[1]}`).join(',');

/**
 * The AOI in one canonical form: coordinates rounded to {@link AOI_DECIMALS}, repeated points
 * dropped, outer rings counter-clockwise and holes clockwise (RFC 7946), each ring starting at
 * its smallest point, holes and polygons in a fixed order, a one-polygon MultiPolygon as a
 * Polygon. The same area drawn from another vertex or the other way round comes out the same.
 * A reason when nothing of it is left (every ring degenerate).
 */
export function canonicalAoi(g: Polygonal): Polygonal | string {
  const polys = g.type === 'Polygon' ? [g.coordinates] : g.coordinates;
  const out: Position[][][] = [];
  for (const poly of polys) {
    const outer = poly[0] ? canonicalRing(poly[0], true) : null;
    if (!outer) continue;
    const holes = poly.slice(1).map((r) => canonicalRing(r, false)).filter((r): r is Position[] => r !== null);
    holes.sort((a, b) => (ringKey(a) < ringKey(b) ? -1 : 1));
    out.push([outer, ...holes]);
  }
  if (out.length === 0) return 'The area has no polygon with an extent (every ring is degenerate once rounded to 0.1 m).';
  out.sort((a, b) => (ringKey(a[0]!) < ringKey(b[0]!) ? -1 : 1));
  return out.length === 1 ? { type: 'Polygon', coordinates: out[0]! } : { type: 'MultiPolygon', coordinates: out };
}

export function vertexCount(g: Polygonal): number {
  const polys = g.type === 'Polygon' ? [g.coordinates] : g.coordinates;
  let n = 0;
  for (const poly of polys) for (const ring of poly) n += ring.length;
  return n;
}

export function lonLatBounds(g: Polygonal | { type: 'Polygon' | 'MultiPolygon'; coordinates: unknown }): [number, number, number, number] {
  const [w, s, e, n] = turf.bbox(g as Polygonal);
  return [w, s, e, n];
}

/** The request's AOI (Wkt or GeoJson), parsed; null when it has none; a reason when it is unreadable. */
export function requestAoi(request: Record<string, unknown>): Polygonal | null | string {
  const wkt = field(request, 'Wkt');
  const geoJson = field(request, 'GeoJson');
  if (!isAbsent(wkt) && !isAbsent(geoJson)) return 'The request gives both Wkt and GeoJson.';
  if (!isAbsent(wkt)) return readWkt(wkt);
  if (!isAbsent(geoJson)) return readGeoJson(geoJson);
  return null;
}

function modelOf(request: Record<string, unknown>): string | null | { reason: string } {
  const v = field(request, 'Model');
  if (v === undefined || v === null) return null;
  if (typeof v !== 'string' || v.trim() === '' || v.length > 100) return { reason: 'The request\'s Model is not a model name.' };
  return v.trim();
}

/**
 * "Does the team already own this?" for a process request as the download queue holds it: the
 * date (the UTC day the service reads), the model, and for a composite its area (canonical WKT,
 * see {@link canonicalAoi}), its bands as the library records them (`rgb` is B4,B3,B2, `ndvi` is
 * [B8_B4]), resolution, EPSG (47000 resolved to the UTM zone the service picks) and data type,
 * the service's defaults filled in; for a tile or mini-tile its GUID. Null with a reason when the
 * request cannot be matched (no date, an unreadable area, an unknown band, ...): the purchase then
 * goes ahead with the warning that the team check could not be made.
 */
export function ownershipQueryFor(kind: DownloadKind, request: Record<string, unknown>): OwnershipQueryResult {
  const fail = (reason: string): OwnershipQueryResult => ({ query: null, reason });
  if (!request || typeof request !== 'object' || Array.isArray(request)) return fail('The request is not an object.');
  const date = utcDayOf(field(request, 'Date'));
  if (!date) return fail('The request has no valid Date (YYYY-MM-DD or a date-time).');
  const model = modelOf(request);
  if (model !== null && typeof model === 'object') return fail(model.reason);

  if (kind === 'tile' || kind === 'minitile') {
    const name = kind === 'tile' ? 'TileGuid' : 'MiniTileGuid';
    const guid = field(request, name);
    if (typeof guid !== 'string' || !GUID.test(guid)) return fail(`The request has no valid ${name}.`);
    return {
      query: { kind, date, model, aoiWkt: null, tileGuid: guid.toLowerCase(), bands: [...TILE_BANDS], resolution: null, epsg: null, dataType: GDAL_DATA_TYPE.INT16! },
    };
  }
  if (kind !== 'composite') return fail(`Unknown kind "${String(kind)}".`);

  const wktText = field(request, 'Wkt');
  // Not even parsed: a text this long holds more vertices than are compared.
  if (typeof wktText === 'string' && wktText.length > MAX_QUERY_VERTICES * MAX_CHARS_PER_VERTEX) return fail(`The area has more than ${MAX_QUERY_VERTICES.toLocaleString('en')} vertices, too many to compare.`);
  const aoi = requestAoi(request);
  if (aoi === null) return fail('The request has no area (Wkt or GeoJson).');
  if (typeof aoi === 'string') return fail(aoi);
  if (vertexCount(aoi) > MAX_QUERY_VERTICES) return fail(`The area has more than ${MAX_QUERY_VERTICES.toLocaleString('en')} vertices, too many to compare.`);
  const canonical = canonicalAoi(aoi);
  if (typeof canonical === 'string') return fail(canonical);

  const parsed = parseBandnames(fieldOr(request, 'Bandnames', COMPOSITE_DEFAULTS.Bandnames));
  if (!parsed.ok) return fail(`Bandnames: ${parsed.reason}`);
  const resolution = fieldOr(request, 'Resolution', COMPOSITE_DEFAULTS.Resolution);
  if (typeof resolution !== 'number' || !Number.isFinite(resolution) || resolution <= 0) return fail('The request\'s Resolution is not a positive number of metres.');
  const requested = fieldOr(request, 'EpsgProjection', COMPOSITE_DEFAULTS.EpsgProjection);
  if (typeof requested !== 'number' || !Number.isInteger(requested) || requested <= 0) return fail('The request\'s EpsgProjection is not an EPSG code.');
  let epsg = requested;
  if (epsg === AUTO_UTM) {
    const [w, s, e, n] = lonLatBounds(canonical);
    epsg = utmEpsgFor((w + e) / 2, (s + n) / 2);
  }
  const dataTypeName = fieldOr(request, 'DataType', COMPOSITE_DEFAULTS.DataType);
  const dataType = typeof dataTypeName === 'string' ? GDAL_DATA_TYPE[dataTypeName.toUpperCase()] : undefined;
  if (!dataType) return fail(`The request's DataType ${JSON.stringify(dataTypeName)} is not INT16 or UINT8.`);
  const aoiWkt = toWkt(canonical);
  const query: OwnershipQuery = { kind, date, model, aoiWkt, tileGuid: null, bands: parsed.bands, resolution: normNumber(resolution), epsg, dataType };
  known.set(query, { wkt: aoiWkt, hash: sha256Hex(aoiWkt), bounds: lonLatBounds(canonical) });
  return { query };
}

/**
 * The canonical key of a purchase: `v1-` and the sha256 of its kind, date, model, tile GUID (lower
 * case), the area (canonical WKT, hashed), the bands (sorted, once each), resolution (12
 * significant digits), EPSG and data type. Two analysts asking for the same thing get the same key
 * (whatever the field order, band order, vertex order or 0.1 m noise of their requests); different
 * purchases never do. Stable across versions: a change of its inputs is a new prefix.
 */
export function purchaseKey(q: OwnershipQuery): string {
  let aoi: string | null = null;
  const seen = known.get(q);
  if (q.aoiWkt !== null && seen?.wkt === q.aoiWkt) aoi = seen.hash;
  else if (q.aoiWkt !== null) {
    const g = readWkt(q.aoiWkt);
    const canonical = typeof g === 'string' ? null : canonicalAoi(g);
    aoi = sha256Hex(canonical && typeof canonical !== 'string' ? toWkt(canonical) : q.aoiWkt.trim());
  }
  const parts = [
    q.kind,
    q.date,
    // The service reads model names in any case (Stratus2 and stratus2 are one model).
    q.model?.toLowerCase() ?? null,
    q.tileGuid?.toLowerCase() ?? null,
    aoi,
    [...new Set(q.bands)].sort(),
    normNumber(q.resolution),
    q.epsg,
    q.dataType ?? null,
  ];
  return `v1-${sha256Hex(JSON.stringify(parts))}`;
}


/** The canonical area {@link ownershipQueryFor} read for `q` (its WKT, hash and lon/lat bounds), when `q` came from it. */
export function knownAoi(q: OwnershipQuery): { wkt: string; hash: string; bounds: [number, number, number, number] } | undefined {
  const seen = known.get(q);
  return seen && seen.wkt === q.aoiWkt ? seen : undefined;
}

/** A text field of the request, trimmed and lower case; null when absent or not text. */
function lowerText(request: Record<string, unknown>, name: string): string | null {
  const v = field(request, name);
  return typeof v === 'string' && v.trim() !== '' ? v.trim().toLowerCase() : null;
}

/**
 * The key of a request whose file is interchangeable with another's: its {@link purchaseKey} (date,
 * model, area, bands, resolution, EPSG, data type), its constellations (sorted, once each, any
 * case), its PixelSelectionMode and UtmDataSelectionMode (absent is its own value: the contract
 * names no default), and whether it allows a partial image or the old pixel selection (absent is
 * not asked). Null when the request cannot be matched (see {@link ownershipQueryFor}). The library
 * indexes it (main/library/catalog.ts), so a request already in it is found without a scan.
 */
export function identicalRequestKey(kind: DownloadKind, request: Record<string, unknown> | null): string | null {
  if (!request) return null;
  const { query } = ownershipQueryFor(kind, request);
  if (!query) return null;
  const listed = field(request, 'SatelliteConstellations');
  const constellations = Array.isArray(listed)
    ? [...new Set(listed.map((c) => (typeof c === 'string' ? c.trim().toLowerCase() : JSON.stringify(c))))].sort()
    : null;
  const parts = kind === 'composite'
    ? [
      purchaseKey(query), constellations, lowerText(request, 'PixelSelectionMode'), lowerText(request, 'UtmDataSelectionMode'),
      field(request, 'AllowPartialImage') === true, field(request, 'OldPixelSelectionMode') === true,
    ]
    : [purchaseKey(query), constellations];
  return `r1-${sha256Hex(JSON.stringify(parts))}`;
}

/**
 * Collapses identical library rasters as they come (a series, an export): two rasters are one when
 * their requests have the same {@link identicalRequestKey} or their files the same sha256. Holds
 * one short entry per distinct raster seen.
 */
export class IdenticalRasters {
  private readonly firsts = new Map<string, string>();

  /** The file name of the first raster seen that is identical to `e`; null when `e` is the first (then it is remembered). */
  firstOf(e: { path: string; kind: DownloadKind | null; request: Record<string, unknown> | null; sha256: string | null }): string | null {
    const keys = [e.kind ? identicalRequestKey(e.kind, e.request) : null, e.sha256 ? `sha256:${e.sha256}` : null].filter((k): k is string => k !== null);
    for (const k of keys) {
      const first = this.firsts.get(k);
      if (first !== undefined) return first;
    }
    const name = path.basename(e.path);
    for (const k of keys) this.firsts.set(k, name);
    return null;
  }
}
