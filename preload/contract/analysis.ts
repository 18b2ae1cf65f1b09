import { z } from 'zod';
import { MAX_AREA_TEXT, MAX_ID, MAX_SELECTION, jsonRecord, boundedText, tooMany } from './bounds';

/** Schemas of the analysis channels: time series at a point or over an area, and change between two dates. */

/** An area as the AOI tools give it: WKT or a GeoJSON Polygon/MultiPolygon (EPSG:4326); a watch's area works the same. */
export const analysisAoiSchema = z.union([
  z.strictObject({ wkt: boundedText(MAX_AREA_TEXT).min(1) }),
  z.strictObject({ geojson: jsonRecord() }),
]);

const expression = z.string().min(1, 'Give a band (B4) or an index (ndvi, [B8_B4]).').max(40);

/** Request of `analysis:series`. */
export const seriesRequestSchema = z.strictObject({
  /** One band or index in the Bandnames grammar: "B8", "ndvi", "[B11_B8]". */
  expression,
  target: z.union([
    z.strictObject({ kind: z.literal('area'), aoi: analysisAoiSchema }),
    z.strictObject({ kind: z.literal('point'), lon: z.number().min(-180).max(180), lat: z.number().min(-90).max(90) }),
  ]),
  /** Only these library rasters (default: every raster that covers the target). */
  ids: z.array(boundedText(MAX_ID).min(1)).max(MAX_SELECTION, tooMany(MAX_SELECTION)).optional(),
});

/** One date of a series. Area: statistics of the valid pixels; point: the pixel's value. */
export const seriesPointSchema = z.object({
  id: z.string(),
  name: z.string(),
  /** YYYY-MM-DD (UTC) image date. */
  date: z.string(),
  epsg: z.number().int(),
  /** Area: pixels of the file that intersect the area, and the valid (not nodata) ones among them. */
  pixels: z.number().int().optional(),
  valid: z.number().int(),
  mean: z.number().nullable(),
  median: z.number().nullable(),
  p10: z.number().nullable(),
  p90: z.number().nullable(),
  /** Point: the value of the pixel containing the point (null: nodata), that pixel (0-based column and row) and its centre in the file's CRS. */
  value: z.number().nullable().optional(),
  pixel: z.object({ col: z.number().int(), row: z.number().int(), x: z.number(), y: z.number() }).optional(),
});

/** Response of `analysis:series`. */
export const seriesSchema = z.object({
  kind: z.enum(['area', 'point']),
  expression: z.string(),
  label: z.string(),
  unit: z.string(),
  points: z.array(seriesPointSchema),
  /** Library rasters that cover the target's bounds but add nothing, and why. */
  skipped: z.array(z.object({ id: z.string(), name: z.string(), reason: z.string() })),
});

/** Request of `analysis:change`: the index at `toId` minus the index at `fromId`. */
export const changeRequestSchema = z.strictObject({
  expression,
  fromId: boundedText(MAX_ID).min(1),
  toId: boundedText(MAX_ID).min(1),
  /** Restricts the layer to the pixels intersecting this area (default: all of the first raster). */
  aoi: analysisAoiSchema.optional(),
});

/** Response of `analysis:change`. */
export const changeSchema = z.object({
  /** Handle of the result in main, for `analysis:change-save`. */
  id: z.string(),
  label: z.string(),
  fromDate: z.string().nullable(),
  toDate: z.string().nullable(),
  /** The grid is the first (earlier) raster's; the second is sampled at the nearest pixel to each pixel centre. */
  grid: z.object({ epsg: z.number().int(), originX: z.number(), originY: z.number(), pixelSize: z.number(), width: z.number().int(), height: z.number().int() }),
  resampling: z.literal('nearest'),
  /** A display copy (every `step`-th pixel, nearest) as little-endian float32 in base64, NaN = no data. */
  display: z.object({ width: z.number().int(), height: z.number().int(), step: z.number().int(), float32: z.string() }),
  stats: z.object({
    valid: z.number().int(),
    mean: z.number().nullable(),
    median: z.number().nullable(),
    p10: z.number().nullable(),
    p90: z.number().nullable(),
    min: z.number().nullable(),
    max: z.number().nullable(),
  }),
  histogram: z.object({ min: z.number(), max: z.number(), counts: z.array(z.number().int()) }),
});

/** Response of `analysis:change-save`: the GeoTIFF written and recorded in the library. */
export const changeSaveSchema = z.object({ file: z.string(), entryId: z.string() });

/** The analysis channels, spread into the contract's channel map. */
export const analysisChannels = {
  /** A band or index per date for every library raster covering a point or an area, computed in main's worker threads from the files. */
  'analysis:series': { request: seriesRequestSchema, response: seriesSchema },
  /** The change between two library rasters (B minus A) on A's grid, as a derived layer. */
  'analysis:change': { request: changeRequestSchema, response: changeSchema },
  /** Saves a computed change layer as a FLOAT32 GeoTIFF into the library. */
  'analysis:change-save': { request: z.strictObject({ id: boundedText(MAX_ID).min(1) }), response: changeSaveSchema },
} as const;
