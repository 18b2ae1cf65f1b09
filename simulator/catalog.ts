/** The constellation values of the contract (2.3), plus Sentinel2L1 used by the model list. */
export const CONSTELLATIONS = [
  'Sentinel1', 'Sentinel2', 'Landsat89', 'Sentinel3OLCI', 'Sentinel3SLSTR', 'WFIAmazonia',
  'MUXCBERS4', 'AWFICBERS4', 'MUXCBERS4A', 'WFICBERS4A', 'Sentinel2L1',
] as const;
export type Constellation = (typeof CONSTELLATIONS)[number];

/** One tasking model and the constellations it takes. */
export interface ModelDef {
  Model: string;
  SupportedSatelliteConstellations: { SatelliteConstellation: Constellation; Optional: boolean }[];
  basePricePerKm2: number;
  /** Allowed ImageFrequency range in days. */
  frequency: { min: number; max: number };
  displayName: string;
}

const req = (c: Constellation) => ({ SatelliteConstellation: c, Optional: false });
const opt = (c: Constellation) => ({ SatelliteConstellation: c, Optional: true });

/** Models offered by the simulator, after the public facts about the production service. */
export const MODELS: ModelDef[] = [
  {
    Model: 'Stratus2', displayName: 'Stratus-2', basePricePerKm2: 0.2, frequency: { min: 1, max: 7 },
    SupportedSatelliteConstellations: [req('Sentinel1'), req('Sentinel2'), opt('Landsat89'), opt('Sentinel3OLCI'), opt('Sentinel3SLSTR')],
  },
  {
    Model: 'Stratus3', displayName: 'Stratus-3', basePricePerKm2: 0.2, frequency: { min: 1, max: 7 },
    SupportedSatelliteConstellations: [req('Sentinel1'), req('Sentinel2'), req('Landsat89')],
  },
  {
    Model: 'Stratus2Fast', displayName: 'Stratus-2 Fast', basePricePerKm2: 0.18, frequency: { min: 1, max: 7 },
    SupportedSatelliteConstellations: [req('Sentinel1'), req('Sentinel2'), opt('Landsat89')],
  },
  {
    Model: 'Nimbus', displayName: 'Nimbus', basePricePerKm2: 0.1, frequency: { min: 1, max: 7 },
    SupportedSatelliteConstellations: [
      req('Sentinel2L1'), opt('WFIAmazonia'), opt('MUXCBERS4'), opt('AWFICBERS4'), opt('MUXCBERS4A'), opt('WFICBERS4A'),
    ],
  },
];

/** Per-km2 add-on for optional inputs, EUR. */
export const OPTIONAL_ADDON_PER_KM2: Partial<Record<Constellation, number>> = {
  Sentinel1: 0.04, Sentinel2: 0.04, Sentinel3OLCI: 0.02, Sentinel3SLSTR: 0.02, Landsat89: 0.02,
  WFIAmazonia: 0.02, MUXCBERS4: 0.02, AWFICBERS4: 0.02, MUXCBERS4A: 0.02, WFICBERS4A: 0.02,
};

/** Monthly spend tiers (EUR spent this month -> EUR per km2) for the Stratus family and Nimbus. */
export const SPEND_TIERS: { upTo: number; stratus: number; nimbus: number }[] = [
  { upTo: 1_000, stratus: 0.2, nimbus: 0.1 },
  { upTo: 3_000, stratus: 0.05, nimbus: 0.075 },
  { upTo: 12_000, stratus: 0.02, nimbus: 0.05 },
  { upTo: 50_000, stratus: 0.01, nimbus: 0.025 },
  { upTo: 400_000, stratus: 0.008, nimbus: 0.02 },
  { upTo: Infinity, stratus: 0.006, nimbus: 0.015 },
];

/** Tile and mini-tile orders pay this share of the polygon price. */
export const TILE_PRICE_FACTOR = { tile: 0.2, miniTile: 0.5 } as const;
/** Minimum billable area per AOI, km2. */
export const MIN_BILLABLE_KM2 = 1;
/** Download credit for imagery not included in an order, EUR per km2 per group of four bands. */
export const DOWNLOAD_EUR_PER_KM2 = 0.01;

/** Finds a model by its enum value, in any case (as ASP.NET binds enums); display names such as "Stratus-2" do not match. */
export function findModel(name: string): ModelDef | undefined {
  const lower = name.toLowerCase();
  return MODELS.find((m) => m.Model.toLowerCase() === lower);
}

/** Suggests the enum value for a display name like "Stratus-2" or a wrong case. */
export function suggestModel(name: string): ModelDef | undefined {
  const squash = (s: string) => s.toLowerCase().replace(/[^a-z0-9]/g, '');
  return MODELS.find((m) => squash(m.Model) === squash(name) || squash(m.displayName) === squash(name));
}

/** Checks a model/constellation pair against the model list; returns reasons keyed by property. */
export function checkModelConstellations(model: unknown, constellations: unknown): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  const add = (k: string, r: string) => (out[k] ??= []).push(r);
  if (typeof model !== 'string' || model === '') {
    add('Model', 'The Model field is required.');
    return out;
  }
  const def = findModel(model);
  if (!def) {
    const s = suggestModel(model);
    add('Model', s
      ? `'${model}' is not a model enum value (display names are not accepted); use '${s.Model}'.`
      : `Unknown model '${model}'. Valid values: ${MODELS.map((m) => m.Model).join(', ')}.`);
    return out;
  }
  if (constellations === undefined || constellations === null) return out;
  if (!Array.isArray(constellations)) {
    add('SatelliteConstellations', 'SatelliteConstellations must be an array of strings.');
    return out;
  }
  const supported = new Map(def.SupportedSatelliteConstellations.map((c) => [c.SatelliteConstellation as string, c.Optional]));
  for (const c of constellations) {
    if (typeof c !== 'string' || !(CONSTELLATIONS as readonly string[]).includes(c)) {
      add('SatelliteConstellations', `Unknown constellation '${String(c)}'. Valid values: ${CONSTELLATIONS.join(', ')}.`);
    } else if (!supported.has(c)) {
      add('SatelliteConstellations', `Constellation '${c}' is not supported by model ${def.Model}.`);
    }
  }
  for (const [c, optional] of supported) {
    if (!optional && !constellations.includes(c)) {
      add('SatelliteConstellations', `Model ${def.Model} requires constellation '${c}'.`);
    }
  }
  return out;
}

/** Constellations a model needs when the request leaves them out. */
export function requiredConstellations(def: ModelDef): string[] {
  return def.SupportedSatelliteConstellations.filter((c) => !c.Optional).map((c) => c.SatelliteConstellation);
}

/** Account limits and starting balance of a key. */
export interface KeyProfile {
  tenantId: string;
  name: string;
  revoked: boolean;
  plan: string;
  maxConcurrentConnections: number;
  maxCompositeAreaKm2: number;
  maxTotalBands: number;
  euroOverdraftLimit: number;
  euroBalanceCap: number;
  startingBalance: number;
  seedDemoOrder: boolean;
  contactInfo: string;
  email: string | null;
}

/** The keys every simulator starts with (documented in docs/developer-guide.md). */
export const DEFAULT_KEYS: Record<string, KeyProfile> = {
  'demo-key': {
    tenantId: '5a1f0c9e-0b6d-4c1e-9e52-7d2a3c4b5e01', name: 'Demo analyst', revoked: false, plan: 'Professional',
    maxConcurrentConnections: 8, maxCompositeAreaKm2: 2500, maxTotalBands: 12,
    euroOverdraftLimit: 0, euroBalanceCap: 100_000, startingBalance: 25_000, seedDemoOrder: true,
    contactInfo: 'Demo analyst, Swath demo tenant', email: 'analyst@example.com',
  },
  'demo-key-empty': {
    tenantId: '5a1f0c9e-0b6d-4c1e-9e52-7d2a3c4b5e02', name: 'Demo (no credit)', revoked: false, plan: 'Starter',
    maxConcurrentConnections: 4, maxCompositeAreaKm2: 500, maxTotalBands: 6,
    euroOverdraftLimit: 0, euroBalanceCap: 10_000, startingBalance: 0, seedDemoOrder: false,
    contactInfo: 'Demo (no credit), Swath demo tenant', email: null,
  },
  'demo-key-revoked': {
    tenantId: '5a1f0c9e-0b6d-4c1e-9e52-7d2a3c4b5e03', name: 'Demo (revoked)', revoked: true, plan: 'Starter',
    maxConcurrentConnections: 4, maxCompositeAreaKm2: 500, maxTotalBands: 6,
    euroOverdraftLimit: 0, euroBalanceCap: 10_000, startingBalance: 0, seedDemoOrder: false,
    contactInfo: 'Demo (revoked), Swath demo tenant', email: null,
  },
};

/** Voucher codes the simulator accepts once per key, with their EUR value. */
export const VOUCHERS: Record<string, number> = {
  'SWATH-DEMO-50': 50,
  'SWATH-DEMO-250': 250,
  'SWATH-WELCOME-1000': 1000,
};

/** Allowed output resolutions in metres. */
export const RESOLUTIONS = [10, 20, 40, 80, 160, 320, 640, 1280] as const;
