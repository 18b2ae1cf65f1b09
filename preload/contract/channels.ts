import { z } from 'zod';
import { analysisChannels } from './analysis';
import { briefChannels } from './brief';
import { MAX_DATE, MAX_ID, MAX_NAME, MAX_PATH, MAX_PAYLOAD_TEXT, MAX_SECRET, MAX_SELECTION, MAX_URL, jsonRecord, jsonValue, boundedText, tooMany } from './bounds';
import { aboutSchema } from './about';
import { errorReportSchema } from './diagnostics';
import { policyViewSchema } from './policy';
import { updateStatusSchema } from './updates';
import { csvExportRequestSchema, csvExportSchema, geojsonExportRequestSchema, geojsonExportSchema, stacExportRequestSchema, stacExportSchema } from './exports';
import { teamChannels } from './team';
import { notificationChannels } from './notifications';
import { spendChannels, spendVerdictSchema } from './spend';
import { watchChannels } from './watches';
import { timelapseChannels } from './timelapse';

/**
 * The request/response channel map. Adding a channel is one entry in
 * {@link channels}: the preload derives its bridge method, main's handler table
 * must implement it (the type requires it), and the renderer gets the types.
 */

/** Version of this IPC contract; bumped when a channel changes incompatibly. */
export const CONTRACT_VERSION = '1.0.0';

/** A channel's request and response schemas. */
export interface ChannelSpec<Req extends z.ZodType = z.ZodType, Res extends z.ZodType = z.ZodType> {
  request: Req;
  response: Res;
}

/** Any channel map (the real one is {@link channels}; tests may build their own). */
export type ChannelMap = Record<string, ChannelSpec>;

function channel<Req extends z.ZodType, Res extends z.ZodType>(request: Req, response: Res): ChannelSpec<Req, Res> {
  return { request, response };
}

// Strict so that a typo in a field name is a validation error, not silently ignored.
const noRequest = z.strictObject({});
/** Request of `diagnostics:get` / `diagnostics:save`: profile names only when the analyst ticks them in (they can name customers). */
const diagnosticsRequestSchema = z.strictObject({ includeProfileNames: z.boolean().optional() });

/** What the renderer may know about the active service: never the key. */
export const serviceSummarySchema = z.object({
  label: z.string(),
  baseUrl: z.string(),
  demo: z.boolean(),
});

/** Response of `app:info`. */
export const appInfoSchema = z.object({
  version: z.string(),
  platform: z.string(),
  service: serviceSummarySchema,
  contractVersion: z.literal(CONTRACT_VERSION),
});

/** Response of `service:ping`. */
export const pingSchema = z.object({
  reachable: z.boolean(),
  latencyMs: z.number().nonnegative(),
});

/** Any JSON object: service payloads whose fields the contract leaves open are passed through and shown generically. */
export const recordSchema = z.record(z.string(), z.unknown());

/** A request carrying one service body; main validates it against the contract and the discovered specification. */
const serviceBody = z.strictObject({ request: jsonRecord() });
const id = () => boundedText(MAX_ID).min(1, 'id is required.');
const byId = z.strictObject({ id: id() });
const folder = () => boundedText(MAX_PATH);
const dateText = () => boundedText(MAX_DATE);
const yearMonth = z.strictObject({
  year: z.number().int('year must be a whole number.'),
  month: z.number().int('month must be a whole number.'),
});

/** What the renderer may know about a profile: whether a key is set and its last 4 characters, never the key. */
export const profileSummarySchema = z.object({
  id: z.string(),
  name: z.string(),
  baseUrl: z.string().nullable(),
  builtIn: z.boolean(),
  active: z.boolean(),
  keySet: z.boolean(),
  keyLast4: z.string().nullable(),
  /** The origin the key was entered (or confirmed) for; null without a key. */
  keyOrigin: z.string().nullable(),
  /** The base URL moved to another origin: the key is not sent until it is entered again or main's dialog confirms. */
  keyNeedsConfirm: z.boolean(),
});

/** Response of `profiles:list`; keychainError explains what is missing when the OS keychain is unavailable. */
export const profileListingSchema = z.object({
  profiles: z.array(profileSummarySchema),
  activeProfileId: z.string(),
  keychainError: z.object({ problem: z.string(), message: z.string() }).nullable(),
});

/** Outcome of testing a stored key against account info. */
export const keyTestSchema = z.object({
  status: z.enum(['ok', 'auth', 'network']),
  message: z.string(),
  httpStatus: z.number().int().optional(),
});

/** The contract version notice shown when the service publishes another version than the app was built for. */
export const contractNoticeSchema = z.object({ expected: z.string(), actual: z.string().nullable(), message: z.string() });

const operationRefSchema = z.object({ method: z.string(), path: z.string(), operationId: z.string().nullable() });

/** What changed in the service's specification since the copy cached for the same base URL. */
export const specDriftSchema = z.object({
  previous: z.object({ version: z.string().nullable(), fetchedAt: z.string() }),
  current: z.object({ version: z.string().nullable(), fetchedAt: z.string() }),
  detectedAt: z.string(),
  operations: z.object({
    added: z.array(operationRefSchema),
    removed: z.array(operationRefSchema),
    renamed: z.array(z.object({ from: operationRefSchema, to: operationRefSchema })),
  }),
  fields: z.array(z.object({
    operation: z.string(),
    section: z.enum(['parameter', 'body', 'response']),
    change: z.enum(['added', 'removed', 'renamed', 'retyped']),
    field: z.string(),
    to: z.string().optional(),
    type: z.string(),
    fromType: z.string().optional(),
  })),
});

/** State of the active service connection. */
export const serviceStatusSchema = z.object({
  profileId: z.string(),
  label: z.string(),
  baseUrl: z.string().nullable(),
  demo: z.boolean(),
  state: z.enum(['idle', 'connecting', 'online', 'offline']),
  detail: z.string().optional(),
  contractNotice: contractNoticeSchema.nullable(),
  specDrift: specDriftSchema.nullable(),
  specSource: z.enum(['network', 'cache']).nullable(),
  concurrency: z.number().int(),
  limits: z.object({ maxCompositeAreaKm2: z.number().nullable(), maxTotalBands: z.number().nullable() }),
});

/** An operation built from the service's specification, with JSON Schemas the renderer draws a form from. */
export const openOperationSchema = z.object({
  key: z.string(),
  operationId: z.string().nullable(),
  method: z.string(),
  path: z.string(),
  summary: z.string().nullable(),
  deprecated: z.boolean(),
  parameters: recordSchema,
  body: recordSchema.nullable(),
  bodyRequired: z.boolean(),
});

/** A tasking model from /api/tasking/models. */
export const taskingModelSchema = z.object({
  Model: z.string(),
  SupportedSatelliteConstellations: z.array(z.object({ SatelliteConstellation: z.string(), Optional: z.boolean() })),
});

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

/** How a composite will be fetched: one request, or parts cut on the output pixel grid (and per date for a series), with the summed estimate. */
/** A file of the analyst's library that an identical request would buy again (the same date, area, model, constellations and output settings). */
export const libraryCopySchema = z.object({ id: z.string(), path: z.string(), date: z.string().nullable() });

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

/** User settings kept by main. */
export const settingsSchema = z.object({
  downloadDir: folder(),
  theme: z.enum(['system', 'light', 'dark']),
  osmLayer: z.boolean(),
  /** The last map view (lon/lat centre and zoom), restored at start; absent before the first move. */
  mapView: z.object({
    center: z.tuple([z.number().min(-180).max(180), z.number().min(-90).max(90)]),
    zoom: z.number().min(0).max(24),
  }).optional(),
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

const data = z.object({ data: z.unknown() });

/** THE channel map: channel name -> request and response schema. */
export const channels = {
  /** App version, platform and the active service (label, base URL, demo flag). */
  'app:info': channel(noRequest, appInfoSchema),
  /** Calls account info with the active key and reports reachability. */
  'service:ping': channel(noRequest, pingSchema),
  /** Connection state, contract notice and limits of the active service. */
  'service:status': channel(noRequest, serviceStatusSchema),
  /** Drops the cached connection and connects again (reloads the specification and models). */
  'service:reconnect': channel(noRequest, serviceStatusSchema),
  /** Operations built from the discovered specification (orders, tiles, products, plans, vouchers), with their schemas. */
  'service:operations': channel(noRequest, z.object({ operations: z.array(openOperationSchema) })),
  /** Calls one spec-built operation with parameters and body validated against the specification. */
  'service:call': channel(z.strictObject({ key: boundedText(MAX_ID).min(1), params: jsonRecord().optional(), body: jsonValue().optional() }), data),

  /** Profiles with key presence and last 4 characters only. */
  'profiles:list': channel(noRequest, profileListingSchema),
  /** Creates a profile; the optional key goes straight to the OS keychain. */
  'profiles:create': channel(z.strictObject({ name: boundedText(MAX_NAME), baseUrl: boundedText(MAX_URL), key: boundedText(MAX_SECRET).optional() }), profileSummarySchema),
  /** Renames a profile or changes its base URL. */
  'profiles:update': channel(z.strictObject({ id: id(), name: boundedText(MAX_NAME).optional(), baseUrl: boundedText(MAX_URL).optional() }), profileSummarySchema),
  /** Deletes a profile and its key. */
  'profiles:delete': channel(byId, z.object({ deleted: z.literal(true) })),
  /** Makes a profile the active service. */
  'profiles:activate': channel(byId, profileSummarySchema),
  /** Sets or replaces a profile's key (write-only: it never comes back). */
  'profiles:set-key': channel(z.strictObject({ id: id(), key: boundedText(MAX_SECRET) }), profileSummarySchema),
  /** Deletes a profile's key from the keychain. */
  'profiles:delete-key': channel(byId, profileSummarySchema),
  /** Tests a profile's stored key against account info. */
  'profiles:test-key': channel(byId, keyTestSchema),
  /**
   * Asks main to let a key go to the profile's new origin: main raises its own native dialog (the
   * renderer cannot answer it); refused where there is none (browser host): enter the key again.
   */
  'profiles:confirm-origin': channel(byId, profileSummarySchema),

  /** Account info of the active key (fields as the service sends them). */
  'account:info': channel(noRequest, data),
  /** Account settings (fields as the service sends them). */
  'account:settings': channel(noRequest, data),
  /** Billing overview of the current month. */
  'billing:summary': channel(noRequest, data),
  /** Orders and their costs for a month. */
  'billing:orders': channel(yearMonth, data),
  /** Balance transactions for a month. */
  'billing:transactions': channel(yearMonth, data),

  /** search/available: dates with imagery in an area and period. */
  'imagery:search': channel(serviceBody, data),
  /** composite/available: whether one exact composite request can be fulfilled. */
  'imagery:available': channel(serviceBody, data),
  /** composite/estimate: download credit, and main's verdict on downloading it against the budget. */
  /** `inLibrary`: the identical file already in the analyst's library (then downloads:enqueue refuses without `buyAnyway`), or null. */
  'imagery:estimate': channel(serviceBody, z.object({ data: z.unknown(), verdict: spendVerdictSchema, inLibrary: libraryCopySchema.nullable() })),
  /** The deprecated geography/composite operation. */
  'imagery:legacy-composite': channel(serviceBody, data),

  /** Tasking models and their constellations (cached per connection). */
  'tasking:models': channel(noRequest, z.object({ models: z.array(taskingModelSchema) })),
  /** Estimates an order; returns the exact payload to send to create, and main's verdict on placing it against the budget. */
  'tasking:estimate': channel(serviceBody, z.object({ estimate: z.unknown(), payload: z.string(), verdict: spendVerdictSchema })),
  /**
   * Creates an order from the estimated payload, byte for byte; never retried automatically. Main's
   * spend guard decides first, from its own estimate of that payload: past the budget or at an
   * unknown cost only with the analyst's consent in main's native dialog; never past the policy's ceiling.
   */
  'tasking:create': channel(z.strictObject({ payload: boundedText(MAX_PAYLOAD_TEXT).min(2), tileDeduplication: z.boolean().optional() }), data),

  /** The download queue. */
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

  /** Every local raster. */
  /** One page of the library, filtered (search words, source, dates, area), sorted and counted in main from its indexes. */
  'library:query': channel(libraryQuerySchema, libraryPageSchema),
  /** The rasters whose footprint meets a lon/lat box (the footprint index), oldest image first, with how many there are. */
  'library:cover': channel(libraryCoverSchema, z.object({ total: z.number().int(), entries: z.array(libraryEntrySchema) })),
  /** Adds existing GeoTIFF files to the library. */
  /**
   * Previews a teammate's raster (an id from `team:check`) on the map without copying it: main reads
   * it over the policy's read URL; the entry's id is the raster id the map opens, its path the URL.
   */
  'team:preview': channel(z.strictObject({ id: z.string().min(1, 'id is required.').max(100, 'id is at most 100 characters.') }), libraryEntrySchema),
  'library:import': channel(z.strictObject({ paths: z.array(folder().min(1)).min(1).max(MAX_SELECTION, tooMany(MAX_SELECTION)) }), z.object({ entries: z.array(libraryEntrySchema) })),
  /** Removes a raster from the library, optionally deleting its file. */
  'library:remove': channel(z.strictObject({ id: id(), deleteFile: z.boolean() }), z.object({ removed: z.literal(true) })),

  /** Writes the library (or the given rasters) as a static STAC catalog into a folder the analyst chooses (the browser host: under the download folder). */
  'export:stac': channel(stacExportRequestSchema, stacExportSchema),
  /** Writes features (AOI, orders, watches) as a GeoJSON FeatureCollection file. */
  'export:geojson': channel(geojsonExportRequestSchema, geojsonExportSchema),
  /** Writes a CSV (a time series) as a file; never over an existing one unless asked to (`onExisting`). */
  'export:csv': channel(csvExportRequestSchema, csvExportSchema),

  /** User settings. */
  'settings:get': channel(noRequest, settingsSchema),
  /** Changes some settings. */
  'settings:set': channel(settingsSchema.partial().strict(), settingsSchema),

  /** How a library raster is previewed; builds (once, cached) an overview copy of a non-COG file, with 'library:overview-progress' events, or first a quick look of it. */
  'library:preview': channel(previewRequestSchema, previewStatusSchema),
  /** Shows a library raster in the system file manager. */
  'library:reveal': channel(byId, z.object({ revealed: z.boolean() })),

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
  /** Opens the system file dialog (where the host has one) and imports the chosen GeoTIFFs. */
  'library:import-dialog': channel(noRequest, z.object({ entries: z.array(libraryEntrySchema), cancelled: z.boolean() })),

  /** Version, contract version and the licences of the bundled dependencies. */
  'app:about': channel(noRequest, aboutSchema),
  /** The admin policy: what it fixes, or why the file was ignored. */
  'policy:get': channel(noRequest, policyViewSchema),
  /** The diagnostics report as text (version, OS, profile origins, log tail, queue, userData files); never a key. */
  'diagnostics:get': channel(diagnosticsRequestSchema, z.object({ text: z.string() })),
  /** Saves the diagnostics report with the system save dialog (where the host has one). */
  'diagnostics:save': channel(diagnosticsRequestSchema, z.object({ saved: z.boolean(), path: z.string().nullable() })),
  /** Logs an uncaught renderer error in main's log (redacted). */
  // logged is false when the report was over the rate limit (main logs how many it dropped).
  'app:report-error': channel(errorReportSchema, z.object({ logged: z.boolean() })),
  /** Where updates stand. */
  'updates:status': channel(noRequest, updateStatusSchema),
  /** Looks for an update now. */
  'updates:check': channel(noRequest, updateStatusSchema),
  /** Restarts into the downloaded update; the user asked for it. */
  'updates:install': channel(noRequest, updateStatusSchema),
  /** Chooses the stable or beta channel, unless the policy fixes it. */
  'updates:set-channel': channel(z.strictObject({ channel: z.enum(['stable', 'beta']) }), updateStatusSchema),

  /** Time series and change layers (preload/contract/analysis.ts). */
  ...analysisChannels,
  /** Watches (./watches). */
  ...watchChannels,
  /** The spend guard (./spend). */
  ...spendChannels,
  /** Notifications (./notifications). */
  ...notificationChannels,
  /** The team library (./team). */
  ...teamChannels,
  /** The one-page brief (./brief). */
  ...briefChannels,
  /** Films (./timelapse). */
  ...timelapseChannels,
} satisfies ChannelMap;

/** The real contract's channel map type. */
export type Channels = typeof channels;

/** Name of a channel of the real contract. */
export type ChannelName = keyof Channels;

/** Every channel name, in declaration order. */
export const channelNames = Object.keys(channels) as ChannelName[];

/** What a caller passes for channel `C` (before zod defaults/transforms). */
export type RequestOf<C extends ChannelName, M extends ChannelMap = Channels> = z.input<M[C]['request']>;

/** What a handler receives for channel `C` (after zod parsing). */
export type ParsedRequestOf<C extends keyof M, M extends ChannelMap = Channels> = z.output<M[C]['request']>;

/** What channel `C` answers with on success. */
export type ResponseOf<C extends keyof M, M extends ChannelMap = Channels> = z.output<M[C]['response']>;

/** Successful payload of `app:info`. */
export type AppInfo = ResponseOf<'app:info'>;

/** Successful payload of `service:ping`. */
export type PingResult = ResponseOf<'service:ping'>;
