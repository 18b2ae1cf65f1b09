import { z } from 'zod';
import { MAX_DATE, boundedText, jsonRecord } from './bounds';
import { byId, channel, folder, recordSchema } from './channel';
import { spendVerdictSchema } from './spend';

/** Schemas of the download queue's channels (downloads:*): jobs, their pages and counts, and the plan of a composite. */

const dateText = () => boundedText(MAX_DATE);

/** Kinds of imagery download. */
export const downloadKindSchema = z.enum(['composite', 'tile', 'minitile']);

/** One download job as the renderer sees it. */
export const downloadJobSchema = z.object({
  id: z.string(),
  kind: downloadKindSchema,
  request: recordSchema,
  targetDir: z.string(),
  state: z.enum(['queued', 'running', 'done', 'failed', 'cancelled']),
  reason: z.string().optional(),
  errorKind: z.string().optional(),
  bytes: z.number(),
  total: z.number().nullable(),
  attempts: z.number().int(),
  file: z.string().optional(),
  libraryId: z.string().optional(),
  batch: z.object({
    type: z.enum(['split', 'series']),
    limits: z.object({ maxCompositeAreaKm2: z.number(), maxTotalBands: z.number() }),
    dates: z.array(z.string()).optional(),
    parts: z.number().int(),
  }).optional(),
  files: z.array(z.string()).optional(),
  createdAt: z.string(),
  updatedAt: z.string(),
});

/** How many jobs main has in each state, in all pages. */
export const downloadCountsSchema = z.object({
  queued: z.number().int().nonnegative(), running: z.number().int().nonnegative(), done: z.number().int().nonnegative(),
  failed: z.number().int().nonnegative(), cancelled: z.number().int().nonnegative(),
});

/** Most jobs one `downloads:list` page carries. */
export const DOWNLOADS_PAGE_MAX = 500;

/** Request of `downloads:list`: a page (default the first 500 jobs), of one state when given; `after`: the `next` of the page before. */
export const downloadsListRequestSchema = z.strictObject({
  after: z.string().min(1, 'after must not be empty.').max(400, 'after is longer than a position this list gives.').optional(),
  limit: z.number().int().min(1).max(DOWNLOADS_PAGE_MAX).optional(),
  state: z.enum(['queued', 'running', 'done', 'failed', 'cancelled']).optional(),
});

/** A file of the analyst's library that an identical request would buy again (the same date, area, model, constellations and output settings). */
export const libraryCopySchema = z.object({ id: z.string(), path: z.string(), date: z.string().nullable() });

/** How a composite will be fetched: one request, or parts cut on the output pixel grid (and per date for a series), with the summed estimate. */
export const downloadPlanSchema = z.object({
  split: z.boolean(),
  splitBy: z.object({ area: z.boolean(), bands: z.boolean() }),
  parts: z.number().int(),
  dates: z.array(z.string()).nullable(),
  areaKm2: z.number(),
  limits: z.object({ maxCompositeAreaKm2: z.number(), maxTotalBands: z.number() }),
  estimate: z.object({
    AreaEstimateKm2: z.number(),
    BilledAreaKm2: z.number(),
    /** Null when one part's cost could not be read (the verdict says why). */
    CreditEstimate: z.number().nullable(),
    CurrencyCode: z.string().nullable(),
    requests: z.number().int(),
  }),
  /** Main's verdict on downloading it against the budget. */
  verdict: spendVerdictSchema,
  /** Identical files already in the library (a series: its dates held, which it does not buy again nor estimate). */
  inLibrary: z.array(libraryCopySchema),
});

/** The download queue's channels (spread into the contract's channel map). */
export const downloadChannels = {
  /** One page of the jobs: the active ones first (oldest first), then the history (newest first); `total` counts every page. */
  'downloads:list': channel(downloadsListRequestSchema, z.object({
    total: z.number().int().nonnegative(),
    jobs: z.array(downloadJobSchema),
    /** Pass as `after` for the next page; null after the last one. */
    next: z.string().nullable(),
    /** Every job by state (all pages, whatever the filter). */
    counts: downloadCountsSchema,
  })),
  /**
   * Queues a composite, tile or mini-tile download (main's spend guard decides first, as for an order).
   * The request of this and every paid channel (plan, series, estimates, orders) is rebuilt by main in
   * the contract's spelling of each field (the service reads names in any case); a field the contract
   * does not list for it, or one given twice in two cases, is refused naming the field.
   */
  /** `buyAnyway`: the analyst saw that the team owns this (`team:check`) and buys it again; without it main refuses a purchase the team owns. */
  'downloads:enqueue': channel(z.strictObject({ kind: downloadKindSchema, request: jsonRecord(), targetDir: folder().optional(), buyAnyway: z.boolean().optional() }), downloadJobSchema),
  /** Cancels a queued or running download. */
  'downloads:cancel': channel(byId, downloadJobSchema),
  /** Puts a failed or cancelled download back in the queue (main's spend guard decides first). */
  'downloads:retry': channel(byId, downloadJobSchema),
  /** Removes a finished, failed or cancelled job from the list (the file stays). */
  'downloads:remove': channel(byId, z.object({ removed: z.literal(true) })),
  /** Removes every finished job in these states from the history, in all pages (the files stay); answers how many and the counts after. */
  'downloads:clear': channel(
    z.strictObject({ states: z.array(z.enum(['done', 'failed', 'cancelled'], { message: 'states: each must be done, failed or cancelled.' })).min(1, 'states: name at least one state.').max(3) }),
    z.object({ removed: z.number().int().nonnegative(), counts: downloadCountsSchema }),
  ),
  /** Shows a finished download in the system file manager. */
  'downloads:reveal': channel(byId, z.object({ revealed: z.boolean() })),
  /** Plans a composite against the account's limits (and, for a series, the dates with imagery) and sums the per-request estimates. */
  'downloads:plan': channel(
    z.strictObject({ request: jsonRecord(), series: z.strictObject({ from: dateText(), until: dateText().nullable() }).optional() }),
    downloadPlanSchema,
  ),
  /** Queues one job that downloads the same AOI and settings for every date with imagery in the period. */
  'downloads:enqueue-series': channel(
    z.strictObject({ request: jsonRecord(), from: dateText(), until: dateText().nullable(), targetDir: folder().optional() }),
    downloadJobSchema,
  ),
};
