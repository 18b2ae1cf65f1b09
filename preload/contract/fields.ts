import { z } from 'zod';
import { MAX_DATE, MAX_ID, MAX_NAME, MAX_PATH, boundedText } from './bounds';

/**
 * Schemas of the fields channels: parcel sets imported from GeoPackage, Shapefile, GeoJSON or
 * FlatGeobuf, their statistics over the library's rasters, watch monitoring and the exports.
 * The renderer never names a file main trusts: `fields:inspect` opens main's own dialog (or, where
 * the host has none, takes a file main checks is inside the download folder) and answers a handle
 * that `fields:import` names.
 */

const id = () => boundedText(MAX_ID).min(1, 'id is required.');
const column = () => boundedText(MAX_NAME).min(1, 'Choose a column.');
const bbox = z.tuple([z.number(), z.number(), z.number(), z.number()]);
/** A band or index of the band grammar (main/analysis/expression.ts): "B8", "ndvi", "[B8_B4]". */
const indexText = () => z.string().min(1, 'Give a band (B4) or an index (ndvi, [B8_B4]).').max(40, 'At most 40 characters.');
const dayText = () => boundedText(MAX_DATE).regex(/^\d{4}-\d{2}-\d{2}$/, 'A day as YYYY-MM-DD (UTC).');
/** The renderer's own key for one long call, echoed by its `fields:progress` events. */
const progressKey = () => boundedText(MAX_ID).min(1).optional();

/** The three pixel rules: exact coverage fractions (default), pixel centres inside, all touched. */
export const pixelRules = ['exact', 'centre', 'touched'] as const;
export const pixelRuleSchema = z.enum(pixelRules);

/** A parcel set's coordinate reference system: proj4 always set. */
export const parcelCrsSchema = z.object({ epsg: z.number().int().nullable(), proj4: z.string(), wkt: z.string().nullable() });

/** A parcel set as kept in swath.db. */
export const parcelSetSchema = z.object({
  id: z.string(),
  name: z.string(),
  sourceFile: z.string(),
  format: z.enum(['gpkg', 'shp', 'geojson', 'fgb']),
  layer: z.string().nullable(),
  crs: parcelCrsSchema,
  idColumn: z.string(),
  nameColumn: z.string().nullable(),
  count: z.number().int().nonnegative(),
  skipped: z.number().int().nonnegative(),
  bbox4326: bbox,
  /** ISO 8601, UTC. */
  createdAt: z.string(),
});

/** A row of the file that was not imported, and why. */
export const skippedParcelSchema = z.object({ row: z.number().int(), id: z.string().nullable(), reason: z.string() });

/** A parcel's polygon or multipolygon, closed rings, outer first. */
export const parcelGeometrySchema = z.union([
  z.object({ type: z.literal('Polygon'), coordinates: z.array(z.array(z.tuple([z.number(), z.number()]))) }),
  z.object({ type: z.literal('MultiPolygon'), coordinates: z.array(z.array(z.array(z.tuple([z.number(), z.number()])))) }),
]);

/** One parcel; `geometry4326` is in EPSG:4326 for the map (the set keeps its own CRS). */
export const parcelSchema = z.object({
  setId: z.string(),
  index: z.number().int().nonnegative(),
  id: z.string(),
  name: z.string().nullable(),
  bbox4326: bbox,
  geometry4326: parcelGeometrySchema,
});

/** One parcel on one date: the statistics of its valid pixels, weighted by the pixel rule. */
export const fieldStatisticSchema = z.object({
  setId: z.string(),
  parcelIndex: z.number().int().nonnegative(),
  rasterId: z.string(),
  /** YYYY-MM-DD, UTC. */
  date: z.string(),
  index: z.string(),
  rule: pixelRuleSchema,
  mean: z.number().nullable(),
  min: z.number().nullable(),
  max: z.number().nullable(),
  std: z.number().nullable(),
  median: z.number().nullable(),
  p10: z.number().nullable(),
  p90: z.number().nullable(),
  /** Sum of the weights of the valid pixels (pixels, fractional under the exact rule). */
  validPixels: z.number().nonnegative(),
  /** Covered area / parcel area (0..1). */
  coveredShare: z.number().min(0),
  /** Valid weight / covered weight (0..1). */
  validShare: z.number().min(0),
  /** The valid share is under the run's minimum: the date is marked, never averaged in. */
  belowThreshold: z.boolean(),
});

/** Per parcel: its latest valid value (the mean) and that date's other statistics, and the change of the mean from its previous valid date. */
export const fieldLatestSchema = fieldStatisticSchema.pick({ median: true, min: true, max: true, std: true, p10: true, p90: true, validPixels: true, coveredShare: true, validShare: true }).extend({
  parcelIndex: z.number().int().nonnegative(),
  date: z.string(),
  value: z.number().nullable(),
  previousDate: z.string().nullable(),
  change: z.number().nullable(),
});

/** A parcel set attached to a watch: each new date is computed, and one notification names the fields that changed. */
export const fieldWatchSchema = z.object({
  setId: z.string(),
  watchId: z.string(),
  index: z.string(),
  rule: pixelRuleSchema,
  minValidShare: z.number(),
  /** A change of at least this size (in the index's units) counts. */
  threshold: z.number(),
  direction: z.enum(['drop', 'rise']),
  createdAt: z.string(),
});

/** Response of `fields:inspect`: what the chosen file holds. */
export const fieldsInspectSchema = z.object({
  cancelled: z.boolean(),
  /** Handle of the chosen file for `fields:import` (main keeps the path). */
  fileId: z.string().nullable(),
  fileName: z.string().nullable(),
  format: parcelSetSchema.shape.format.nullable(),
  layers: z.array(z.object({
    name: z.string(),
    count: z.number().int().nonnegative(),
    columns: z.array(z.object({ name: z.string(), type: z.string() })),
    crs: parcelCrsSchema.nullable(),
  })),
});

const statsQuery = {
  setId: id(),
  index: indexText(),
  rule: pixelRuleSchema.optional(),
};

/** The fields channels, spread into the contract's channel map. */
export const fieldChannels = {
  /** Opens main's file dialog (or checks `file` is in the download folder, where the host has none) and lists the file's layers and columns. */
  'fields:inspect': {
    request: z.strictObject({ file: boundedText(MAX_PATH).min(1).optional() }),
    response: fieldsInspectSchema,
  },
  /** Imports the inspected file as a parcel set; progress in `fields:progress`; cancellable. */
  'fields:import': {
    request: z.strictObject({
      fileId: id(),
      layer: boundedText(MAX_NAME).min(1).optional(),
      idColumn: column(),
      nameColumn: column().optional(),
      name: boundedText(MAX_NAME).min(1).optional(),
      progressKey: progressKey(),
    }),
    response: z.object({ set: parcelSetSchema, skipped: z.array(skippedParcelSchema) }),
  },
  /** Every parcel set. */
  'fields:sets': { request: z.strictObject({}), response: z.object({ sets: z.array(parcelSetSchema) }) },
  /** Deletes a parcel set, its statistics and its watch attachments. */
  'fields:delete': { request: z.strictObject({ setId: id() }), response: z.object({ deleted: z.boolean() }) },
  /** A page of a set's parcels, optionally those meeting a box (EPSG:4326). */
  'fields:parcels': {
    request: z.strictObject({
      setId: id(),
      offset: z.number().int().nonnegative().optional(),
      limit: z.number().int().min(1).max(5_000, 'At most 5000 parcels a page.').optional(),
      bbox4326: bbox.optional(),
    }),
    response: z.object({ parcels: z.array(parcelSchema) }),
  },
  /** Computes a set's statistics over library rasters in the worker pool; progress with ETA in `fields:progress`; cancellable. */
  'fields:run': {
    request: z.strictObject({
      ...statsQuery,
      rasterIds: z.array(id()).max(200_000, 'At most 200000 rasters.').optional(),
      minValidShare: z.number().min(0, 'At least 0.').max(1, 'At most 1.').optional(),
      progressKey: progressKey(),
    }),
    response: z.object({
      results: z.number().int().nonnegative(),
      skippedRasters: z.array(z.object({ rasterId: z.string(), reason: z.string() })),
      skippedParcels: z.array(z.object({ parcelIndex: z.number().int(), reason: z.string() })).optional(),
    }),
  },
  /** Stored statistics: one parcel's dates, one date's parcels, or a page of all. */
  'fields:results': {
    request: z.strictObject({
      ...statsQuery,
      parcelIndex: z.number().int().nonnegative().optional(),
      date: dayText().optional(),
      offset: z.number().int().nonnegative().optional(),
      limit: z.number().int().min(1).max(10_000, 'At most 10000 rows a page.').optional(),
    }),
    response: z.object({ results: z.array(fieldStatisticSchema) }),
  },
  /** Per parcel of a page by index (the first 20,000 by default): latest valid value (on or before `date`) and the change from the previous valid date. */
  'fields:latest': {
    request: z.strictObject({
      ...statsQuery,
      date: dayText().optional(),
      offset: z.number().int().nonnegative().optional(),
      limit: z.number().int().min(1).max(20_000, 'At most 20000 parcels a page.').optional(),
    }),
    response: z.object({ latest: z.array(fieldLatestSchema) }),
  },
  /** Writes the long CSV or a GeoPackage (parcels and a statistics table) to the download folder's exports/. */
  'fields:export': {
    request: z.strictObject({ ...statsQuery, format: z.enum(['csv', 'gpkg']) }),
    response: z.object({ file: z.string(), rows: z.number().int().nonnegative() }),
  },
  /** Attaches a set to a watch: every date the watch brings is computed, and changes past `threshold` notified. */
  'fields:attach-watch': {
    request: z.strictObject({
      setId: id(),
      watchId: id(),
      index: indexText(),
      rule: pixelRuleSchema.optional(),
      minValidShare: z.number().min(0, 'At least 0.').max(1, 'At most 1.').optional(),
      threshold: z.number().positive('Above 0.').max(1e9, 'At most 1e9.'),
      direction: z.enum(['drop', 'rise']).optional(),
    }),
    response: fieldWatchSchema,
  },
  /** Detaches a set from a watch. */
  'fields:detach-watch': { request: z.strictObject({ setId: id(), watchId: id() }), response: z.object({ detached: z.boolean() }) },
  /** The watches a set (or every set) is attached to. */
  'fields:watches': { request: z.strictObject({ setId: id().optional() }), response: z.object({ watches: z.array(fieldWatchSchema) }) },
} as const;

/** The fields events, spread into the contract's event map. */
export const fieldEvents = {
  /** Progress of a running import or statistics run, under the caller's `progressKey`. */
  'fields:progress': z.object({
    key: z.string(),
    operation: z.enum(['import', 'run']),
    done: z.number().nonnegative(),
    total: z.number().nonnegative(),
    etaMs: z.number().nonnegative().nullable(),
  }),
  /** Parcel sets or their statistics changed (an import, a delete, a run, a watch's new date). */
  'fields:changed': z.object({ setId: z.string() }),
} as const;
