import { z } from 'zod';
import { channel } from './channel';
import { MAX_FEATURES, MAX_ID, MAX_SELECTION, jsonBounded, boundedText, tooMany } from './bounds';

/** Schemas of the export channels (STAC catalog, GeoJSON); kept apart so later exporters add here. */

/** Request of `export:stac`: the library rasters to export (all of them when `ids` is absent). */
export const stacExportRequestSchema = z.strictObject({
  ids: z.array(boundedText(MAX_ID).min(1)).min(1, 'Select at least one raster, or leave ids out to export all.').max(MAX_SELECTION, tooMany(MAX_SELECTION)).optional(),
  title: z.string().min(1).max(200).optional(),
  /** `team`: every raster of the team catalog (its files on the share) instead of this library's. */
  source: z.enum(['library', 'team']).optional(),
});

/** Response of `export:stac`. */
export const stacExportSchema = z.object({
  /** True when the analyst closed the folder dialog; nothing was written. */
  cancelled: z.boolean(),
  dir: z.string().nullable(),
  catalogFile: z.string().nullable(),
  items: z.number().int(),
  skipped: z.array(z.object({ id: z.string(), reason: z.string() })),
});

/** A GeoJSON geometry (EPSG:4326). */
const geometrySchema = z.object({
  type: z.enum(['Point', 'MultiPoint', 'LineString', 'MultiLineString', 'Polygon', 'MultiPolygon', 'GeometryCollection']),
  coordinates: z.array(z.unknown()).optional(),
  geometries: z.array(z.unknown()).optional(),
});

/** One feature of `export:geojson`: which list it came from ('aoi', 'order', 'watch'…), its geometry and properties. */
export const exportFeatureSchema = z.strictObject({
  layer: z.string().min(1).max(40),
  id: z.union([z.string(), z.number()]).optional(),
  geometry: geometrySchema.nullable(),
  properties: z.record(z.string(), z.unknown()).optional(),
});

/** Request of `export:geojson`. */
export const geojsonExportRequestSchema = z.strictObject({
  /** File name stem, e.g. "aoi" or "orders". */
  name: boundedText(80).regex(/^[A-Za-z0-9][A-Za-z0-9 _.-]{0,79}$/, 'Use letters, digits, spaces, dots, dashes or underscores (at most 80).'),
  /** Within the JSON bounds as a whole (their geometries and properties are open JSON). */
  features: jsonBounded(z.array(exportFeatureSchema).min(1, 'There is nothing to export.').max(MAX_FEATURES, tooMany(MAX_FEATURES))),
});

/** Response of `export:geojson`. */
export const geojsonExportSchema = z.object({
  cancelled: z.boolean(),
  file: z.string().nullable(),
  features: z.number().int(),
});

/** The largest CSV `export:csv` takes (a series of thousands of dates is far smaller). */
export const CSV_EXPORT_MAX_CHARS = 8_000_000;

/** Request of `export:csv`: a CSV the renderer made (a time series), written by main. */
export const csvExportRequestSchema = z.strictObject({
  /** File name stem, e.g. "swath-series-ndvi-aoi-13.40E52.50N-2026-04-10_2026-08-20". */
  name: z.string().max(160).regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,159}$/, 'Use letters, digits, dots, dashes or underscores (at most 160).'),
  csv: z.string().min(1, 'There is nothing to export.').max(CSV_EXPORT_MAX_CHARS, `At most ${CSV_EXPORT_MAX_CHARS} characters.`),
  /**
   * When the file is there already: `refuse` (the default) writes nothing and answers `exists`, so the
   * renderer can ask; `replace` writes over it (the analyst said so); `rename` writes `<name>-2.csv`, `-3`…
   */
  onExisting: z.enum(['refuse', 'replace', 'rename']).optional(),
});

/** Response of `export:csv`. */
export const csvExportSchema = z.object({
  /** True when the analyst closed the save dialog; nothing was written. */
  cancelled: z.boolean(),
  /** The file written, or (with `exists`) the one that is there. */
  file: z.string().nullable(),
  /** True when the file was there and `onExisting` was `refuse`: nothing was written. */
  exists: z.boolean(),
});

/** The export channels (export:*, spread into the contract's channel map). */
export const exportChannels = {
  /** Writes the library (or the given rasters) as a static STAC catalog into a folder the analyst chooses (the browser host: under the download folder). */
  'export:stac': channel(stacExportRequestSchema, stacExportSchema),
  /** Writes features (AOI, orders, watches) as a GeoJSON FeatureCollection file. */
  'export:geojson': channel(geojsonExportRequestSchema, geojsonExportSchema),
  /** Writes a CSV (a time series) as a file; never over an existing one unless asked to (`onExisting`). */
  'export:csv': channel(csvExportRequestSchema, csvExportSchema),
};
