import type { ConnectionState } from '../../preload/contract/events';
import { accountLimits } from './account-limits.js';
import { ApiError, validationFailure, type FieldErrors } from './errors.js';
import { createNodeFetch, type HttpFetch, type NodeHttpFetch } from './http.js';
import { DEFAULT_CONCURRENCY, Limiter } from './limiter.js';
import type { RetryPolicy } from './retry.js';
import type { Clock } from '../platform/clock.js';
import type { SecretRegistry } from '../platform/secrets.js';
import { requireCanonical } from './canonical-body.js';
import { SchemaValidator } from './schema-validation.js';
import {
  contractNoticeFor, discoverSpec, findOperation,
  type ContractNotice, type DiscoveredSpec, type JsonSchema, type ParameterLocation, type SpecDrift, type SpecOperation,
} from './spec.js';
import { Transport, type AttemptEvent, type BinaryResult, type CallOptions, type RequestSpec } from './transport.js';
import type {
  AccountInfo, CompositeAvailableRequest, CompositeEstimateRequest, CompositeRequest, GeographyCompositeRequest,
  MiniTileRequest, OrderEstimate, OrderRequest, SearchAvailableRequest, ServiceRecord, TaskingModel, TaskingModelList, TileRequest,
} from './types.js';
import {
  validateComposite, validateCompositeAvailable, validateCompositeEstimate, validateGeographyComposite, validateOrder,
  validateSearchAvailable, validateTile, validateYearMonth, type ValidationContext, type ValidationResult,
} from './validation.js';

/** The contract version this client was built for. */
export const BUILT_FOR_CONTRACT_VERSION = '1.0.0';

/** Options of {@link ServiceClient}. */
export interface ServiceClientOptions {
  /** Base address of the service (the active profile's). */
  baseUrl: string;
  /** Returns the API key; called per attempt, and the key never leaves the transport. */
  getKey: () => Promise<string>;
  /** HTTP implementation; defaults to undici with HTTPS_PROXY / NO_PROXY support. In Electron pass createElectronFetch(). */
  fetch?: HttpFetch;
  /** The app's secret registry (the transport adds the key it sends and masks every answer against it). */
  secrets: SecretRegistry;
  /** The app's clock (when the specification was fetched, when it changed); the system clock by default. */
  clock?: Clock;
  /** Directory where the discovered specification is cached per base URL. */
  cacheDir: string;
  /** Contract version the app was built for; a different info.version yields a {@link ContractNotice}. */
  contractVersion?: string;
  /** Overrides of the retry policy (attempts, delays, and for tests sleep / random / now). */
  retry?: Partial<RetryPolicy>;
  /** Receives log lines; they never contain the key. */
  log?: (line: string) => void;
  /** Default timeout of JSON calls, ms. */
  timeoutMs?: number;
  /** Default time to response headers of binary calls, ms. */
  binaryTimeoutMs?: number;
  /** Concurrency until account info reports MaxConcurrentConnections (default 2). */
  initialConcurrency?: number;
  /** Told whenever {@link ServiceClient.connectionState} changes. */
  onConnectionState?: (state: ClientConnectionState, detail?: string) => void;
  /** Told about every HTTP attempt (status, failure kind); for diagnostics and tests. */
  onAttempt?: (event: AttemptEvent) => void;
}

/** 'idle' before the first connect, then the IPC connection states. */
export type ClientConnectionState = 'idle' | ConnectionState;

/** Per-call options of the typed operations. */
export interface ClientCallOptions extends CallOptions {
  /** false skips client-side validation (the service still validates). */
  validate?: boolean;
}

/** Summary of the discovered specification. */
export interface SpecSummary {
  version: string | null;
  title: string | null;
  source: 'network' | 'cache';
  fetchedAt: string;
}

/** What {@link ServiceClient.connect} found. */
export interface ConnectResult {
  account: AccountInfo;
  models: TaskingModel[];
  spec: SpecSummary;
  contractNotice: ContractNotice | null;
  /** Requests allowed in flight, from the account's MaxConcurrentConnections. */
  concurrency: number;
}

/** Keys of the operations built from the discovered specification (the contract does not show their parameters or body). */
export type OpenOperationKey =
  | 'billing.redeemVoucher'
  | 'satelliteImages.geographyComposite'
  | 'satelliteProducts.composite'
  | 'satelliteProducts.acquisitionPlans'
  | 'tasking.searchTiles'
  | 'tasking.orders.list'
  | 'tasking.orders.details'
  | 'tasking.orders.cancel';

/** An operation built from the specification, with the schemas the renderer draws a form from. */
export interface OpenOperation {
  key: OpenOperationKey;
  operationId: string | null;
  method: string;
  /** Path template as the specification writes it. */
  path: string;
  summary: string | null;
  description: string | null;
  /** Object schema of the query / path / header parameters. */
  parameters: JsonSchema;
  parameterLocations: Record<string, ParameterLocation>;
  /** Schema of the JSON body, or null when there is none. */
  body: JsonSchema | null;
  bodyRequired: boolean;
  deprecated: boolean;
  /** Whether transient failures are retried unless the caller says otherwise. */
  retries: boolean;
}

/** Input of {@link ServiceClient.callOpen}. */
export interface OpenCallInput {
  params?: Record<string, unknown>;
  body?: unknown;
}

/** One entry of {@link ServiceClient.operations}: every operation the client knows. */
export interface OperationInfo {
  key: string;
  method: string;
  path: string;
  kind: 'typed' | 'open' | 'binary';
  deprecated: boolean;
  /** Whether the discovered specification has it (false also before any specification is loaded). */
  inSpec: boolean;
}

interface CatalogEntry {
  method: string;
  path: string;
  kind: OperationInfo['kind'];
  retries: boolean;
  deprecated?: boolean;
}

/** Method + path of each operation the contract shows; their parameters for the open ones come from the specification. */
const OPEN_OPERATIONS: Record<OpenOperationKey, CatalogEntry> = {
  // Redeeming adds credit: never repeat it behind the user's back.
  'billing.redeemVoucher': { method: 'POST', path: '/api/billing/vouchers/redeem', kind: 'open', retries: false },
  'satelliteImages.geographyComposite': { method: 'POST', path: '/api/satelliteimages/geography/composite', kind: 'open', retries: true, deprecated: true },
  'satelliteProducts.composite': { method: 'POST', path: '/api/satelliteproducts/satellitezones/composite', kind: 'open', retries: true },
  'satelliteProducts.acquisitionPlans': { method: 'POST', path: '/api/satelliteproducts/acquisitionplans', kind: 'open', retries: true },
  'tasking.searchTiles': { method: 'POST', path: '/api/tasking/search/tiles', kind: 'open', retries: true },
  'tasking.orders.list': { method: 'GET', path: '/api/tasking/orders', kind: 'open', retries: true },
  'tasking.orders.details': { method: 'GET', path: '/api/tasking/orders/details', kind: 'open', retries: true },
  // A cancel that reached the service before a reset would fail as "already cancelled" when repeated.
  'tasking.orders.cancel': { method: 'DELETE', path: '/api/tasking/orders/cancel', kind: 'open', retries: false },
};

const TYPED_OPERATIONS: Record<string, CatalogEntry> = {
  accountInfo: { method: 'GET', path: '/api/account/info', kind: 'typed', retries: true },
  accountSettings: { method: 'GET', path: '/api/account/settings', kind: 'typed', retries: true },
  billingSummary: { method: 'GET', path: '/api/billing/summary', kind: 'typed', retries: true },
  billingOrders: { method: 'GET', path: '/api/billing/orders/{year}-{month}', kind: 'typed', retries: true },
  billingTransactions: { method: 'GET', path: '/api/billing/transactions/{year}-{month}', kind: 'typed', retries: true },
  geographyComposite: { method: 'POST', path: '/api/satelliteimages/geography/composite', kind: 'typed', retries: true, deprecated: true },
  searchAvailable: { method: 'POST', path: '/api/satelliteimages/search/available', kind: 'typed', retries: true },
  compositeAvailable: { method: 'POST', path: '/api/satelliteimages/process/composite/available', kind: 'typed', retries: true },
  compositeEstimate: { method: 'POST', path: '/api/satelliteimages/process/composite/estimate', kind: 'typed', retries: true },
  // Binary calls are retried by the downloads module, which knows whether bytes were already written.
  processComposite: { method: 'POST', path: '/api/satelliteimages/process/composite', kind: 'binary', retries: false },
  processTile: { method: 'POST', path: '/api/satelliteimages/process/tile', kind: 'binary', retries: false },
  processMiniTile: { method: 'POST', path: '/api/satelliteimages/process/minitile', kind: 'binary', retries: false },
  taskingModels: { method: 'GET', path: '/api/tasking/models', kind: 'typed', retries: true },
  estimateOrder: { method: 'POST', path: '/api/tasking/orders/estimate', kind: 'typed', retries: true },
  // Creating an order spends money: on a transient failure the caller asks the user, then checks the order list.
  createOrder: { method: 'POST', path: '/api/tasking/orders', kind: 'typed', retries: false },
};

/**
 * The service client: discovers the specification, bounds concurrency by the
 * account's limits, validates requests as the contract does, and exposes typed
 * operations plus the specification-built ones the contract leaves open.
 */
export class ServiceClient {
  readonly baseUrl: string;
  private readonly transport: Transport;
  private readonly limiter: Limiter;
  private readonly schemas = new SchemaValidator((message) => this.transport.log(message));
  private readonly opts: ServiceClientOptions;
  private readonly ownedFetch: NodeHttpFetch | null;
  private state: ClientConnectionState = 'idle';
  private connecting = false;
  private spec: DiscoveredSpec | null = null;
  private notice: ContractNotice | null = null;
  private models: TaskingModel[] | null = null;
  private accountData: AccountInfo | null = null;

  /** Creates a client; nothing is sent until {@link connect} or an operation is called. */
  constructor(opts: ServiceClientOptions) {
    this.opts = opts;
    this.ownedFetch = opts.fetch ? null : createNodeFetch();
    this.limiter = new Limiter(opts.initialConcurrency ?? DEFAULT_CONCURRENCY);
    this.transport = new Transport({
      baseUrl: opts.baseUrl,
      getKey: opts.getKey,
      fetch: opts.fetch ?? this.ownedFetch!,
      secrets: opts.secrets,
      limiter: this.limiter,
      retry: opts.retry,
      timeoutMs: opts.timeoutMs,
      binaryTimeoutMs: opts.binaryTimeoutMs,
      log: opts.log,
      onAttempt: opts.onAttempt,
      onReachability: (reachable, detail) => {
        // During connect the outcome of connect itself decides the state.
        if (!this.connecting && this.state !== 'idle') this.setState(reachable ? 'online' : 'offline', detail);
      },
    });
    this.baseUrl = this.transport.baseUrl;
  }

  /** Current connection state. */
  get connectionState(): ClientConnectionState {
    return this.state;
  }

  /** Set when the discovered specification's version differs from the one the app was built for. */
  get contractNotice(): ContractNotice | null {
    return this.notice;
  }

  /** How the discovered specification differs from the one cached before it for this base URL, or null. */
  get specDrift(): SpecDrift | null {
    return this.spec?.drift ?? null;
  }

  /** Summary of the discovered specification, or null before one is loaded. */
  get specification(): SpecSummary | null {
    const s = this.spec;
    return s ? { version: s.version, title: s.title, source: s.source, fetchedAt: s.fetchedAt } : null;
  }

  /** The last account info read (on connect or by {@link accountInfo}). */
  get account(): AccountInfo | null {
    return this.accountData;
  }

  /** Requests currently allowed in flight. */
  get concurrency(): number {
    return this.limiter.concurrency;
  }

  private setState(state: ClientConnectionState, detail?: string): void {
    if (this.state === state) return;
    this.state = state;
    this.opts.onConnectionState?.(state, detail);
  }

  /**
   * Loads the specification (from the cache when the service is unreachable), the
   * account info (which sets the concurrency limit) and the model list. When it
   * fails, the specification-built operations are still available if a copy was cached.
   */
  async connect(signal?: AbortSignal): Promise<ConnectResult> {
    this.connecting = true;
    this.setState('connecting');
    this.models = null;
    try {
      await this.loadSpec(signal);
      const account = await this.accountInfo(signal);
      const models = await this.taskingModels(signal);
      this.connecting = false;
      this.setState('online');
      return { account, models, spec: this.specification!, contractNotice: this.notice, concurrency: this.limiter.concurrency };
    } catch (e) {
      this.connecting = false;
      const detail = e instanceof Error ? e.message : String(e);
      this.setState('offline', detail);
      throw e;
    }
  }

  /** Releases the connection pool the client created for itself (not an injected fetch). */
  async close(): Promise<void> {
    await this.ownedFetch?.close();
  }

  private async loadSpec(signal?: AbortSignal): Promise<DiscoveredSpec> {
    const spec = await discoverSpec(this.transport, this.opts.cacheDir, signal, this.opts.clock);
    this.spec = spec;
    this.transport.setKeyFields(spec.keyFields);
    this.notice = contractNoticeFor(this.opts.contractVersion ?? BUILT_FOR_CONTRACT_VERSION, spec.version);
    if (this.notice) this.transport.log(this.notice.message);
    return spec;
  }

  private async ensureSpec(signal?: AbortSignal): Promise<DiscoveredSpec> {
    return this.spec ?? (await this.loadSpec(signal));
  }

  // ------------------------------------------------------------ plumbing

  private async validationContext(signal: AbortSignal | undefined): Promise<ValidationContext> {
    if (!this.models) {
      try {
        await this.taskingModels(signal);
      } catch (e) {
        // Without the model list the service checks models itself; only a cancel stops here.
        if (e instanceof ApiError && e.kind === 'cancelled') throw e;
      }
    }
    return { models: this.models };
  }

  private check(result: ValidationResult, operation: string): void {
    for (const [field, reasons] of Object.entries(result.warnings)) for (const r of reasons) this.transport.log(`${operation}: warning on ${field}: ${r}`);
    if (Object.keys(result.errors).length) throw validationFailure(result.errors, operation);
  }

  private async validated(
    name: keyof typeof TYPED_OPERATIONS,
    body: unknown,
    validator: (ctx: ValidationContext) => ValidationResult,
    signal: AbortSignal | undefined,
    options: ClientCallOptions,
  ): Promise<void> {
    if (options.validate === false) return;
    const op = TYPED_OPERATIONS[name]!;
    const needsModels = body && typeof body === 'object' && 'Model' in body;
    const ctx = needsModels ? await this.validationContext(signal) : { models: this.models };
    this.check(validator(ctx), `${op.method} ${op.path}`);
  }

  private request(name: keyof typeof TYPED_OPERATIONS, body?: string, path?: string): RequestSpec {
    const op = TYPED_OPERATIONS[name]!;
    return { method: op.method, path: path ?? op.path, body, retryByDefault: op.retries };
  }

  private applyAccountLimits(info: AccountInfo): void {
    // However the answer names it (the contract does not show account info's fields).
    const n = accountLimits(info).maxConcurrentConnections;
    if (n !== null && Number.isInteger(n) && n > 0 && n !== this.limiter.concurrency) {
      this.limiter.concurrency = n;
      this.transport.log(`Concurrency set to ${n} (account's max concurrent connections).`);
    }
  }

  // ------------------------------------------------------------ account & billing

  /** GET /api/account/info: information and request limits of the key; sets the concurrency limit. */
  async accountInfo(signal?: AbortSignal, options: ClientCallOptions = {}): Promise<AccountInfo> {
    const data = await this.transport.json<AccountInfo>(this.request('accountInfo'), signal, options);
    const info = (data && typeof data === 'object' ? data : {}) as AccountInfo;
    this.accountData = info;
    this.applyAccountLimits(info);
    return info;
  }

  /** GET /api/account/settings: settings of the account. */
  accountSettings(signal?: AbortSignal, options: ClientCallOptions = {}): Promise<ServiceRecord> {
    return this.transport.json<ServiceRecord>(this.request('accountSettings'), signal, options);
  }

  /** GET /api/billing/summary: billing overview of the current month. */
  billingSummary(signal?: AbortSignal, options: ClientCallOptions = {}): Promise<ServiceRecord> {
    return this.transport.json<ServiceRecord>(this.request('billingSummary'), signal, options);
  }

  /** GET /api/billing/orders/{year}-{month}: orders and their costs of a month. */
  async billingOrders(period: { year: number; month: number }, signal?: AbortSignal, options: ClientCallOptions = {}): Promise<ServiceRecord> {
    if (options.validate !== false) this.check(validateYearMonth(period.year, period.month), 'GET /api/billing/orders/{year}-{month}');
    return this.transport.json<ServiceRecord>(this.request('billingOrders', undefined, `/api/billing/orders/${period.year}-${period.month}`), signal, options);
  }

  /** GET /api/billing/transactions/{year}-{month}: itemized Euro balance transactions of a month. */
  async billingTransactions(period: { year: number; month: number }, signal?: AbortSignal, options: ClientCallOptions = {}): Promise<ServiceRecord> {
    if (options.validate !== false) this.check(validateYearMonth(period.year, period.month), 'GET /api/billing/transactions/{year}-{month}');
    return this.transport.json<ServiceRecord>(this.request('billingTransactions', undefined, `/api/billing/transactions/${period.year}-${period.month}`), signal, options);
  }

  /** POST /api/billing/vouchers/redeem: the body follows the specification (the contract does not show it); never retried by default. */
  redeemVoucher(body: Record<string, unknown>, signal?: AbortSignal, options: ClientCallOptions = {}): Promise<unknown> {
    return this.callOpen('billing.redeemVoucher', { body }, signal, options);
  }

  // ------------------------------------------------------------ imagery

  /**
   * POST /api/satelliteimages/geography/composite: composite area with dates of available imagery.
   * @deprecated The service marks this operation deprecated; use {@link searchAvailable}.
   */
  async geographyComposite(body: GeographyCompositeRequest, signal?: AbortSignal, options: ClientCallOptions = {}): Promise<ServiceRecord> {
    const op = TYPED_OPERATIONS.geographyComposite!;
    if (options.validate !== false) {
      // The period's field names are not in the contract: the specification's schema checks them.
      const errors: FieldErrors = { ...validateGeographyComposite(body).errors };
      const specOp = this.spec ? findOperation(this.spec, op.method, op.path) : undefined;
      const fromSchema = specOp?.body ? this.schemas.body(specOp.body, body) : null;
      for (const [k, v] of Object.entries(fromSchema ?? {})) errors[k] = [...(errors[k] ?? []), ...v.filter((r) => !(errors[k] ?? []).includes(r))];
      this.check({ errors, warnings: {} }, `${op.method} ${op.path}`);
    }
    return this.transport.json<ServiceRecord>(this.request('geographyComposite', JSON.stringify(body)), signal, options);
  }

  /** POST /api/satelliteimages/search/available: dates with imagery in an area and period (the end is sent as Until). */
  async searchAvailable(body: SearchAvailableRequest, signal?: AbortSignal, options: ClientCallOptions = {}): Promise<ServiceRecord> {
    await this.validated('searchAvailable', body, (ctx) => validateSearchAvailable(body, ctx), signal, options);
    return this.transport.json<ServiceRecord>(this.request('searchAvailable', JSON.stringify(body)), signal, options);
  }

  /** POST /api/satelliteimages/process/composite/available: whether one exact composite request can be fulfilled. */
  async compositeAvailable(body: CompositeAvailableRequest, signal?: AbortSignal, options: ClientCallOptions = {}): Promise<ServiceRecord> {
    await this.validated('compositeAvailable', body, (ctx) => validateCompositeAvailable(body, ctx), signal, options);
    return this.transport.json<ServiceRecord>(this.request('compositeAvailable', JSON.stringify(body)), signal, options);
  }

  /** POST /api/satelliteimages/process/composite/estimate: download credit estimate of a polygon, tile or mini-tile. */
  async compositeEstimate(body: CompositeEstimateRequest, signal?: AbortSignal, options: ClientCallOptions = {}): Promise<ServiceRecord> {
    requireCanonical('estimate', body);
    await this.validated('compositeEstimate', body, (ctx) => validateCompositeEstimate(body, ctx), signal, options);
    return this.transport.json<ServiceRecord>(this.request('compositeEstimate', JSON.stringify(body)), signal, options);
  }

  /** POST /api/satelliteimages/process/composite: the file as a stream (200), or 'uploaded' (201) when UploadUrl is set. Not retried by default. */
  async processComposite(body: CompositeRequest, signal?: AbortSignal, options: ClientCallOptions = {}): Promise<BinaryResult> {
    requireCanonical('composite', body);
    await this.validated('processComposite', body, (ctx) => validateComposite(body, ctx), signal, options);
    return this.transport.binary(this.request('processComposite', JSON.stringify(body)), signal, options);
  }

  /** Runs the client-side checks of a composite, tile or mini-tile body without sending it (before a download is queued). */
  async checkBinaryRequest(kind: 'composite' | 'tile' | 'minitile', body: Record<string, unknown>, signal?: AbortSignal): Promise<void> {
    if (kind === 'composite') await this.validated('processComposite', body, (ctx) => validateComposite(body as unknown as CompositeRequest, ctx), signal, {});
    else await this.validated(kind === 'tile' ? 'processTile' : 'processMiniTile', body, (ctx) => validateTile(body, ctx, kind === 'minitile'), signal, {});
  }

  /** POST /api/satelliteimages/process/tile: a tile as a stream (200), or 'uploaded' (201). Not retried by default. */
  async processTile(body: TileRequest, signal?: AbortSignal, options: ClientCallOptions = {}): Promise<BinaryResult> {
    requireCanonical('tile', body);
    await this.validated('processTile', body, (ctx) => validateTile(body, ctx, false), signal, options);
    return this.transport.binary(this.request('processTile', JSON.stringify(body)), signal, options);
  }

  /** POST /api/satelliteimages/process/minitile: a mini-tile as a stream (200), or 'uploaded' (201). Not retried by default. */
  async processMiniTile(body: MiniTileRequest, signal?: AbortSignal, options: ClientCallOptions = {}): Promise<BinaryResult> {
    requireCanonical('minitile', body);
    await this.validated('processMiniTile', body, (ctx) => validateTile(body, ctx, true), signal, options);
    return this.transport.binary(this.request('processMiniTile', JSON.stringify(body)), signal, options);
  }

  // ------------------------------------------------------------ tasking

  /** GET /api/tasking/models: models and their constellations; loaded once per connection and cached. */
  async taskingModels(signal?: AbortSignal, options: ClientCallOptions & { refresh?: boolean } = {}): Promise<TaskingModel[]> {
    if (this.models && !options.refresh) return this.models;
    const data = await this.transport.json<TaskingModelList>(this.request('taskingModels'), signal, options);
    const list = Array.isArray(data?.TaskingModels) ? data.TaskingModels : [];
    this.models = list
      .filter((m) => m && typeof m.Model === 'string')
      .map((m) => ({
        Model: m.Model,
        SupportedSatelliteConstellations: (Array.isArray(m.SupportedSatelliteConstellations) ? m.SupportedSatelliteConstellations : [])
          .filter((c) => c && typeof c.SatelliteConstellation === 'string')
          .map((c) => ({ SatelliteConstellation: c.SatelliteConstellation, Optional: c.Optional === true })),
      }));
    return this.models;
  }

  /**
   * POST /api/tasking/orders/estimate. Returns the estimate and the exact JSON text that
   * was estimated: pass that text unchanged to {@link createOrder}.
   */
  async estimateOrder(request: OrderRequest | string, signal?: AbortSignal, options: ClientCallOptions = {}): Promise<OrderEstimate> {
    const payload = typeof request === 'string' ? request : JSON.stringify(request);
    const parsed = parseObject(payload, 'POST /api/tasking/orders/estimate');
    requireCanonical('order', parsed);
    await this.validated('estimateOrder', parsed, (ctx) => validateOrder(parsed, ctx, { create: false }), signal, options);
    const estimate = await this.transport.json<ServiceRecord>(this.request('estimateOrder', payload), signal, options);
    return { estimate, payload };
  }

  /**
   * POST /api/tasking/orders: creates the order from the estimated payload, sent byte for byte
   * (TileDeduplication, when given, is appended without touching the rest). Never retried by
   * default: after a transient failure ask the user, and check the order list before trying again.
   */
  async createOrder(payload: string | OrderRequest, signal?: AbortSignal, options: ClientCallOptions & { tileDeduplication?: boolean } = {}): Promise<ServiceRecord> {
    const operation = 'POST /api/tasking/orders';
    let text = typeof payload === 'string' ? payload : JSON.stringify(payload);
    const parsed = parseObject(text, operation);
    requireCanonical('order', parsed);
    if (options.tileDeduplication !== undefined) {
      text = appendMember(text, Object.keys(parsed).length === 0, 'TileDeduplication', options.tileDeduplication);
      parsed.TileDeduplication = options.tileDeduplication;
    }
    await this.validated('createOrder', parsed, (ctx) => validateOrder(parsed, ctx, { create: true }), signal, options);
    return this.transport.json<ServiceRecord>(this.request('createOrder', text), signal, options);
  }

  // ------------------------------------------------------------ specification-built operations

  /** The operations built from the discovered specification, with their parameter and body schemas; empty before one is loaded. */
  openOperations(): OpenOperation[] {
    const spec = this.spec;
    if (!spec) return [];
    const out: OpenOperation[] = [];
    for (const [key, entry] of Object.entries(OPEN_OPERATIONS) as [OpenOperationKey, CatalogEntry][]) {
      const op = findOperation(spec, entry.method, entry.path);
      if (op) out.push(describeOpen(key, entry, op));
    }
    return out;
  }

  /** Every operation the client knows, typed and specification-built, with deprecation and presence in the specification. */
  operations(): OperationInfo[] {
    const spec = this.spec;
    const all: [string, CatalogEntry][] = [...Object.entries(TYPED_OPERATIONS), ...Object.entries(OPEN_OPERATIONS)];
    return all.map(([key, e]) => {
      const op = spec ? findOperation(spec, e.method, e.path) : undefined;
      return { key, method: e.method, path: op?.path ?? e.path, kind: e.kind, deprecated: Boolean(e.deprecated || op?.deprecated), inSpec: op !== undefined };
    });
  }

  /**
   * Calls a specification-built operation: parameters and body are validated against the
   * specification's schemas (failures in the service's property -> reasons shape), then sent.
   */
  async callOpen(key: OpenOperationKey, input: OpenCallInput = {}, signal?: AbortSignal, options: ClientCallOptions = {}): Promise<unknown> {
    const entry = OPEN_OPERATIONS[key];
    if (!entry) throw new ApiError('invalid', `Unknown operation "${String(key)}"; use one of ${Object.keys(OPEN_OPERATIONS).join(', ')}.`);
    const spec = await this.ensureSpec(signal);
    const op = findOperation(spec, entry.method, entry.path);
    const operation = `${entry.method} ${entry.path}`;
    if (!op) throw new ApiError('not-found', `The service's specification has no ${operation} (${key}).`, { operation });
    const params: Record<string, unknown> = { ...(input.params ?? {}) };
    const errors: FieldErrors = {};
    if (options.validate !== false) {
      Object.assign(errors, this.schemas.parameters(op.parameters, params) ?? {});
      if (op.body) {
        if (input.body === undefined) {
          if (op.bodyRequired) errors.Body = ['A JSON request body is required.'];
        } else {
          Object.assign(errors, this.schemas.body(op.body, input.body) ?? {});
        }
      } else if (input.body !== undefined) {
        errors.Body = ['This operation takes no request body.'];
      }
      if (Object.keys(errors).length) throw validationFailure(errors, operation);
    }
    const query: Record<string, string | string[]> = {};
    const headers: Record<string, string> = {};
    let path = op.path;
    for (const [name, value] of Object.entries(params)) {
      if (value === undefined || value === null) continue;
      const where = op.parameterLocations[name] ?? 'query';
      if (where === 'path') path = path.split(`{${name}}`).join(encodeURIComponent(paramString(value)));
      else if (where === 'header') headers[name] = paramString(value);
      else query[name] = Array.isArray(value) ? value.map(paramString) : paramString(value);
    }
    const req: RequestSpec = {
      method: op.method,
      path,
      query,
      headers,
      body: input.body === undefined ? undefined : JSON.stringify(input.body),
      retryByDefault: entry.retries,
    };
    return this.transport.json<unknown>(req, signal, options);
  }
}

function describeOpen(key: OpenOperationKey, entry: CatalogEntry, op: SpecOperation): OpenOperation {
  return {
    key,
    operationId: op.operationId,
    method: op.method,
    path: op.path,
    summary: op.summary,
    description: op.description,
    parameters: op.parameters,
    parameterLocations: op.parameterLocations,
    body: op.body,
    bodyRequired: op.bodyRequired,
    deprecated: Boolean(op.deprecated || entry.deprecated),
    retries: entry.retries,
  };
}

function paramString(v: unknown): string {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') return String(v);
  return JSON.stringify(v);
}

function parseObject(text: string, operation: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (e) {
    throw validationFailure({ Body: [`The payload is not valid JSON: ${(e as Error).message}`] }, operation);
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw validationFailure({ Body: ['The payload must be a JSON object.'] }, operation);
  return parsed as Record<string, unknown>;
}

/** Adds one member before the closing brace, leaving every byte before it as it was. */
function appendMember(text: string, empty: boolean, name: string, value: unknown): string {
  const end = text.lastIndexOf('}');
  return `${text.slice(0, end)}${empty ? '' : ','}${JSON.stringify(name)}:${JSON.stringify(value)}${text.slice(end)}`;
}
