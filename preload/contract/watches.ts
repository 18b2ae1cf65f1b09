import { z } from 'zod';
import { MAX_AREA_TEXT, MAX_LIST, MAX_NAME, jsonRecord, boundedText, tooMany } from './bounds';
import { byId, id, noRequest } from './channel';
import { RESOLUTIONS } from './resolutions';

/**
 * Schemas of the watches' channels: a watch keeps the library complete for an order or an
 * AOI + model.
 */

export { RESOLUTIONS };

const day = boundedText(10).regex(/^\d{4}-\d{2}-\d{2}$/, 'Use a date as YYYY-MM-DD.');

/** Composite settings attached to a watch once; every date is downloaded with them. */
export const watchSettingsSchema = z.strictObject({
  EpsgProjection: z.number().int('EpsgProjection must be a whole number.').positive('EpsgProjection must be an EPSG code.'),
  Bandnames: boundedText(MAX_NAME).trim().min(1, 'Bandnames is required (rgb, all, B4,B8 or ndvi…).'),
  DataType: z.enum(['INT16', 'UINT8']),
  Resolution: z.number().refine((n) => RESOLUTIONS.includes(n), `Resolution must be one of ${RESOLUTIONS.join(', ')} m.`),
  PixelSelectionMode: z.enum(['intersect', 'contained']),
  UtmDataSelectionMode: z.enum(['single_utm_fully_covered', 'combined_utm', 'single_utm']).optional(),
});

/** The area of a watch: WKT or a GeoJSON geometry (EPSG:4326), one of them. */
export const watchAreaSchema = z.union([
  z.strictObject({ Wkt: boundedText(MAX_AREA_TEXT).trim().min(1, 'The area is empty.') }),
  z.strictObject({ GeoJson: jsonRecord() }),
]);

/** What the analyst gives when creating or editing a watch. */
export const watchInputSchema = z.strictObject({
  name: z.string().trim().min(1, 'Give the watch a name.').max(120, 'At most 120 characters.'),
  /** What the watch follows: a tasking order (its id as the service listed it) or a saved AOI + model. */
  source: z.strictObject({
    kind: z.enum(['order', 'aoi']),
    orderId: z.string().max(200).nullable(),
    /** The order is recurring (no end); null when unknown or for an AOI. */
    recurring: z.boolean().nullable(),
  }),
  area: watchAreaSchema,
  model: boundedText(MAX_NAME).trim().min(1, 'Choose a model.'),
  constellations: z.array(boundedText(MAX_NAME).min(1)).min(1, 'Choose at least one constellation.').max(MAX_LIST, tooMany(MAX_LIST)),
  /** First image date to keep; `to` null: up to today and on. */
  from: day,
  to: day.nullable(),
  settings: watchSettingsSchema,
  /** The watch's own spending cap in EUR (per calendar month, UTC); null: only the profile's budget applies. */
  capEur: z.number().positive('The cap must be above 0.').nullable(),
  /** How often the watch looks for new dates, hours. */
  everyHours: z.number().min(0.25, 'At least every 15 minutes.').max(24 * 7, 'At least once a week.'),
});

/** One date of a watch and what happened to it. */
export const watchDateSchema = z.object({
  date: day,
  state: z.enum(['downloaded', 'queued', 'skipped', 'failed']),
  /** Why it was skipped or failed; empty when downloaded. */
  note: z.string().optional(),
  libraryIds: z.array(z.string()),
  files: z.array(z.string()),
  jobId: z.string().nullable(),
  costEur: z.number().nullable(),
  at: z.string(),
});

/** A watch as main keeps it. */
export const watchSchema = watchInputSchema.extend({
  id: z.string(),
  profileId: z.string(),
  /** active: runs on schedule; paused: by the analyst or the spend guard; attention: stopped until the analyst acts. */
  state: z.enum(['active', 'paused', 'attention']),
  /** What stopped it and what to do, shown on the watch. */
  notice: z.string().nullable(),
  running: z.boolean(),
  lastRunAt: z.string().nullable(),
  /** What the last run did, in words. */
  lastResult: z.string().nullable(),
  nextRunAt: z.string().nullable(),
  /** Consecutive transient failures (reset by a successful run). */
  failures: z.number().int(),
  /** A month (YYYY-MM) for which the analyst confirmed spending past the cap or budget. */
  allowOverMonth: z.string().nullable(),
  dates: z.array(watchDateSchema),
  createdAt: z.string(),
  updatedAt: z.string(),
});

/** How many of its latest dates a watch summary carries: the chips a Watches card shows. */
export const WATCH_LATEST_DATES = 24;
/** At most this many dates in one `watches:dates` page. */
export const WATCH_DATES_PAGE = 500;

const count = z.number().int().nonnegative();

/** A date as a card's chip shows it: the day, what happened and the (first) raster it gave. */
export const watchChipSchema = z.object({
  date: day,
  state: watchDateSchema.shape.state,
  note: z.string().optional(),
  libraryId: z.string().nullable(),
});

/** The chip of a watch date. */
export function watchChip(d: z.infer<typeof watchDateSchema>): z.infer<typeof watchChipSchema> {
  return { date: d.date, state: d.state, ...(d.note === undefined ? {} : { note: d.note }), libraryId: d.libraryIds[0] ?? null };
}

/** A watch's dates counted by state. */
export const watchDateCountsSchema = z.object({ downloaded: count, queued: count, skipped: count, failed: count }) satisfies z.ZodType<Record<z.infer<typeof watchDateSchema>['state'], number>>;

/**
 * A watch as the window sees it: its fields, its dates counted by state and only its latest
 * {@link WATCH_LATEST_DATES} as chips (oldest first); the dates in full are paged with `watches:dates`.
 */
export const watchSummarySchema = watchSchema.omit({ dates: true }).extend({
  /** How many dates it holds. */
  dateCount: count,
  counts: watchDateCountsSchema,
  /** Spent this calendar month (UTC) on the dates it downloaded, EUR. */
  monthSpentEur: z.number().nonnegative(),
  /** The chips of the last {@link WATCH_LATEST_DATES} of its dates, in the order it keeps them (oldest first). */
  latest: z.array(watchChipSchema).max(WATCH_LATEST_DATES),
});

const watchResponse = watchSummarySchema;

/** The watches' channels (spread into the contract's channel map). */
export const watchChannels = {
  /** Every watch of the active profile as a summary: status, last and next run, its dates counted by state and its latest ones. */
  'watches:list': { request: noRequest, response: z.object({ watches: z.array(watchSummarySchema) }) },
  /** A page of a watch's dates in the order it keeps them (oldest first): `limit` from `offset`, and how many it holds. */
  'watches:dates': {
    request: z.strictObject({
      id: id(),
      offset: z.number().int('offset must be a whole number.').nonnegative('offset must be 0 or more.'),
      limit: z.number().int('limit must be a whole number.').min(1, 'limit must be at least 1.').max(WATCH_DATES_PAGE, `limit is at most ${WATCH_DATES_PAGE}.`),
    }),
    response: z.object({ total: count, dates: z.array(watchDateSchema).max(WATCH_DATES_PAGE) }),
  },
  /** Creates a watch; it runs at once (catching up every date with imagery so far). */
  'watches:create': { request: watchInputSchema, response: watchResponse },
  /** Changes a watch's settings; a watch that needed attention becomes active again. */
  'watches:update': { request: z.strictObject({ id: id(), patch: watchInputSchema.partial() }), response: watchResponse },
  /** Deletes a watch; its downloaded files stay unless `deleteFiles` (then only the files the watch downloaded go). */
  'watches:delete': { request: z.strictObject({ id: id(), deleteFiles: z.boolean() }), response: z.object({ deleted: z.literal(true), filesDeleted: z.number().int() }) },
  /** Stops a watch from running until resumed. */
  'watches:pause': { request: byId, response: watchResponse },
  /**
   * Lets a paused (or stopped) watch run again, now. `pastCap`: the analyst wants this month's
   * downloads to go past the watch's cap or the budget; main asks with its own native dialog
   * (refused where there is none, the browser host: raise the cap or budget instead).
   */
  'watches:resume': { request: z.strictObject({ id: id(), pastCap: z.boolean().optional() }), response: watchResponse },
  /** Runs a watch now (looks for new dates). */
  'watches:run': { request: byId, response: watchResponse },
} as const;

/** The watches' events (spread into the contract's event map). */
export const watchEvents = {
  /** A watch changed (created, ran, paused: `watch` is its new summary; deleted: then `deleted` is true). */
  'watch:changed': z.object({ id: z.string(), deleted: z.boolean().optional(), watch: watchSummarySchema.optional() }),
} as const;
