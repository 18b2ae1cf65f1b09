import { randomUUID } from 'node:crypto';
import type { Polygon, MultiPolygon } from 'geojson';
import { JsonStore, readJsonFile } from '../main/shared/files.js';
import { DEFAULT_KEYS, type KeyProfile } from './catalog.js';

/** A polygonal AOI in lon/lat. */
export type Polygonal = Polygon | MultiPolygon;

/** One balance movement of a key, EUR (negative spends). */
export interface LedgerEntry {
  guid: string;
  at: number;
  kind: 'TopUp' | 'Voucher' | 'Order' | 'Download' | 'Refund';
  amount: number;
  description: string;
  reference: string | null;
}

/** A stored tasking order. */
export interface StoredOrder {
  guid: string;
  createdAt: number;
  model: string;
  constellations: string[];
  mode: 'Wkt' | 'GeoJson' | 'TileGuids' | 'MiniTileGuids';
  wkt: string | null;
  tiles: string[];
  miniTiles: string[];
  dedupedTiles: string[];
  geometry: Polygonal;
  areaKm2: number;
  from: string;
  to: string | null;
  imageFrequency: number;
  referenceDate: string;
  storageMonths: number;
  apiRequests: number;
  cost: number;
  canceledAt: number | null;
  renewalStoppedAt: number | null;
  effectiveTo: string | null;
  downloadsUsed: number;
  /** Orders made by AutomaticOrderCreation or the demo seed skip the processing wait. */
  instant: boolean;
  /** What a recurring order costs per month, EUR (null when historical; absent in older state files). */
  monthlyCost?: number | null;
}

/** Everything the service keeps for one API key. */
export interface Account {
  key: string;
  profile: KeyProfile;
  ledger: LedgerEntry[];
  orders: StoredOrder[];
  vouchers: Record<string, number>;
  lastEstimate: Record<string, unknown> | null;
}

interface Persisted {
  version: 1;
  accounts: Record<string, Account>;
}

/** Durations (ms) an order spends in each status before the next. */
export interface Lifecycle {
  review: number;
  preparing: number;
  awaiting: number;
  processing: number;
}

/** The simulator's whole mutable state, optionally persisted atomically to a JSON file. */
export class SimState {
  accounts: Record<string, Account> = {};
  /** The state file's writes (null without a file): bursts collapse into one write in flight and one pending. */
  private readonly store: JsonStore | null;

  constructor(
    readonly now: () => number,
    readonly statePath: string | null,
    readonly lifecycle: Lifecycle,
  ) {
    this.store = statePath ? new JsonStore(statePath, (): Persisted => ({ version: 1, accounts: this.accounts }), { compact: true }) : null;
  }

  /** Loads the file if present, then makes sure every default key exists. */
  async load(seed: (acc: Account) => void): Promise<void> {
    if (this.statePath) {
      let raw: Persisted | null;
      try {
        raw = (await readJsonFile(this.statePath)) as Persisted | null;
      } catch (e) {
        throw new Error(`Cannot read simulator state: ${(e as Error).message}`, { cause: e });
      }
      if (raw?.version === 1 && raw.accounts) this.accounts = raw.accounts;
    }
    for (const [key, profile] of Object.entries(DEFAULT_KEYS)) {
      if (!this.accounts[key]) {
        const acc: Account = { key, profile, ledger: [], orders: [], vouchers: {}, lastEstimate: null };
        if (profile.startingBalance > 0) {
          this.addLedger(acc, 'TopUp', profile.startingBalance, 'Opening balance', null);
        }
        seed(acc);
        this.accounts[key] = acc;
      }
    }
    await this.save();
  }

  /** The account of a key, or undefined for an unknown key. */
  account(key: string): Account | undefined {
    return Object.prototype.hasOwnProperty.call(this.accounts, key) ? this.accounts[key] : undefined;
  }

  /** Balance in EUR. */
  balance(acc: Account): number {
    return round2(acc.ledger.reduce((s, e) => s + e.amount, 0));
  }

  /** Appends a ledger entry. */
  addLedger(acc: Account, kind: LedgerEntry['kind'], amount: number, description: string, reference: string | null): LedgerEntry {
    const entry = { guid: randomUUID(), at: this.now(), kind, amount: round2(amount), description, reference };
    acc.ledger.push(entry);
    return entry;
  }

  /** Writes the state file atomically (main's files module: temporary file, fsync, rename, fsync of the folder). */
  save(): Promise<void> {
    return this.store ? this.store.save() : Promise.resolve();
  }
}

/** Rounds EUR to cents. */
export function round2(x: number): number {
  return Math.round(x * 100) / 100;
}
