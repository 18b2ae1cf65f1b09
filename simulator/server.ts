import { createReadStream } from 'node:fs';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, LookupFunction } from 'node:net';
import { lookup as dnsLookup } from 'node:dns/promises';
import { Readable } from 'node:stream';
import { Agent, fetch as undiciFetch, type BodyInit as UndiciBody } from 'undici';
import type { ZodType } from 'zod';
import { CONSTELLATIONS, MODELS, VOUCHERS, checkModelConstellations } from './catalog.js';
import { isoDate } from './dates.js';
import { Codes, ServiceError, ok, validationError, type FieldErrors } from './envelope.js';
import { parseFaults, seededRandom, type FaultConfig } from './faults.js';
import { parseAoi } from './geo/aoi.js';
import { searchTiles } from './geo/tile-grid.js';
import * as imagery from './imagery.js';
import * as orders from './orders.js';
import { acquisitionPlans, satelliteProducts } from './products.js';
import { RasterCache, planRaster } from './raster/index.js';
import { seedDemoOrders } from './seed.js';
import { sendBytes } from './send-bytes.js';
import { normalizeBody, normalizeQuery } from './requests.js';
import { shapeStyle, type ShapeStyle, type ShapesName, type WireOperation } from './shapes/index.js';
import { buildSpecification } from './spec.js';
import { SimState, round2, type Account, type Lifecycle } from './state.js';
import { isLoopbackHost, isOwnOriginOrNone } from '../main/shared/loopback-host.js';
import { privateTempDir } from '../main/shared/private-temp.js';

/** Options of the simulator. */
export interface SimulatorOptions {
  port?: number;
  host?: string;
  /** JSON file that keeps orders, ledger and vouchers across restarts (written atomically). */
  statePath?: string;
  /** Directory for generated GeoTIFFs; identical requests are served from it. Default: a private temp folder (0700) removed on close. */
  cacheDir?: string;
  seed?: number;
  /** Fault spec, e.g. "5xx=0.2,reset=0.05,truncate=0.1" (see faults.ts). */
  faults?: string | FaultConfig;
  /** Clock, for tests that move time. */
  now?: () => number;
  /** Time an order spends in each status, ms. */
  lifecycle?: Partial<Lifecycle>;
  /** Extra hosts UploadUrl may target besides loopback. */
  allowUploadHosts?: string[];
  /** Answer style: 'production' (default, the production service's shapes) or 'variant'. */
  shapes?: ShapesName | string;
  /** How UploadUrl host names are resolved (once, then pinned); the system resolver by default. */
  uploadLookup?: UploadLookup;
  /**
   * The x-api-key values accepted, each mapped to the documented account it acts as
   * (the embedded demo service: a random key per run -> 'demo-key'). Absent: the
   * documented keys themselves (demo-key, demo-key-empty, demo-key-revoked).
   */
  apiKeys?: Record<string, string>;
  log?: (line: string) => void;
}

/** A running simulator. */
export interface RunningSimulator {
  url: string;
  port: number;
  state: SimState;
  /** The answer style in use. */
  shapes: ShapesName;
  /** Where generated GeoTIFFs are kept. */
  cacheDir: string;
  close(): Promise<void>;
}

type Handler = (ctx: Ctx) => Promise<unknown> | unknown;
interface Ctx {
  acc: Account;
  // Already parsed by the operation's own zod schema (OPERATIONS) before the handler runs.
  /* eslint-disable @typescript-eslint/no-explicit-any */
  body: any;
  query: any;
  params: any;
  /* eslint-enable @typescript-eslint/no-explicit-any */
  res: ServerResponse;
  req: IncomingMessage;
  signal: AbortSignal;
}

/** Marker for handlers that wrote the response themselves. */
const HANDLED = Symbol('handled');

const DEFAULT_LIFECYCLE: Lifecycle = { review: 20_000, preparing: 20_000, awaiting: 20_000, processing: 30_000 };

/** Starts the simulator on loopback and resolves once it listens. */
export async function startSimulator(opts: SimulatorOptions = {}): Promise<RunningSimulator> {
  const now = opts.now ?? Date.now;
  const state = new SimState(now, opts.statePath ?? null, { ...DEFAULT_LIFECYCLE, ...opts.lifecycle });
  await state.load((acc) => seedDemoOrders(state, acc));
  const faults = typeof opts.faults === 'string' || opts.faults == null ? parseFaults(opts.faults) : opts.faults;
  const random = seededRandom(opts.seed ?? 1);
  const style = shapeStyle(opts.shapes);
  const handlers = buildHandlers(state);
  for (const op of style.operations) if (!handlers[op.operationId]) throw new Error(`No handler for ${op.operationId}`);
  // Never a fixed name in the shared temp directory: another local user could pre-create or read it.
  // Made once the options are known good; removed again if the server cannot listen.
  const ownCache = opts.cacheDir ? null : await privateTempDir('swath-sim-cache-');
  const cacheDir = opts.cacheDir ?? ownCache!.path;
  const cache = new RasterCache(cacheDir);
  const log = opts.log ?? (() => {});
  const inflight = new Map<string, number>();
  const allowUpload = new Set((opts.allowUploadHosts ?? []).map((h) => h.toLowerCase()));
  let specCache: string | null = null;

  const server = http.createServer((req, res) => {
    const ac = new AbortController();
    res.on('close', () => ac.abort());
    handle(req, res, ac.signal).catch((e) => {
      log(`simulator: internal error ${(e as Error).stack ?? e}`);
      if (!res.headersSent) sendJson(res, 500, { Data: null, Succeeded: false, Error: { Message: 'Internal error.', Code: Codes.internal } });
      else res.destroy();
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse, signal: AbortSignal): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const method = (req.method ?? 'GET').toLowerCase();
    // DNS rebinding: a page whose name now points at 127.0.0.1 still sends its own name as Host.
    if (!isLoopbackHost(req.headers.host, port)) {
      return sendError(res, new ServiceError(421, Codes.forbidden, `This service answers only as 127.0.0.1:${port} or localhost:${port}.`));
    }
    // A web page may not drive it either: browsers name the page's origin; API clients send none.
    if (!isOwnOriginOrNone(header(req, 'origin'), port)) {
      return sendError(res, new ServiceError(403, Codes.forbidden, 'Requests from web pages are not accepted.'));
    }
    if (url.pathname === '/api/specification.json' && method === 'get') {
      specCache ??= JSON.stringify(buildSpecification(address(), style));
      res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(specCache) });
      res.end(specCache);
      return;
    }
    const match = route(style, method, url.pathname);
    if (match === 'method') return sendError(res, new ServiceError(405, Codes.invalidRequest, `Method ${method.toUpperCase()} is not allowed on ${url.pathname}.`));
    if (!match) return sendError(res, new ServiceError(404, Codes.notFound, `No operation at ${url.pathname}.`));
    const key = header(req, 'x-api-key');
    const accountKey = key && opts.apiKeys ? (Object.hasOwn(opts.apiKeys, key) ? opts.apiKeys[key] : undefined) : key;
    const acc = accountKey ? state.account(accountKey) : undefined;
    if (!key) return sendError(res, new ServiceError(401, Codes.unauthorized, 'The x-api-key header is required.'));
    if (!acc) return sendError(res, new ServiceError(401, Codes.unauthorized, 'The API key is not valid.'));
    if (acc.profile.revoked) return sendError(res, new ServiceError(403, Codes.forbidden, 'The API key has been revoked.'));

    // Faults come after auth so a test can tell a flaky network from a bad key.
    if (faults.reset > 0 && random() < faults.reset) { req.socket.destroy(); return; }
    if (faults.error5xx > 0 && random() < faults.error5xx) {
      return sendError(res, new ServiceError(503, Codes.internal, 'Service temporarily unavailable (injected fault).'));
    }
    const slow = faults.slow > 0 && random() < faults.slow;
    const truncate = faults.truncate > 0 && random() < faults.truncate;

    const used = inflight.get(acc.key) ?? 0;
    if (used >= acc.profile.maxConcurrentConnections) {
      return sendError(res, new ServiceError(429, Codes.tooManyRequests,
        `Too many concurrent requests: the key allows ${acc.profile.maxConcurrentConnections}. Retry after backoff.`, null, { 'Retry-After': '1' }));
    }
    inflight.set(acc.key, used + 1);
    const { op, params } = match;
    try {
      // A slow first byte holds the connection slot, as a busy backend would.
      if (slow) await sleep(faults.slowMs, signal);
      // The style maps its wire names to the handlers' names on the way in, and back on the way out.
      const body = op.body ? op.bodyIn(await readJson(req, op.body) as Record<string, unknown>) : undefined;
      const query = op.query ? op.queryIn(validate(op.query, normalizeQuery(url.searchParams, op.query), 'query') as Record<string, unknown>) : undefined;
      const ctx: Ctx = { acc, body, query, params, res, req, signal };
      const data = await handlers[op.operationId]!(ctx);
      if (data === HANDLED) return;
      if (data && typeof data === 'object' && 'download' in data) {
        await sendDownload(ctx, data.download as imagery.PreparedDownload, truncate);
        return;
      }
      sendJson(res, 200, ok(op.toWire(data)));
    } catch (e) {
      if (e instanceof ServiceError) sendError(res, e.renameFields(op.fieldOut));
      else throw e;
    } finally {
      inflight.set(acc.key, (inflight.get(acc.key) ?? 1) - 1);
      await state.save();
    }
  }

  async function sendDownload(ctx: Ctx, p: imagery.PreparedDownload, truncate: boolean): Promise<void> {
    const plan = planRaster(p.raster);
    if ('error' in plan) throw new ServiceError(400, Codes.invalidRequest, plan.error, { Resolution: [plan.error] });
    const target = p.uploadUrl ? await resolveUploadTarget(p.uploadUrl, allowUpload, opts.uploadLookup ?? systemLookup) : null;
    if (target) {
      const file = await cache.get(p.raster, { signal: ctx.signal });
      await upload(target, file.path, file.bytes, p.fileName);
      imagery.billDownload(state, ctx.acc, p);
      ctx.res.writeHead(201, { 'Content-Length': 0 });
      ctx.res.end();
      return;
    }
    // Readable as soon as it is written: a fresh file goes out while the cache puts it in place.
    const file = await cache.open(p.raster, { signal: ctx.signal });
    const reader = await file.open();
    try {
      imagery.billDownload(state, ctx.acc, p);
      ctx.res.writeHead(200, {
        'Content-Type': 'image/tiff',
        'Content-Length': file.bytes,
        'Content-Disposition': `attachment; filename="${p.fileName}"`,
      });
      const sent = await sendBytes(ctx.res, reader, truncate ? Math.floor(file.bytes / 2) : file.bytes);
      // A truncated body: the socket closes before Content-Length bytes were sent.
      if (truncate || !sent) ctx.res.destroy();
      else ctx.res.end();
    } finally {
      await reader.close();
    }
  }

  function address(): string {
    const a = server.address() as AddressInfo | null;
    return a ? `http://${host}:${a.port}` : '';
  }

  const host = opts.host ?? '127.0.0.1';
  let port = 0;
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(opts.port ?? 0, host, () => resolve());
    });
  } catch (e) {
    await ownCache?.remove();
    throw e;
  }
  // Longer than clients keep idle sockets (undici: 4 s), so a client never reuses a socket the server is closing.
  server.keepAliveTimeout = 60_000;
  server.headersTimeout = 65_000;
  port = (server.address() as AddressInfo).port;
  return {
    url: `http://${host}:${port}`,
    port,
    state,
    shapes: style.name,
    cacheDir,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
      // A file still being put in place (its download may have ended) is renamed before its folder goes.
      await cache.idle();
      await state.save();
      await ownCache?.remove();
    },
  };
}

function buildHandlers(state: SimState): Record<string, Handler> {
  const aoiOf = (body: { Wkt?: unknown; GeoJson?: unknown }) => {
    const r = parseAoi(body, { required: true });
    if (!r.ok) throw validationError(r.errors);
    return r.geometry!;
  };
  const monthOf = (params: { year: number; month: number }) => {
    const bad: FieldErrors = {};
    if (params.year < 2000 || params.year > 2100) bad.year = ['year must be between 2000 and 2100.'];
    if (params.month < 1 || params.month > 12) bad.month = ['month must be between 1 and 12.'];
    if (Object.keys(bad).length) throw validationError(bad);
    return `${params.year}-${String(params.month).padStart(2, '0')}`;
  };
  const monthLedger = (acc: Account, ym: string) => acc.ledger.filter((e) => isoDate(e.at).slice(0, 7) === ym);
  const accountInfo: Handler = ({ acc }) => {
    const p = acc.profile;
    const balance = state.balance(acc);
    return {
      Key: acc.key, TenantId: p.tenantId, KeyName: p.name, Plan: p.plan, KeyEnding: acc.key.slice(-4),
      CreditAmount: Math.floor(balance), EuroCreditAmount: balance,
      CreditLimit: Math.floor(p.euroOverdraftLimit), EuroCreditLimit: Math.floor(p.euroOverdraftLimit),
      ContactInfo: p.contactInfo ?? p.name, Email: p.email ?? null,
      MaxConcurrentConnections: p.maxConcurrentConnections, MaxCompositeAreaKm2: Math.floor(p.maxCompositeAreaKm2),
      MaxTotalBands: p.maxTotalBands, EuroOverdraftLimit: p.euroOverdraftLimit,
      EuroBalanceCap: p.euroBalanceCap, EuroBalance: balance,
      CurrentMonthCosts: round2(orders.monthSpend(acc, state.now())), NextMonthCosts: orders.nextMonthCosts(acc),
    };
  };
  return {
    Account_GetInfo: accountInfo,
    ApiKey_GetInfo: accountInfo,
    Account_GetSettings: () => ({
      DefaultModel: 'Stratus2', DefaultEpsgProjection: 47000, DefaultResolution: 10, DefaultDataType: 'INT16',
      StorageMonthsIncluded: 1, CreditExpiryMonths: 12, UploadAllowedHosts: ['127.0.0.1', 'localhost', '::1'], TimeZone: 'UTC',
    }),
    Billing_GetSummary: ({ acc }) => {
      const ym = isoDate(state.now()).slice(0, 7);
      const rows = monthLedger(acc, ym);
      const sum = (k: string[]) => round2(-rows.filter((e) => k.includes(e.kind)).reduce((s, e) => s + e.amount, 0));
      const balance = state.balance(acc);
      const tier = orders.monthSpend(acc, state.now());
      return {
        Year: Number(ym.slice(0, 4)), Month: Number(ym.slice(5)), CurrencyCode: 'EUR',
        OpeningBalance: round2(balance - rows.reduce((s, e) => s + e.amount, 0)), EuroBalance: balance,
        OrdersTotal: sum(['Order', 'Refund']), DownloadsTotal: sum(['Download']), VouchersTotal: -sum(['Voucher', 'TopUp']),
        OrderCount: rows.filter((e) => e.kind === 'Order').length, DownloadCount: rows.filter((e) => e.kind === 'Download').length,
        CurrentTierRatePerKm2: {
          Stratus: orders.pricePerKm2({ model: 'Stratus2', constellations: [], mode: 'Wkt' }, tier),
          Nimbus: orders.pricePerKm2({ model: 'Nimbus', constellations: [], mode: 'Wkt' }, tier),
        },
      };
    },
    Billing_GetOrders: ({ acc, params }) => {
      const ym = monthOf(params);
      const list = acc.orders.filter((o) => isoDate(o.createdAt).slice(0, 7) === ym).map((o) => ({
        TaskOrderGuid: o.guid, CreatedAt: new Date(o.createdAt).toISOString(), Model: o.model, AreaKm2: round2(o.areaKm2),
        Recurring: o.to == null, Status: orders.orderStatus(o, state), Cost: o.canceledAt != null ? 0 : o.cost,
      }));
      return { Year: params.year, Month: params.month, CurrencyCode: 'EUR', Orders: list, Total: round2(list.reduce((s, o) => s + o.Cost, 0)) };
    },
    Billing_GetTransactions: ({ acc, params }) => {
      const ym = monthOf(params);
      let running = round2(acc.ledger.filter((e) => isoDate(e.at).slice(0, 7) < ym).reduce((s, e) => s + e.amount, 0));
      const rows = monthLedger(acc, ym).map((e) => {
        running = round2(running + e.amount);
        return { TransactionGuid: e.guid, Timestamp: new Date(e.at).toISOString(), Kind: e.kind, Description: e.description, Amount: e.amount, BalanceAfter: running, Reference: e.reference };
      });
      return { Year: params.year, Month: params.month, CurrencyCode: 'EUR', Transactions: rows, Total: round2(rows.reduce((s, r) => s + r.Amount, 0)) };
    },
    Billing_RedeemVoucher: ({ acc, body }) => {
      const code = String(body.VoucherCode).trim().toUpperCase();
      const value = VOUCHERS[code];
      if (value === undefined) throw new ServiceError(400, Codes.invalidRequest, 'Unknown voucher code.', { VoucherCode: [`'${body.VoucherCode}' is not a valid voucher code.`] });
      if (acc.vouchers[code] !== undefined) {
        const when = new Date(acc.vouchers[code]!).toISOString();
        throw new ServiceError(400, Codes.invalidRequest, 'Voucher already redeemed.', { VoucherCode: [`Voucher ${code} was already redeemed on ${when}.`] });
      }
      if (state.balance(acc) + value > acc.profile.euroBalanceCap) {
        throw new ServiceError(400, Codes.invalidRequest, 'Balance cap reached.', { VoucherCode: [`Redeeming would exceed the balance cap of ${acc.profile.euroBalanceCap} EUR.`] });
      }
      acc.vouchers[code] = state.now();
      state.addLedger(acc, 'Voucher', value, `Voucher ${code}`, code);
      return { VoucherCode: code, CreditAdded: value, CurrencyCode: 'EUR', EuroBalance: state.balance(acc), RedeemedAt: new Date(state.now()).toISOString() };
    },
    SatelliteImages_GeographyComposite: ({ acc, body }) => {
      const aoi = aoiOf({ Wkt: body.Wkt });
      const to = periodEnd(body, 'To', true)!;
      return imagery.geographyComposite(state, acc, aoi, body.From, to);
    },
    SatelliteImages_SearchAvailable: ({ acc, body }) => {
      const aoi = aoiOf(body);
      const until = periodEnd(body, 'Until', false);
      if (body.Model) {
        const errs = checkModelConstellations(body.Model, body.SatelliteConstellations);
        if (Object.keys(errs).length) throw validationError(errs);
      }
      return imagery.searchAvailable(state, acc, aoi, body.From, until, body.Model, body.SatelliteConstellations);
    },
    SatelliteImages_CompositeAvailable: ({ acc, body }) => imagery.compositeAvailable(state, acc, body),
    SatelliteImages_CompositeEstimate: ({ acc, body }) => imagery.compositeEstimate(state, acc, body),
    SatelliteImages_ProcessComposite: ({ acc, body }) => ({ download: imagery.prepareComposite(state, acc, body) }),
    SatelliteImages_ProcessTile: ({ acc, body }) => ({ download: imagery.prepareTile(state, acc, body, false) }),
    SatelliteImages_ProcessMiniTile: ({ acc, body }) => ({ download: imagery.prepareTile(state, acc, body, true) }),
    SatelliteProducts_SatelliteZonesComposite: ({ body }) => {
      const aoi = aoiOf(body);
      const to = periodEnd(body, 'To', true)!;
      checkConstellations(body.SatelliteConstellations);
      return satelliteProducts(aoi, body.From, to, body.SatelliteConstellations);
    },
    SatelliteProducts_AcquisitionPlans: ({ body }) => {
      const aoi = aoiOf(body);
      const to = body.From ? periodEnd(body, 'To', false) : (body.To ?? body.Until ?? null);
      checkConstellations(body.SatelliteConstellations);
      return acquisitionPlans(aoi, state.now(), body.From, to, body.SatelliteConstellations);
    },
    Tasking_GetModels: () => ({
      TaskingModels: MODELS.map((m) => ({ Model: m.Model, SupportedSatelliteConstellations: m.SupportedSatelliteConstellations })),
    }),
    Tasking_SearchTiles: ({ body }) => {
      const aoi = aoiOf(body);
      const { cells, truncated } = searchTiles(aoi, { miniTiles: body.MiniTiles, limit: body.MaxResults });
      return { Tiles: cells.map((c) => ({ Guid: c.Guid, MiniTile: c.MiniTile, Epsg: String(c.Epsg), DataGeogWkt: c.DataGeogWkt, AreaKm2: round2(c.areaKm2) })), Truncated: truncated };
    },
    Tasking_ListOrders: ({ acc, query }) => ({
      TaskOrders: acc.orders
        .filter((o) => (query.recurringOnly !== 'true' || o.to == null) && (query.getExpired === 'true' || !orders.orderExpired(o, state)))
        .map((o) => orders.orderDto(o, state)),
    }),
    Tasking_GetOrderDetails: ({ acc, query }) => {
      const o = acc.orders.find((x) => x.guid.toLowerCase() === String(query.taskOrderGuid).toLowerCase());
      if (!o) throw new ServiceError(404, Codes.notFound, `Order ${query.taskOrderGuid} was not found for this API key.`);
      return orders.orderDetailsDto(o, state);
    },
    Tasking_EstimateOrder: ({ acc, body }) => {
      const resolved = orders.resolveOrder(body);
      acc.lastEstimate = orders.canonicalOrder(body);
      return orders.estimateOrder(acc, resolved, state.now(), body.SimulatedEuroUsage);
    },
    Tasking_CreateOrder: ({ acc, body }) => {
      const resolved = orders.resolveOrder(body);
      orders.assertMatchesEstimate(acc, body);
      const created = orders.createOrder(state, acc, resolved, body.TileDeduplication);
      acc.lastEstimate = null;
      return orders.orderDto(created, state);
    },
    Tasking_CancelOrder: ({ acc, query }) => orders.cancelOrder(state, acc, query.taskOrderGuid),
  };
}

function checkConstellations(list: string[] | null | undefined): void {
  const bad = (list ?? []).filter((c) => !(CONSTELLATIONS as readonly string[]).includes(c));
  if (bad.length) throw validationError({ SatelliteConstellations: bad.map((c) => `Unknown constellation '${c}'. Valid values: ${CONSTELLATIONS.join(', ')}.`) });
}

/**
 * The end of a period given as To or Until (guides use both names); the first name is the one
 * a missing end is reported under. Checks that it does not come before From.
 */
function periodEnd(body: { From: string; To?: string | null; Until?: string | null }, primary: 'To' | 'Until', required: boolean): string | null {
  const field = body.To != null ? 'To' : body.Until != null ? 'Until' : null;
  if (!field) {
    if (required) throw validationError({ [primary]: [`The ${primary} field is required.`] });
    return null;
  }
  const end = body[field]!;
  checkPeriod(body.From, end, field);
  return end;
}

function checkPeriod(from: string, to: string, toField: string): void {
  if (Date.parse(from.length === 10 ? `${from}T00:00:00Z` : from) > Date.parse(to.length === 10 ? `${to}T00:00:00Z` : to)) {
    throw validationError({ From: [`From must not be after ${toField}.`], [toField]: [`${toField} must not be before From.`] });
  }
}

/** Matches a request to an operation; 'method' when the path exists with another method. */
function route(style: ShapeStyle, method: string, pathname: string): { op: WireOperation; params: Record<string, number> } | 'method' | null {
  let pathMatched = false;
  for (const op of style.operations) {
    if (op.path.includes('{year}-{month}')) {
      const prefix = op.path.slice(0, op.path.indexOf('{'));
      if (!pathname.startsWith(prefix)) continue;
      const m = /^(\d{1,4})-(\d{1,2})$/.exec(pathname.slice(prefix.length));
      // A malformed year-month is a wrong path, not a bad value: 404.
      if (!m) continue;
      pathMatched = true;
      if (op.method === method) return { op, params: { year: Number(m[1]), month: Number(m[2]) } };
      continue;
    }
    if (op.path === pathname.replace(/\/+$/, '')) {
      pathMatched = true;
      if (op.method === method) return { op, params: {} };
    }
  }
  return pathMatched ? 'method' : null;
}

function header(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/**
 * Request bodies above this are refused before parsing: an AOI at the vertex cap (20,000) takes
 * under 1 MB of WKT or GeoJSON, so 4 MiB leaves room while a 10 MB body is never buffered whole.
 */
export const MAX_BODY = 4 * 1024 * 1024;

/**
 * A body past {@link MAX_BODY} is read on and thrown away up to this size, so the client, still
 * sending, gets the refusal: a socket closed with unread data is reset, and the reset can take the
 * answer with it. Past this the connection is cut.
 */
const MAX_DRAIN = 64 * 1024 * 1024;

async function readJson(req: IncomingMessage, schema: ZodType): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of req) {
    size += (c as Buffer).length;
    if (size > MAX_DRAIN) break;
    if (size <= MAX_BODY) chunks.push(c as Buffer);
  }
  if (size > MAX_BODY) {
    chunks.length = 0;
    throw validationError({ Body: [`The request body is larger than ${MAX_BODY / 1024 / 1024} MiB.`] });
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (!text.trim()) throw validationError({ Body: ['A JSON request body is required.'] });
  const type = header(req, 'content-type') ?? '';
  if (!/application\/(.+\+)?json/i.test(type)) {
    throw new ServiceError(415, Codes.invalidRequest, 'Content-Type must be application/json.', { 'Content-Type': [`Expected application/json, got '${type || 'none'}'.`] });
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    throw validationError({ Body: [`The body is not valid JSON: ${(e as Error).message}`] });
  }
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) throw validationError({ Body: ['The body must be a JSON object.'] });
  return validate(schema, normalizeBody(raw as Record<string, unknown>, schema), 'body');
}

function validate(schema: ZodType, data: Record<string, unknown>, where: 'body' | 'query'): unknown {
  const r = schema.safeParse(data);
  if (r.success) return r.data;
  const fields: FieldErrors = {};
  for (const issue of r.error.issues) {
    const key = issue.path.length ? String(issue.path[0]) : where === 'body' ? 'Body' : 'Query';
    const missing = issue.path.length === 1 && data[key] === undefined;
    (fields[key] ??= []).push(missing ? `The ${key} field is required.` : issue.path.length > 1 ? `${issue.path.join('.')}: ${issue.message}` : issue.message);
  }
  throw validationError(fields);
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

function sendError(res: ServerResponse, e: ServiceError): void {
  sendJson(res, e.status, e.toEnvelope(), e.headers);
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const t = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => { clearTimeout(t); resolve(); }, { once: true });
  });
}

/** Refuses UploadUrl targets other than loopback (and explicitly allowed hosts). */
/** Resolves a host name to its addresses (dns.lookup with all: true); injectable for tests. */
export type UploadLookup = (hostname: string) => Promise<{ address: string; family: number }[]>;

const systemLookup: UploadLookup = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

/** Where an upload goes: the URL as given and the one address it was checked against. */
interface UploadTarget {
  url: URL;
  address: string;
  family: number;
}

function isLoopbackAddress(address: string): boolean {
  const a = address.toLowerCase().replace(/^::ffff:/, '');
  return a === '::1' || /^127\.\d+\.\d+\.\d+$/.test(a);
}

/**
 * Checks UploadUrl and pins where it goes: the name must be loopback (or
 * allow-listed), and it is resolved once here; every address must be loopback
 * (unless allow-listed), and the upload connects to the address checked, so a
 * name that resolves differently a moment later cannot move it.
 */
async function resolveUploadTarget(raw: string, allow: Set<string>, lookup: UploadLookup): Promise<UploadTarget> {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw validationError({ UploadUrl: ['UploadUrl is not a valid absolute URL.'] });
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw validationError({ UploadUrl: ['UploadUrl must use http or https.'] });
  const host = u.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  const allowed = allow.has(host);
  const loopback = host === 'localhost' || isLoopbackAddress(host);
  if (!loopback && !allowed) {
    throw validationError({ UploadUrl: [`This simulator only uploads to loopback addresses (127.0.0.1, ::1, localhost); '${host}' is refused. Start it with --allow-upload-host ${host} to permit it.`] });
  }
  let addresses: { address: string; family: number }[];
  try {
    addresses = await lookup(host);
  } catch (e) {
    throw validationError({ UploadUrl: [`The UploadUrl host '${host}' could not be resolved: ${(e as Error).message}.`] });
  }
  if (addresses.length === 0) throw validationError({ UploadUrl: [`The UploadUrl host '${host}' has no address.`] });
  const outside = addresses.find((a) => !isLoopbackAddress(a.address));
  if (outside && !allowed) {
    throw validationError({ UploadUrl: [`The UploadUrl host '${host}' resolves to ${outside.address}, which is not a loopback address; refused.`] });
  }
  return { url: u, address: addresses[0]!.address, family: addresses[0]!.family };
}

async function upload(target: UploadTarget, file: string, bytes: number, fileName: string): Promise<void> {
  // Connect to the address that was checked, whatever the name resolves to now.
  const pinned: LookupFunction = (_hostname, options, callback) => {
    if ((options as { all?: boolean }).all) (callback as (e: null, a: { address: string; family: number }[]) => void)(null, [{ address: target.address, family: target.family }]);
    else callback(null, target.address, target.family);
  };
  const dispatcher = new Agent({ connect: { lookup: pinned } });
  let res: Awaited<ReturnType<typeof undiciFetch>>;
  try {
    try {
      res = await undiciFetch(target.url, {
        method: 'PUT',
        body: Readable.toWeb(createReadStream(file)) as unknown as UndiciBody,
        headers: { 'Content-Type': 'image/tiff', 'Content-Length': String(bytes), 'Content-Disposition': `attachment; filename="${fileName}"` },
        duplex: 'half',
        // A redirect would lead the upload to a target nobody checked.
        redirect: 'manual',
        dispatcher,
      });
    } catch (e) {
      throw new ServiceError(400, Codes.invalidRequest, `Upload to UploadUrl failed: ${(e as Error).message}.`, { UploadUrl: [`The upload target could not be reached: ${(e as Error).message}.`] });
    }
    await res.arrayBuffer().catch(() => undefined);
    if (res.status >= 300 && res.status < 400) {
      throw new ServiceError(400, Codes.invalidRequest, `Upload to UploadUrl failed: the target redirected (HTTP ${res.status}); redirects are not followed.`, { UploadUrl: [`The upload target redirected (HTTP ${res.status}); give the final address.`] });
    }
    if (!res.ok) {
      throw new ServiceError(400, Codes.invalidRequest, `Upload to UploadUrl failed: the target answered ${res.status}.`, { UploadUrl: [`The upload target answered HTTP ${res.status}.`] });
    }
  } finally {
    await dispatcher.close().catch(() => undefined);
  }
}

