/**
 * The team library's ownership rules, pure: what a purchase about to be made is in the catalog's
 * terms ({@link ownershipQueryFor}), the one key two analysts' identical purchases share
 * ({@link purchaseKey}), how a team copy differs from a request in words an analyst reads
 * ({@link differencesInWords}), and what a library raster registers as ({@link teamRasterInputFor}).
 * No I/O: main's spend path, the watches and the catalog call these with what they hold.
 */
import path from 'node:path';
import { AppError } from '../../common/errors.js';
import { readWkt } from '../../common/aoi-text.js';
import type { LibraryEntry } from '../library/catalog.js';
import { withoutSecrets } from '../library/download-sink.js';
import {
  COMPOSITE_DEFAULTS, GDAL_DATA_TYPE, GUID, canonicalAoi, field, fieldOr, knownAoi, lonLatBounds, requestAoi, vertexCount,
} from '../library/request-identity.js';
import { stacItem } from '../exports/stac.js';
import { storagePathProblem } from './storage-path.js';
import type { OwnershipQuery, TeamFootprint, TeamRaster, TeamRasterInput } from './types.js';

// The request's canonical terms are the library's (main/library/request-identity.ts): one matcher for both.
export { AOI_DECIMALS, MAX_QUERY_VERTICES, canonicalAoi, ownershipQueryFor, purchaseKey, utcDayOf, type OwnershipQueryResult } from '../library/request-identity.js';

/** Most vertices a registered footprint keeps; a more detailed AOI registers as its raster's lon/lat bounds. */
export const MAX_FOOTPRINT_VERTICES = 10_000;
/** Largest request JSON a registration carries (a bigger one loses its AOI text, which the footprint holds). */
export const MAX_REQUEST_JSON_BYTES = 64 * 1024;
/** Largest STAC item a registration carries (a bigger one keeps its bounds as geometry, else none). */
export const MAX_STAC_JSON_BYTES = 64 * 1024;
/** Longest display name of an acquirer. */
export const MAX_ACQUIRED_BY_CHARS = 200;

/** Resolution the metadata rounds to (mm): two resolutions closer than this are the same. */
const RESOLUTION_TOLERANCE_M = 1e-3;

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
    let bounds: [number, number, number, number] | null = knownAoi(q)?.bounds ?? null;
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
