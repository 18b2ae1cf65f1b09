/**
 * The team library's ownership rules, pure: what a purchase about to be made is in the catalog's
 * terms ({@link ownershipQueryFor}), the one key two analysts' identical purchases share
 * ({@link purchaseKey}), how a team copy differs from a request in words an analyst reads
 * ({@link differencesInWords}), and what a library raster registers as ({@link teamRasterInputFor}).
 * No I/O: main's spend path, the watches and the catalog call these with what they hold.
 */
import { createHash } from 'node:crypto';
import path from 'node:path';
import type { Position } from 'geojson';
import { parseBandnames } from '../../common/bandnames.js';
import { AppError } from '../../common/errors.js';
import { utmEpsgFor } from '../../common/geodesy.js';
import { isAbsent, readGeoJson, readWkt, toWkt, type Polygonal } from '../../common/aoi-text.js';
import type { LibraryEntry } from '../library/catalog.js';
import { withoutSecrets } from '../library/download-sink.js';
import { stacItem } from '../exports/stac.js';
import * as turf from '../shared/turf.js';
import type { OwnershipQuery, TeamFootprint, TeamRaster, TeamRasterInput, TeamRasterKind } from './types.js';

/** Decimal places AOI coordinates are rounded to (1e-6° is about 0.1 m): a redrawn-identical AOI gets the same key. */
export const AOI_DECIMALS = 6;
/** Most vertices an AOI may have to be matched (beyond: the purchase is made without a team check, and says so). */
export const MAX_QUERY_VERTICES = 100_000;
/** Longest WKT per vertex allowed before parsing ("-179.1234567890123 -89.1234567890123, " and some room). */
const MAX_CHARS_PER_VERTEX = 64;
/** Most vertices a registered footprint keeps; a more detailed AOI registers as its raster's lon/lat bounds. */
export const MAX_FOOTPRINT_VERTICES = 10_000;
/** Largest request JSON a registration carries (a bigger one loses its AOI text, which the footprint holds). */
export const MAX_REQUEST_JSON_BYTES = 64 * 1024;
/** Largest STAC item a registration carries (a bigger one keeps its bounds as geometry, else none). */
export const MAX_STAC_JSON_BYTES = 64 * 1024;
/** Longest display name of an acquirer. */
export const MAX_ACQUIRED_BY_CHARS = 200;
/** Longest storage path inside the shared store. */
export const MAX_STORAGE_PATH_CHARS = 1024;

/** The service's default output projection: the UTM zone of the AOI's centre. */
const AUTO_UTM = 47000;
/** The service's defaults for a composite's fields the request leaves out. */
const COMPOSITE_DEFAULTS = { Bandnames: 'rgb', Resolution: 10, EpsgProjection: AUTO_UTM, DataType: 'INT16' } as const;
/** Bands of a tile or mini-tile: the service delivers them at 10 m on the tile's own grid. */
const TILE_BANDS = ['B2', 'B3', 'B4', 'B8'];
/** Resolution the metadata rounds to (mm): two resolutions closer than this are the same. */
const RESOLUTION_TOLERANCE_M = 1e-3;
const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const DATETIME = /^(\d{4}-\d{2}-\d{2})([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

/** The service's DataType values as GDAL names them (what the team catalog records). */
const GDAL_DATA_TYPE: Record<string, string> = { INT16: 'Int16', UINT8: 'Byte' };

/** What {@link ownershipQueryFor} already knows of a query's AOI, so the key and the differences do not parse its WKT again. */
const known = new WeakMap<OwnershipQuery, { wkt: string; hash: string; bounds: [number, number, number, number] }>();

const sha256Hex = (text: string) => createHash('sha256').update(text).digest('hex');

/** The answer of {@link ownershipQueryFor}: the query, or why the request cannot be matched. */
export type OwnershipQueryResult = { query: OwnershipQuery; reason?: undefined } | { query: null; reason: string };

/** A request field by name, in any case (the service binds property names case-insensitively). */
function field(request: Record<string, unknown>, name: string): unknown {
  if (Object.hasOwn(request, name)) return request[name];
  const lower = name.toLowerCase();
  for (const [k, v] of Object.entries(request)) if (k.toLowerCase() === lower) return v;
  return undefined;
}

/** A request field, or the service's default when it is not given (null and absent alike). */
function fieldOr<T>(request: Record<string, unknown>, name: string, fallback: T): unknown {
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
function normNumber(n: number | null): number | null {
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

function vertexCount(g: Polygonal): number {
  const polys = g.type === 'Polygon' ? [g.coordinates] : g.coordinates;
  let n = 0;
  for (const poly of polys) for (const ring of poly) n += ring.length;
  return n;
}

function lonLatBounds(g: Polygonal | TeamFootprint): [number, number, number, number] {
  const [w, s, e, n] = turf.bbox(g as Polygonal);
  return [w, s, e, n];
}

/** The request's AOI (Wkt or GeoJson), parsed; null when it has none; a reason when it is unreadable. */
function requestAoi(request: Record<string, unknown>): Polygonal | null | string {
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
export function ownershipQueryFor(kind: TeamRasterKind, request: Record<string, unknown>): OwnershipQueryResult {
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

const list = (xs: readonly string[]) => xs.join(', ');

/**
 * What a team copy lacks or does differently from the query, in words an analyst reads
 * ("EPSG:32632 instead of EPSG:32633"): another date, model or tile, bands it does not have, coarser
 * pixels, another projection or data type, an area it does not cover (judged on lon/lat bounds;
 * the catalog's own test is exact). More bands or finer pixels than asked are not a difference.
 * Empty when the copy is what was asked for.
 */
export function differencesInWords(q: OwnershipQuery, raster: TeamRasterInput | TeamRaster): string[] {
  const out: string[] = [];
  if (raster.date !== q.date) out.push(`taken on ${raster.date ?? 'an unknown date'} instead of ${q.date}`);
  if (q.model !== null && raster.model?.toLowerCase() !== q.model.toLowerCase()) out.push(`model ${raster.model ?? 'unknown'} instead of ${q.model}`);
  if (q.tileGuid !== null && raster.tileGuid?.toLowerCase() !== q.tileGuid.toLowerCase()) {
    out.push(`${raster.tileGuid ? `tile ${raster.tileGuid}` : 'not a tile'} instead of tile ${q.tileGuid}`);
  }
  const missing = q.bands.filter((b, i) => !raster.bands.includes(b) && q.bands.indexOf(b) === i);
  if (missing.length) out.push(`without ${missing.length === 1 ? 'band' : 'bands'} ${list(missing)}`);
  if (q.resolution !== null) {
    if (raster.resolution === null) out.push(`unknown pixel size instead of ${q.resolution} m`);
    else if (raster.resolution > q.resolution + RESOLUTION_TOLERANCE_M) out.push(`${raster.resolution} m pixels instead of ${q.resolution} m`);
  }
  if (q.epsg !== null && raster.epsg !== q.epsg) out.push(`${raster.epsg === null ? 'an unknown projection' : `EPSG:${raster.epsg}`} instead of EPSG:${q.epsg}`);
  if (q.dataType && raster.dataType && raster.dataType !== q.dataType) out.push(`${raster.dataType} values instead of ${q.dataType}`);
  if (q.aoiWkt !== null) {
    const seen = known.get(q);
    let bounds: [number, number, number, number] | null = seen?.wkt === q.aoiWkt ? seen.bounds : null;
    if (!bounds) {
      const aoi = readWkt(q.aoiWkt);
      bounds = typeof aoi === 'string' ? null : lonLatBounds(aoi);
    }
    if (bounds) {
      if (!raster.footprint) out.push('no known footprint, so it may not cover the area');
      else {
        const [w, s, e, n] = bounds;
        const [fw, fs, fe, fn] = lonLatBounds(raster.footprint);
        if (w < fw || s < fs || e > fe || n > fn) out.push('covers only part of the area');
      }
    }
  }
  return out;
}

/**
 * Why `p` cannot be a storage path inside the shared store, or null when it can: relative, forward
 * slashes, no empty, `.` or `..` segment, no drive letter or backslash, no NUL or control character,
 * no trailing dot or space in a segment (Windows would silently strip it), no Windows device name
 * (CON, NUL, COM1, …), at most
 * {@link MAX_STORAGE_PATH_CHARS} characters.
 */
export function storagePathProblem(p: unknown): string | null {
  if (typeof p !== 'string' || p === '') return 'it is empty';
  if (p.length > MAX_STORAGE_PATH_CHARS) return `it is longer than ${MAX_STORAGE_PATH_CHARS} characters`;
  if (/[\u0000-\u001f\u007f]/.test(p)) return 'it contains a NUL or control character'; // eslint-disable-line no-control-regex
  if (p.includes('\\')) return 'it contains a backslash (storage paths use forward slashes)';
  if (p.startsWith('/')) return 'it is absolute';
  if (/^[A-Za-z]:/.test(p)) return 'it starts with a drive letter';
  for (const seg of p.split('/')) {
    if (seg === '' || seg === '.') return 'it has an empty or "." segment';
    if (seg === '..') return 'it climbs out with ".."';
    if (/[. ]$/.test(seg)) return `its segment "${seg}" ends with a dot or a space`;
    if (/[:*?"<>|]/.test(seg)) return `its segment "${seg}" has a character Windows refuses in names (: * ? " < > |)`;
    if (/^(con|prn|aux|nul|com[0-9¹²³]|lpt[0-9¹²³])(\..*)?$/i.test(seg)) return `its segment "${seg}" is a device name on Windows`;
  }
  return null;
}

/** A file name made safe for {@link storagePathProblem}: refused characters as `_`, no trailing dot or space, no device name, at most 150 characters (extension kept). */
function safeName(name: string): string {
  const ext = /\.[A-Za-z0-9]{1,8}$/.exec(name)?.[0] ?? '';
  let stem = name.slice(0, name.length - ext.length);
  stem = stem.replace(/[\u0000-\u001f\u007f/\\:*?"<>|]/g, '_').replace(/[. ]+$/, '').slice(0, 150 - ext.length); // eslint-disable-line no-control-regex
  if (stem === '' || /^\.+$/.test(stem)) stem = 'raster';
  if (/^(con|prn|aux|nul|com[0-9¹²³]|lpt[0-9¹²³])$/i.test(stem)) stem = `${stem}_`;
  return `${stem}${ext}`;
}

/**
 * Where a library raster goes in the shared store unless the caller knows better:
 * `<kind>/<year>/<file name>` (`import` and `undated` when the raster has no kind or date), the
 * name made safe for every analyst's system. The store adds `_1`, `_2`, … when another file holds it.
 */
export function suggestedStoragePath(entry: Pick<LibraryEntry, 'path' | 'kind' | 'date'>): string {
  const year = entry.date && /^\d{4}-/.test(entry.date) ? entry.date.slice(0, 4) : 'undated';
  return `${entry.kind ?? 'import'}/${year}/${safeName(path.basename(entry.path))}`;
}

function jsonBytes(v: unknown): number {
  return Buffer.byteLength(JSON.stringify(v), 'utf8');
}

function footprintOf(entry: LibraryEntry): TeamFootprint | null {
  // A composite holds data only inside its AOI (the service clips the mosaic to it), so the AOI is
  // a truer footprint than the raster's box, unless the file may cover only part of it.
  if (entry.kind === 'composite' && entry.request && field(entry.request, 'AllowPartialImage') !== true) {
    const aoi = requestAoi(entry.request);
    if (aoi && typeof aoi !== 'string' && vertexCount(aoi) <= MAX_FOOTPRINT_VERTICES) {
      const canonical = canonicalAoi(aoi);
      if (typeof canonical !== 'string') return canonical as TeamFootprint;
    }
  }
  if (!entry.bounds4326) return null;
  const [w, s, e, n] = entry.bounds4326;
  return { type: 'Polygon', coordinates: [[[w, s], [e, s], [e, n], [w, n], [w, s]]] };
}

function boundedRequest(request: Record<string, unknown> | null): Record<string, unknown> | null {
  if (!request) return null;
  const clean = withoutSecrets(request);
  if (jsonBytes(clean) <= MAX_REQUEST_JSON_BYTES) return clean;
  // The area is what makes a request big; the footprint keeps it (or the raster's bounds).
  const noAoi = Object.fromEntries(Object.entries(clean).filter(([k]) => !/^(wkt|geojson)$/i.test(k)));
  return jsonBytes(noAoi) <= MAX_REQUEST_JSON_BYTES ? noAoi : null;
}

function boundedStac(entry: LibraryEntry, storagePath: string, footprint: TeamFootprint | null): Record<string, unknown> | null {
  // The library's STAC item, its asset pointing into the share and no links (the team catalog is its catalog).
  const item = stacItem({ ...entry, path: path.join(path.sep, 'share', ...storagePath.split('/')) }, path.join(path.sep, 'share'));
  const asset = (item.assets as { data: Record<string, unknown> }).data;
  asset.href = storagePath;
  delete item.links;
  if (footprint) {
    item.geometry = footprint;
    item.bbox = lonLatBounds(footprint);
  }
  if (jsonBytes(item) <= MAX_STAC_JSON_BYTES) return item;
  item.geometry = entry.bounds4326 ? footprintOf({ ...entry, request: null }) : null;
  if (jsonBytes(item) <= MAX_STAC_JSON_BYTES) return item;
  return null;
}

/**
 * What a library raster registers as in the team catalog, once it is copied into the shared store
 * at `storagePath`: the library's metadata, the data type its request asked for, its footprint (the
 * composite's AOI when the file holds all of it and it has at most {@link MAX_FOOTPRINT_VERTICES}
 * vertices, else its lon/lat bounds), its tile GUID, its request without secrets and its STAC item,
 * both bounded in size. Throws a validation AppError when the entry is not hashed yet, the path
 * is not a storage path or the acquirer has no name.
 */
export function teamRasterInputFor(entry: LibraryEntry, storagePath: string, acquiredBy: string, costEur: number | null): TeamRasterInput {
  const bad = (reason: string) => new AppError('validation', `${entry.path} cannot be registered in the team library: ${reason}.`);
  if (!entry.sha256 || !/^[0-9a-f]{64}$/.test(entry.sha256)) throw bad('its sha256 is not known yet');
  if (/\.vrt$/i.test(entry.path)) throw bad('a VRT only points at its parts; share the parts, or mosaic them into one GeoTIFF');
  const problem = storagePathProblem(storagePath);
  if (problem) throw bad(`the storage path ${JSON.stringify(storagePath.slice(0, 200))} is not valid: ${problem}`);
  const by = acquiredBy.trim();
  if (by === '' || by.length > MAX_ACQUIRED_BY_CHARS) throw bad(`the acquirer's name must be 1 to ${MAX_ACQUIRED_BY_CHARS} characters`);
  if (costEur !== null && !(Number.isFinite(costEur) && costEur >= 0)) throw bad('its cost is not a non-negative amount');
  const acquired = Date.parse(entry.createdAt);
  if (Number.isNaN(acquired)) throw bad('its creation time is not a date');

  const request = entry.request;
  let tileGuid: string | null = null;
  let dataType: string | null = null;
  if (request && entry.kind) {
    if (entry.kind === 'composite') {
      const dt = fieldOr(request, 'DataType', COMPOSITE_DEFAULTS.DataType);
      dataType = typeof dt === 'string' ? (GDAL_DATA_TYPE[dt.toUpperCase()] ?? null) : null;
    } else {
      const guid = field(request, entry.kind === 'tile' ? 'TileGuid' : 'MiniTileGuid');
      tileGuid = typeof guid === 'string' && GUID.test(guid) ? guid.toLowerCase() : null;
      dataType = GDAL_DATA_TYPE.INT16!;
    }
  }
  const footprint = footprintOf(entry);
  return {
    sha256: entry.sha256,
    size: entry.size,
    kind: entry.kind,
    date: entry.date,
    model: entry.model,
    constellations: [...entry.constellations],
    bands: [...entry.bands],
    epsg: entry.epsg,
    resolution: entry.resolution,
    dataType,
    footprint,
    tileGuid,
    storagePath,
    acquiredBy: by,
    acquiredAt: new Date(acquired).toISOString(),
    costEur,
    request: boundedRequest(request),
    stac: boundedStac(entry, storagePath, footprint),
  };
}
