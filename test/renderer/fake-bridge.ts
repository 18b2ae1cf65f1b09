import { vi } from 'vitest';
import type { EventName, EventPayload, IpcError, Result } from '../../preload/contract';

/**
 * A stand-in for window.swath in component and store tests: every method is a
 * vi.fn answering with sensible demo data unless overridden; `emit` pushes
 * events to whatever subscribed with `on`.
 */

type AnyFn = (req?: any) => Promise<Result<any>>;

/**
 * The page's bridge as the real renderer/src/platform/bridge sees it: `fake.api = x` installs `x` as
 * window.swath (globalThis.swath), which getBridge reads at each call, so a test needs no vi.mock of
 * the bridge module and runs in the unit project's shared module graph. test/support/unit-setup.ts
 * removes it after every test; install it in beforeEach or in the test.
 */
export function bridgeStandIn<T = unknown>(): { api: T } {
  const g = globalThis as { swath?: unknown };
  return {
    get api() { return g.swath as T; },
    set api(api: T) { g.swath = api; },
  };
}

/** Wraps data in a successful result. */
export const ok = <T>(data: T): Result<T> => ({ ok: true, data });
/** A failed result. */
export const fail = (kind: IpcError['kind'], message: string, fields?: Record<string, string[]>): Result<never> => ({
  ok: false,
  error: fields ? { kind, message, fields } : { kind, message },
});

export const DEMO_INFO = {
  version: '0.1.0',
  platform: 'linux',
  service: { label: 'Demo service (offline)', baseUrl: 'http://127.0.0.1:40001', demo: true },
  contractVersion: '1.0.0' as const,
};

export const DEMO_STATUS = {
  profileId: 'demo', label: 'Demo service (offline)', baseUrl: 'http://127.0.0.1:40001', demo: true, state: 'online' as const,
  contractNotice: null, specDrift: null, specSource: 'network' as const, concurrency: 8, limits: { maxCompositeAreaKm2: 2500, maxTotalBands: 12 },
};

export const NO_POLICY = {
  status: 'none' as const, file: '/etc/swath/policy.json', problems: [], lockedProfileIds: [], hideDemoService: false,
  basemap: null, downloadDir: null, updates: null, monthlyBudget: null, notifications: null, team: null,
};

export const UPDATES_OFF = {
  state: 'off' as const, message: 'Updates are off: this build has no update server.', currentVersion: '0.1.0', version: null, releaseNotes: null,
  percent: null, url: null, channel: 'stable' as const, channelFixed: false, checkedAt: null,
};

export const MODELS = [
  { Model: 'Stratus2', SupportedSatelliteConstellations: [{ SatelliteConstellation: 'Sentinel1', Optional: false }, { SatelliteConstellation: 'Sentinel2', Optional: false }, { SatelliteConstellation: 'Landsat89', Optional: true }] },
  { Model: 'Nimbus', SupportedSatelliteConstellations: [{ SatelliteConstellation: 'Sentinel2L1', Optional: false }, { SatelliteConstellation: 'WFIAmazonia', Optional: true }] },
];

export const VOUCHER_OP = {
  key: 'billing.redeemVoucher', operationId: 'Billing_RedeemVoucher', method: 'POST', path: '/api/billing/vouchers/redeem',
  summary: 'Redeems a voucher.', deprecated: false, parameters: { type: 'object', properties: {} },
  body: { type: 'object', properties: { VoucherCode: { type: 'string', minLength: 1, example: 'SWATH-DEMO-50' } }, required: ['VoucherCode'], title: 'command' },
  bodyRequired: true,
};

export const PROFILES = {
  profiles: [{ id: 'demo', name: 'Demo service (offline)', baseUrl: 'http://127.0.0.1:40001', builtIn: true, active: true, keySet: true, keyLast4: '-key', keyOrigin: 'http://127.0.0.1:40001', keyNeedsConfirm: false }],
  activeProfileId: 'demo',
  keychainError: null,
};

/** Every notification switched on (the default). */
export const NOTIFY_ALL = { watchDownloaded: true, watchAttention: true, orderStatus: true, orderDeadline: true, fieldChange: true };

/** No team library (the policy names no catalog). */
export const TEAM_OFF = { state: 'off' as const, catalogUrl: null, sharePath: null, readUrl: null, role: null, since: null, reason: null, pending: 0 };

/** This month's spend from Swath's ledger, no budget, with `costEur` asked about. */
export function spend(costEur: number) {
  return {
    profileId: 'demo', month: '2026-11', budgetEur: null, spentEur: 0, source: 'ledger' as const, sourceNote: null, costEur, afterEur: costEur, overBudget: false, ceilingEur: null,
    costKnown: true, costNote: null, decision: 'ok' as const, reason: `This costs ${costEur.toFixed(2)} EUR; spent this month (2026-11) 0.00 EUR; no monthly budget.`,
  };
}

/** Builds the fake bridge; `overrides` replace single methods. */
export function makeBridge(overrides: Record<string, AnyFn> = {}) {
  const listeners = new Map<string, Set<(p: unknown) => void>>();
  const defaults: Record<string, AnyFn> = {
    appInfo: async () => ok(DEMO_INFO),
    servicePing: async () => ok({ reachable: true, latencyMs: 4.4 }),
    serviceStatus: async () => ok(DEMO_STATUS),
    serviceReconnect: async () => ok(DEMO_STATUS),
    serviceOperations: async () => ok({ operations: [VOUCHER_OP] }),
    serviceCall: async () => ok({ data: {} }),
    profilesList: async () => ok(PROFILES),
    profilesCreate: async (r) => ok({ id: 'p2', name: r.name, baseUrl: r.baseUrl, builtIn: false, active: false, keySet: !!r.key, keyLast4: r.key ? r.key.slice(-4) : null, keyOrigin: r.key ? new URL(r.baseUrl).origin : null, keyNeedsConfirm: false }),
    profilesUpdate: async (r) => ok({ ...PROFILES.profiles[0], ...r }),
    profilesDelete: async () => ok({ deleted: true }),
    profilesActivate: async () => ok(PROFILES.profiles[0]),
    profilesSetKey: async (r) => ok({ ...PROFILES.profiles[0], keySet: true, keyLast4: String(r.key).slice(-4) }),
    profilesDeleteKey: async () => ok({ ...PROFILES.profiles[0], keySet: false, keyLast4: null, keyOrigin: null }),
    profilesConfirmOrigin: async () => ok(PROFILES.profiles[0]),
    profilesTestKey: async () => ok({ status: 'ok', message: 'The key works.' }),
    accountInfo: async () => ok({ data: { KeyName: 'Demo analyst', MaxCompositeAreaKm2: 2500, MaxTotalBands: 12, EuroBalance: 100 } }),
    accountSettings: async () => ok({ data: { DefaultModel: 'Stratus2' } }),
    billingSummary: async () => ok({ data: { Year: 2026, Month: 11, CurrencyCode: 'EUR', EuroBalance: 100 } }),
    billingOrders: async (p) => ok({ data: { Year: p.year, Month: p.month, CurrencyCode: 'EUR', Orders: [], Total: 0 } }),
    billingTransactions: async (p) => ok({ data: { Year: p.year, Month: p.month, CurrencyCode: 'EUR', Transactions: [], Total: 0 } }),
    imagerySearch: async () => ok({ data: {} }),
    imageryAvailable: async () => ok({ data: { FullyAvailable: true } }),
    imageryEstimate: async () => ok({ data: { CreditEstimate: 1.5, CurrencyCode: 'EUR', AreaEstimateKm2: 150.5 }, verdict: spend(1.5), inLibrary: null }),
    imageryLegacyComposite: async () => ok({ data: {} }),
    taskingModels: async () => ok({ models: MODELS }),
    taskingEstimate: async () => ok({ estimate: {}, payload: '{}', verdict: spend(0) }),
    taskingCreate: async () => ok({ data: {} }),
    downloadsList: pagesOf([]),
    downloadsEnqueue: async (r) => ok(job({ kind: r.kind, request: r.request })),
    downloadsCancel: async (r) => ok(job({ id: r.id, state: 'cancelled' })),
    downloadsRetry: async (r) => ok(job({ id: r.id, state: 'queued' })),
    downloadsRemove: async () => ok({ removed: true }),
    downloadsClear: async () => ok({ removed: 0, counts: { queued: 0, running: 0, done: 0, failed: 0, cancelled: 0 } }),
    downloadsReveal: async () => ok({ revealed: false }),
    libraryQuery: async () => ok({ total: 0, rows: 0, all: 0, entries: [], series: [] }),
    libraryImport: async () => ok({ entries: [] }),
    libraryRemove: async () => ok({ removed: true }),
    settingsGet: async () => ok({ downloadDir: '/home/analyst/Downloads', theme: 'system', osmLayer: false }),
    settingsSet: async (p) => ok({ downloadDir: '/home/analyst/Downloads', theme: 'system', osmLayer: false, ...p }),
    policyGet: async () => ok(NO_POLICY),
    updatesStatus: async () => ok(UPDATES_OFF),
    updatesCheck: async () => ok(UPDATES_OFF),
    updatesInstall: async () => fail('validation', 'No update has been downloaded yet.'),
    updatesSetChannel: async (r) => ok({ ...UPDATES_OFF, channel: r.channel }),
    appAbout: async () => ok({ version: '0.1.0', contractVersion: '1.0.0', platform: 'linux', arch: 'x64', electron: null, chrome: null, node: '20.20.2', licenses: [{ name: 'vue', version: '3.5.45', license: 'MIT' }], licensesNote: null }),
    appReportError: async () => ok({ logged: true }),
    diagnosticsGet: async () => ok({ text: '# Swath diagnostics' }),
    diagnosticsSave: async () => fail('validation', 'This window has no save dialog.'),
    watchesList: async () => ok({ watches: [] }),
    watchesDates: async () => ok({ total: 0, dates: [] }),
    spendGet: async (r) => ok(spend(r?.costEur ?? 0)),
    spendSetBudget: async (r) => ok({ ...spend(0), budgetEur: r.budgetEur }),
    notificationsPrefs: async () => ok(NOTIFY_ALL),
    notificationsSetPrefs: async (r) => ok({ ...NOTIFY_ALL, ...r }),
    notificationsShow: async () => ok({ shown: true }),
    teamStatus: async () => ok(TEAM_OFF),
    teamCheck: async () => ok({ state: 'off', matches: [], claim: null, reason: null }),
    teamSetCredentials: async () => fail('validation', 'No team catalog is set up.'),
    teamUseCopy: async () => fail('not-found', 'No such team raster.'),
    teamPreview: async () => fail('not-found', 'No such team raster.'),
    teamWait: async () => ok({ state: 'none', matches: [], claim: null, reason: null }),
  };
  const api: Record<string, any> = {};
  for (const [name, fn] of Object.entries({ ...defaults, ...overrides })) api[name] = vi.fn(fn);
  api.cancel = vi.fn();
  api.on = vi.fn((event: string, listener: (p: unknown) => void) => {
    const set = listeners.get(event) ?? new Set();
    set.add(listener);
    listeners.set(event, set);
    return () => set.delete(listener);
  });
  return {
    api,
    listeners,
    emit<E extends EventName>(event: E, payload: EventPayload<E>) {
      listeners.get(event)?.forEach((l) => l(payload));
    },
  };
}

let jobSeq = 0;
/** A download job with defaults. */
export function job(over: Record<string, unknown> = {}) {
  jobSeq++;
  return {
    id: `job-${jobSeq}`, kind: 'composite' as const, request: { Date: '2026-11-17', Bandnames: 'rgb', Resolution: 10 }, targetDir: '/dl', state: 'queued' as const,
    bytes: 0, total: null, attempts: 0, createdAt: `2026-11-22T07:00:0${jobSeq % 10}Z`, updatedAt: '2026-11-22T07:00:00Z', ...over,
  };
}

type FakeJob = { id: string; state: 'queued' | 'running' | 'done' | 'failed' | 'cancelled' };

/**
 * A `downloadsList` answering from `all` as main does: pages in the order given, each with the
 * position of the next one (`next`, here the index as text) and the counts of every state in all of
 * them. `all` is read at each call, so a test can change it between pages.
 */
export function pagesOf<J extends FakeJob>(all: J[], asked?: { after?: string; limit?: number }[]) {
  return async (req?: { after?: string; limit?: number }) => {
    asked?.push({ after: req?.after, limit: req?.limit });
    const from = req?.after === undefined ? 0 : Number(req.after);
    const limit = req?.limit ?? 500;
    const counts = { queued: 0, running: 0, done: 0, failed: 0, cancelled: 0 };
    for (const j of all) counts[j.state]++;
    const end = from + limit;
    return ok({ total: all.length, jobs: all.slice(from, end), next: end < all.length ? String(end) : null, counts });
  };
}
