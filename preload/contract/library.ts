import { z } from 'zod';
import { MAX_SELECTION, boundedText, tooMany } from './bounds';
import { byId, channel, folder, id, noRequest, recordSchema } from './channel';
import { downloadKindSchema } from './downloads';
import { BRIEF_RASTERS_MAX, LIBRARY_SELECTION_MAX } from '../../common/library-selection';

/** Schemas of the library's channels (library:*): the local rasters, their pages, footprints and previews. */

/** One local raster of the library. */
export const libraryEntrySchema = z.object({
  id: z.string(),
  path: z.string(),
  size: z.number(),
  /** Null for a moment after a download, until the background hash is done. */
  sha256: z.string().nullable(),
  request: recordSchema.nullable(),
  kind: downloadKindSchema.nullable(),
  date: z.string().nullable(),
  model: z.string().nullable(),
  constellations: z.array(z.string()),
  bands: z.array(z.string()),
  epsg: z.number().nullable(),
  resolution: z.number().nullable(),
  width: z.number(),
  height: z.number(),
  bounds4326: z.tuple([z.number(), z.number(), z.number(), z.number()]).nullable(),
  boundsNote: z.string().optional(),
  /** A change layer's period: date A and date B. */
  period: z.object({ start: z.string(), end: z.string() }).optional(),
  /** The file has a Cloud Optimized GeoTIFF layout. */
  cog: z.boolean().optional(),
  createdAt: z.string(),
  source: z.enum(['download', 'import']),
  /** The time series it belongs to (same area, CRS and bands on two dates or more); absent when none. */
  series: z.string().optional(),
});

/** The most rows one `library:query` or `library:cover` answers. */
export const LIBRARY_PAGE_MAX = 500;

const lonLatBox = z.tuple([z.number().min(-180).max(180), z.number().min(-90).max(90), z.number().min(-180).max(180), z.number().min(-90).max(90)])
  .refine(([w, s, e, n]) => w <= e && s <= n, 'The box must be [west, south, east, north] with west ≤ east and south ≤ north.');
const isoDay = boundedText(10).regex(/^\d{4}-\d{2}-\d{2}$/, 'Use YYYY-MM-DD.');

/** Request of `library:query`: one page of the list, filtered and sorted in main. */
export const libraryQuerySchema = z.strictObject({
  /** Search words: band names and products (ndvi, rgb, B8, [B8_B4]) by the bands held; other words in name, date, model, EPSG, constellations, kind, source. */
  text: z.string().max(500, 'The search is longer than 500 characters.').optional(),
  source: z.enum(['all', 'download', 'import']).optional(),
  dateFrom: isoDay.optional(),
  dateTo: isoDay.optional(),
  /** Only rasters whose footprint meets this lon/lat box. */
  bbox: lonLatBox.nullable().optional(),
  /** Only these rasters. */
  ids: z.array(id()).max(LIBRARY_PAGE_MAX).optional(),
  sort: z.enum(['date-desc', 'date-asc', 'added-desc', 'name', 'size-desc']).optional(),
  offset: z.number().int().min(0).max(10_000_000).optional(),
  limit: z.number().int().min(1).max(LIBRARY_PAGE_MAX, `At most ${LIBRARY_PAGE_MAX} rows per page.`),
  /** One row per time series (at its first matching raster in the order), its dates in `series`. */
  series: z.boolean().optional(),
});

/** Response of `library:query`. */
export const libraryPageSchema = z.object({
  /** Rasters matching the filters. */
  total: z.number().int(),
  /** Rows of the list (a time series counts once when asked for). */
  rows: z.number().int(),
  /** Rasters in the library. */
  all: z.number().int(),
  entries: z.array(libraryEntrySchema),
  /** The dates of each time series on the page, oldest first (ids and dates: the rasters themselves by `ids`). */
  series: z.array(z.object({ key: z.string(), entries: z.array(z.object({ id: z.string(), date: z.string().nullable() })) })),
});

/** Request of `library:cover`: which rasters' footprints meet a lon/lat box. */
export const libraryCoverSchema = z.strictObject({
  bbox: lonLatBox,
  limit: z.number().int().min(1).max(LIBRARY_PAGE_MAX, `At most ${LIBRARY_PAGE_MAX} rasters per answer.`),
});

/** Request of `library:preview`. */
export const previewRequestSchema = z.strictObject({
  id: id(),
  /**
   * When the file needs an overview copy that does not exist yet, answer at once with a quick look
   * (state 'quick-look') whose longer side is at least this many px, instead of building the copy;
   * the next request without it builds the copy.
   */
  quickLook: z.number().int('quickLook must be a whole number of pixels.').min(64, 'quickLook must be at least 64 px.').max(8192, 'quickLook must be at most 8192 px.').optional(),
});

/** Response of `library:preview`: which raster id the map opens (the file itself, its overview copy or a quick look) and why. */
export const previewStatusSchema = z.object({
  id: z.string(),
  state: z.enum(['not-needed', 'ready', 'unsupported', 'quick-look']),
  rasterId: z.string(),
  reason: z.string(),
  reused: z.boolean(),
  buildMs: z.number(),
});

export { BRIEF_RASTERS_MAX, LIBRARY_SELECTION_MAX };

/**
 * Request of `library:selection`: rasters the analyst selected in the Library, for a film (one grid:
 * one CRS and band list, footprints that share an area, dated) or a brief (at most
 * {@link BRIEF_RASTERS_MAX}).
 */
export const librarySelectionSchema = z.strictObject({
  ids: z.array(id()).min(1, 'Select at least one raster.').max(LIBRARY_SELECTION_MAX, `A selection holds at most ${LIBRARY_SELECTION_MAX} rasters.`),
  use: z.enum(['film', 'brief']),
});

/** The library's channels (spread into the contract's channel map). */
export const libraryChannels = {
  /** One page of the library, filtered (search words, source, dates, area), sorted and counted in main from its indexes. */
  'library:query': channel(libraryQuerySchema, libraryPageSchema),
  /** The rasters whose footprint meets a lon/lat box (the footprint index), oldest image first, with how many there are. */
  'library:cover': channel(libraryCoverSchema, z.object({ total: z.number().int(), entries: z.array(libraryEntrySchema) })),
  /** The selected rasters, oldest image first, once main checked each is in the library and they suit the use (a refusal names `ids[i]`). */
  'library:selection': channel(librarySelectionSchema, z.object({ entries: z.array(libraryEntrySchema) })),
  /** Adds existing GeoTIFF files to the library. */
  'library:import': channel(z.strictObject({ paths: z.array(folder().min(1)).min(1).max(MAX_SELECTION, tooMany(MAX_SELECTION)) }), z.object({ entries: z.array(libraryEntrySchema) })),
  /** Removes a raster from the library, optionally deleting its file. */
  'library:remove': channel(z.strictObject({ id: id(), deleteFile: z.boolean() }), z.object({ removed: z.literal(true) })),
  /** How a library raster is previewed; builds (once, cached) an overview copy of a non-COG file, with 'library:overview-progress' events, or first a quick look of it. */
  'library:preview': channel(previewRequestSchema, previewStatusSchema),
  /** Shows a library raster in the system file manager. */
  'library:reveal': channel(byId, z.object({ revealed: z.boolean() })),
  /** Opens the system file dialog (where the host has one) and imports the chosen GeoTIFFs. */
  'library:import-dialog': channel(noRequest, z.object({ entries: z.array(libraryEntrySchema), cancelled: z.boolean() })),
};
