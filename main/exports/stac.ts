import path from 'node:path';
import type { LibraryEntry } from '../library/catalog.js';
import { IdenticalRasters } from '../library/request-identity.js';
import { systemClock, type Clock } from '../platform/clock.js';
import { writeTreeAtomic, type TreeFile } from '../shared/atomic-tree.js';

/**
 * The library (or a selection of it) as a static, self-contained STAC catalog
 * (STAC 1.0.0): `catalog.json` and one Item per raster in `<id>/<id>.json`,
 * with datetime (a change layer: its period, start_datetime and end_datetime), bbox,
 * geometry, the projection extension (`proj:epsg`, `proj:shape`), the eo extension's
 * `eo:bands` on the asset, the COG media type
 * (`profile=cloud-optimized`) for files with a COG layout, and the asset
 * href relative to the item, so the catalog can be browsed by STAC tools
 * wherever the folder and the rasters move together.
 */

export const STAC_VERSION = '1.0.0';
export const PROJECTION_EXTENSION = 'https://stac-extensions.github.io/projection/v1.1.0/schema.json';
export const EO_EXTENSION = 'https://stac-extensions.github.io/eo/v1.1.0/schema.json';
/** Media types of GeoTIFF assets (STAC best practices): a COG says so with its profile. */
export const GEOTIFF_MEDIA_TYPE = 'image/tiff; application=geotiff';
export const COG_MEDIA_TYPE = 'image/tiff; application=geotiff; profile=cloud-optimized';
/** The id every catalog Swath writes starts with. */
export const CATALOG_ID_PREFIX = 'swath-library';

type Json = Record<string, unknown>;

/** A raster that could not become an Item, and why. */
export interface SkippedRaster {
  id: string;
  reason: string;
}

/** What a written catalog holds: its item count and the rasters left out. */
export interface StacCounts {
  items: number;
  skipped: SkippedRaster[];
}

/** Forward slashes: STAC hrefs are URLs, never Windows paths. */
function href(from: string, to: string): string {
  const rel = path.relative(from, to).split(path.sep).join('/');
  return rel.startsWith('.') ? rel : `./${rel}`;
}

/** RFC 3339 datetime of the image date (a day, at 00:00 UTC), else the time the file entered the library. */
function datetimeOf(entry: LibraryEntry): string {
  if (entry.date && /^\d{4}-\d{2}-\d{2}$/.test(entry.date)) return `${entry.date}T00:00:00Z`;
  return new Date(entry.createdAt).toISOString();
}

/** An item id that is also a safe folder and file name. */
function itemId(entry: LibraryEntry): string {
  return entry.id.replace(/[^A-Za-z0-9._-]/g, '_');
}

function polygonOf([w, s, e, n]: [number, number, number, number]): Json {
  return { type: 'Polygon', coordinates: [[[w, s], [e, s], [e, n], [w, n], [w, s]]] };
}

/** One STAC Item for a library raster written at `itemDir`. */
export function stacItem(entry: LibraryEntry, itemDir: string): Json {
  // A change layer spans date A to date B: STAC's period (start/end, and datetime null, as the
  // spec allows when both are set) rather than one instant.
  const properties: Json = entry.period
    ? { datetime: null, start_datetime: `${entry.period.start}T00:00:00Z`, end_datetime: `${entry.period.end}T00:00:00Z` }
    : { datetime: datetimeOf(entry) };
  Object.assign(properties, {
    created: new Date(entry.createdAt).toISOString(),
    'proj:epsg': entry.epsg,
    'proj:shape': [entry.height, entry.width],
  });
  if (entry.resolution != null && entry.resolution > 0) properties.gsd = entry.resolution;
  if (entry.constellations.length) properties.constellation = entry.constellations.join(',').toLowerCase();
  if (entry.model) properties['swath:model'] = entry.model;
  const asset: Json = {
    href: href(itemDir, entry.path),
    type: entry.cog ? COG_MEDIA_TYPE : GEOTIFF_MEDIA_TYPE,
    title: path.basename(entry.path),
    roles: ['data'],
    'eo:bands': entry.bands.map((name) => ({ name })),
  };
  if (entry.sha256) asset['swath:sha256'] = entry.sha256;
  const item: Json = {
    type: 'Feature',
    stac_version: STAC_VERSION,
    stac_extensions: [PROJECTION_EXTENSION, EO_EXTENSION],
    id: itemId(entry),
    geometry: entry.bounds4326 ? polygonOf(entry.bounds4326) : null,
    properties,
    links: [
      { rel: 'root', href: '../catalog.json', type: 'application/json' },
      { rel: 'parent', href: '../catalog.json', type: 'application/json' },
    ],
    assets: { data: asset },
  };
  if (entry.bounds4326) item.bbox = [...entry.bounds4326];
  return item;
}

/** Options of {@link stacFiles}. */
export interface StacOptions {
  /** The folder the catalog is written to (hrefs are relative to it). */
  dir: string;
  title?: string;
  /** The app's clock (the catalog's id); the system clock by default. */
  clock?: Clock;
}

/**
 * The catalog and its items for `entries`, as files relative to `options.dir`, one at a time (a
 * library of 100,000 rasters is never held whole): each item as its raster comes, the catalog last.
 * `counts` is filled in as they go.
 */
export async function* stacFiles(entries: Iterable<LibraryEntry> | AsyncIterable<LibraryEntry>, options: StacOptions, counts: StacCounts): AsyncGenerator<TreeFile> {
  const clock = options.clock ?? systemClock;
  const now = () => new Date(clock.now());
  const links: Json[] = [{ rel: 'root', href: './catalog.json', type: 'application/json', title: options.title ?? 'Swath library' }];
  const seen = new Set<string>();
  // One item per raster: a second file of an identical request (bought twice) or with the same content is left out, named.
  const identical = new IdenticalRasters();
  for await (const entry of entries) {
    const id = itemId(entry);
    if (seen.has(id)) {
      counts.skipped.push({ id: entry.id, reason: 'Another raster has the same id.' });
      continue;
    }
    const first = identical.firstOf(entry);
    if (first !== null) {
      counts.skipped.push({ id: entry.id, reason: `Identical to ${first} (the same request of the same date, or the same content), which is in the catalog.` });
      continue;
    }
    seen.add(id);
    const rel = `${id}/${id}.json`;
    yield { path: rel, content: `${JSON.stringify(stacItem(entry, path.join(options.dir, id)), null, 2)}\n` };
    counts.items++;
    links.push({ rel: 'item', href: `./${rel}`, type: 'application/geo+json', title: path.basename(entry.path) });
  }
  const catalog = {
    type: 'Catalog',
    stac_version: STAC_VERSION,
    id: `${CATALOG_ID_PREFIX}-${now().toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z')}`,
    title: options.title ?? 'Swath library',
    description: `Rasters exported from the Swath library (${counts.items} item${counts.items === 1 ? '' : 's'}).`,
    links,
  };
  // The catalog last: it is what a reader opens first.
  yield { path: 'catalog.json', content: `${JSON.stringify(catalog, null, 2)}\n` };
}

/** Result of {@link writeStacCatalog}. */
export interface StacExport {
  dir: string;
  catalogFile: string;
  items: number;
  skipped: SkippedRaster[];
}

/**
 * Writes the catalog for `entries` into `options.dir`, atomically: the whole
 * tree (and its manifest, swath-export.json) is written beside it and moved
 * into place in one rename. An earlier Swath export there is replaced, removing
 * only the files its manifest lists; a folder that holds anything else is
 * refused, naming what is there (see writeTreeAtomic).
 */
export async function writeStacCatalog(entries: Iterable<LibraryEntry> | AsyncIterable<LibraryEntry>, options: StacOptions, signal?: AbortSignal): Promise<StacExport> {
  const counts: StacCounts = { items: 0, skipped: [] };
  await writeTreeAtomic(options.dir, stacFiles(entries, options, counts), { signal });
  return { dir: options.dir, catalogFile: path.join(options.dir, 'catalog.json'), items: counts.items, skipped: counts.skipped };
}
