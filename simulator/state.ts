import { randomUUID } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { Polygon, MultiPolygon } from 'geojson';
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
  private writing: Promise<void> = Promise.resolve();
  private dirty = false;

  constructor(
    readonly now: () => number,
    readonly statePath: string | null,
    readonly lifecycle: Lifecycle,
  ) {}

  /** Loads the file if present, then makes sure every default key exists. */
  async load(seed: (acc: Account) => void): Promise<void> {
    if (this.statePath) {
      try {
        const raw = JSON.parse(await fs.readFile(this.statePath, 'utf8')) as Persisted;
        if (raw.version === 1 && raw.accounts) this.accounts = raw.accounts;
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'ENOENT') {
          throw new Error(`Cannot read simulator state ${this.statePath}: ${(e as Error).message}`);
        }
      }
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

  /** Writes the state file atomically (tmp + fsync + rename); writes are serialised. */
  save(): Promise<void> {
    if (!this.statePath) return Promise.resolve();
    this.dirty = true;
    this.writing = this.writing.then(async () => {
      if (!this.dirty) return;
      this.dirty = false;
      const file = this.statePath!;
      await fs.mkdir(path.dirname(file), { recursive: true });
      const tmp = `${file}.${process.pid}.${randomUUID().slice(0, 8)}.tmp`;
      const data: Persisted = { version: 1, accounts: this.accounts };
      const fh = await fs.open(tmp, 'w');
      try {
        await fh.writeFile(JSON.stringify(data));
        await fh.sync();
      } finally {
        await fh.close();
      }
      await fs.rename(tmp, file);
    });
    return this.writing;
  }
}

/** Rounds EUR to cents. */
export function round2(x: number): number {
  return Math.round(x * 100) / 100;
}
