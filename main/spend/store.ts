import path from 'node:path';
import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { z } from 'zod';
import type { spendSchema } from '../../preload/contract';
import { AppError } from '../../common/errors.js';
import { afterCommit, importJsonOnce, inTransaction, openDatabase } from '../shared/database';

/** Month-to-date spend against a budget, as the contract's `spend:get` answers. */
export type SpendView = z.infer<typeof spendSchema>;

/** Name of the spend file of earlier versions in the userData directory: imported once into swath.db, then kept as `spend.json.imported-<ms>`. */
export const SPEND_FILE = 'spend.json';

/** How long the ledger keeps an entry, days: older months are of no use to a monthly guard. */
export const LEDGER_KEEP_DAYS = 400;

const ledgerEntrySchema = z.object({ profileId: z.string(), at: z.string(), costEur: z.number().nonnegative(), what: z.string() });
const fileSchema = z.object({
  version: z.literal(1),
  budgets: z.record(z.string(), z.number().positive()),
  ledger: z.array(ledgerEntrySchema),
});

/** YYYY-MM (UTC) of a time. */
export function monthOf(ms: number): string {
  return new Date(ms).toISOString().slice(0, 7);
}

function cents(n: number): number {
  return Math.round(n * 100) / 100;
}

const MONTH_SPEND = /^(current)?month(ly)?(to)?(date)?(costs?|spend|spent|charges?)$|^spen[dt](this)?month$/i;
const PART_TOTAL = /^(orders?|downloads?)(total|costs?|spend|spent|charges?)$|^total(orders?|downloads?)(costs?)?$/i;

/**
 * This month's spend in a billing answer whose fields the contract does not show: a number whose
 * name says this month's costs (CurrentMonthCosts, monthSpend…), else the sum of the totals whose
 * names say orders and downloads (OrdersTotal + DownloadsTotal). Null when it names neither; the
 * caller then uses its own ledger. Counts and balances are never read as spend.
 */
export function spendFromBilling(data: unknown): number | null {
  if (!data || typeof data !== 'object' || Array.isArray(data)) return null;
  const numbers = Object.entries(data as Record<string, unknown>)
    .filter((e): e is [string, number] => typeof e[1] === 'number' && Number.isFinite(e[1]))
    .map(([k, v]) => [k.replace(/[\s_-]/g, ''), v] as const);
  const direct = numbers.find(([k]) => MONTH_SPEND.test(k));
  if (direct) return cents(Math.abs(direct[1]));
  const parts = numbers.filter(([k]) => PART_TOTAL.test(k) && !/count/i.test(k));
  if (parts.length === 0) return null;
  return cents(parts.reduce((s, [, v]) => s + Math.abs(v), 0));
}

/**
 * How long one billing summary serves a profile's spend checks (an order's check, confirmation and
 * record; a watch run's dates): the service is asked again after this, or in a new month.
 */
export const BILLING_FRESH_MS = 60_000;

/** The first string after every string that starts with `prefix`: `x >= prefix AND x < this` is "x starts with prefix". */
export function pastPrefix(prefix: string): string {
  return prefix.slice(0, -1) + String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1);
}

/** Options of {@link SpendStore.open}. */
export interface SpendStoreOptions {
  now?: () => number;
  onWarning?: (line: string) => void;
  ceilingEur?: number | null;
  /** The app's database (else swath.db in the directory is opened, and closed by {@link SpendStore.close}). */
  db?: DatabaseSync;
}

/** An amount in a month (YYYY-MM). */
interface MonthAmount {
  month: string;
  eur: number;
}

/**
 * The spend guard's memory (main/spend/guard.ts decides with it), per account (main/spend/account.ts:
 * the service and a fingerprint of the key, so every profile holding the same key shares it): an
 * optional monthly budget (EUR) and Swath's own ledger of the costs it acted on (downloads and
 * orders the analyst confirmed, watch downloads), kept in the `spend_account_budgets` and
 * `spend_ledger` tables of swath.db, each change one small transaction; a month's total is a range
 * of the ledger's (account, time) index. Rows of the profile-keyed schema (and an old `spend.json`,
 * imported once) are kept by profile until {@link adopt} moves them to that profile's account.
 */
export class SpendStore {
  private readonly sql: Record<'budget' | 'setBudget' | 'clearBudget' | 'add' | 'prune' | 'sum' | 'legacyBudget' | 'setLegacyBudget' | 'dropLegacyBudget' | 'addLegacy' | 'hasLegacy' | 'adoptLedger' | 'legacyProfiles', StatementSync>;
  /** The last billing summary read per account: when (ms), and the month's spend it named (null: none). */
  private readonly summaries = new Map<string, { at: number; spent: number | null }>();
  /** The last month's spend a billing summary named per account, kept when the summary is forgotten. */
  private readonly billed = new Map<string, MonthAmount>();
  /** What Swath recorded per account since the billing summaries began to show it: spend the service's billing has not grown by yet. */
  private readonly unbilled = new Map<string, MonthAmount>();

  private constructor(readonly file: string, private readonly db: DatabaseSync, private readonly ownsDb: boolean, private readonly now: () => number, private readonly ceilingEur: number | null) {
    const p = (q: string): StatementSync => db.prepare(q);
    this.sql = {
      budget: p('SELECT eur FROM spend_account_budgets WHERE account = ?'),
      setBudget: p('INSERT OR REPLACE INTO spend_account_budgets (account, eur) VALUES (?, ?)'),
      clearBudget: p('DELETE FROM spend_account_budgets WHERE account = ?'),
      add: p('INSERT INTO spend_ledger (profile_id, account, at, cost_eur, what) VALUES (?, ?, ?, ?, ?)'),
      prune: p('DELETE FROM spend_ledger WHERE at < ?'),
      sum: p('SELECT TOTAL(cost_eur) AS eur FROM spend_ledger WHERE account = ? AND at >= ? AND at < ?'),
      legacyBudget: p('SELECT eur FROM spend_budgets WHERE profile_id = ?'),
      setLegacyBudget: p('INSERT OR REPLACE INTO spend_budgets (profile_id, eur) VALUES (?, ?)'),
      dropLegacyBudget: p('DELETE FROM spend_budgets WHERE profile_id = ?'),
      addLegacy: p('INSERT INTO spend_ledger (profile_id, at, cost_eur, what) VALUES (?, ?, ?, ?)'),
      hasLegacy: p('SELECT EXISTS (SELECT 1 FROM spend_ledger WHERE profile_id = :p AND account IS NULL) OR EXISTS (SELECT 1 FROM spend_budgets WHERE profile_id = :p) AS has'),
      adoptLedger: p('UPDATE spend_ledger SET account = ? WHERE profile_id = ? AND account IS NULL'),
      legacyProfiles: p('SELECT profile_id FROM spend_ledger WHERE account IS NULL UNION SELECT profile_id FROM spend_budgets'),
    };
  }

  /**
   * Opens the budgets and the ledger in `opts.db` (or swath.db in `dir`). An old `spend.json` there
   * is imported once, in one transaction, then kept as `spend.json.imported-<ms>`; an unreadable one
   * is renamed `.corrupt-<ms>` with a warning and the guard starts with no budget. Its entries are
   * keyed by profile until {@link adopt}.
   */
  static async open(dir: string, opts: SpendStoreOptions = {}): Promise<SpendStore> {
    const now = opts.now ?? Date.now;
    const db = opts.db ?? (await openDatabase({ dir, onWarning: opts.onWarning, now })).db;
    const s = new SpendStore(path.join(dir, SPEND_FILE), db, !opts.db, now, opts.ceilingEur ?? null);
    await importJsonOnce(db, {
      file: s.file, subject: 'the spend guard (no budget, an empty ledger)', format: 'spend', schema: fileSchema, now, warn: opts.onWarning,
      write: ({ budgets, ledger }) => {
        for (const [profileId, eur] of Object.entries(budgets)) s.sql.setLegacyBudget.run(profileId, eur);
        for (const e of ledger) s.sql.addLegacy.run(e.profileId, e.at, e.costEur, e.what);
      },
    });
    return s;
  }

  /** Closes the database when this store opened it itself. */
  close(): void {
    if (this.ownsDb && this.db.isOpen) this.db.close();
  }

  /** The admin policy's ceiling in EUR, or null. */
  get ceiling(): number | null {
    return this.ceilingEur;
  }

  /** The profiles whose entries or budget are still keyed by profile (not adopted by an account yet). */
  legacyProfiles(): string[] {
    return (this.sql.legacyProfiles.all() as { profile_id: string }[]).map((r) => r.profile_id);
  }

  /**
   * Moves a profile's entries and budget of the profile-keyed schema to its account: the entries
   * count for the account from now on, and its budget becomes the account's (the lower one when the
   * account has a budget already). Nothing to move: nothing is written.
   */
  adopt(profileId: string, account: string): void {
    if (!(this.sql.hasLegacy.get({ p: profileId }) as { has: number }).has) return;
    inTransaction(this.db, () => {
      const legacy = (this.sql.legacyBudget.get(profileId) as { eur: number } | undefined)?.eur;
      if (legacy !== undefined) {
        const own = this.ownBudget(account);
        this.sql.setBudget.run(account, own === null ? legacy : Math.min(own, legacy));
        this.sql.dropLegacyBudget.run(profileId);
      }
      this.sql.adoptLedger.run(account, profileId);
    });
  }

  /** The account's own budget (EUR), before the policy's ceiling. */
  ownBudget(account: string): number | null {
    return (this.sql.budget.get(account) as { eur: number } | undefined)?.eur ?? null;
  }

  /** Forgets the account's billing summary: the next check asks the service again (after Swath spent). */
  forgetSummary(account: string): void {
    this.summaries.delete(account);
  }

  /** The account's monthly budget in EUR, or null; never above the admin policy's ceiling. */
  budget(account: string): number | null {
    const own = this.ownBudget(account);
    if (this.ceilingEur === null) return own;
    return own === null ? this.ceilingEur : Math.min(own, this.ceilingEur);
  }

  /** Sets or clears (null) an account's monthly budget; above the policy's ceiling is refused. */
  async setBudget(account: string, eur: number | null): Promise<void> {
    if (eur !== null && this.ceilingEur !== null && eur > this.ceilingEur) {
      throw new AppError('validation', `Your organisation's policy caps the monthly budget at ${this.ceilingEur.toFixed(2)} EUR.`, { fields: { budgetEur: [`At most ${this.ceilingEur.toFixed(2)} EUR (policy).`] } });
    }
    if (eur === null) this.sql.clearBudget.run(account);
    else this.sql.setBudget.run(account, cents(eur));
    afterCommit(this.db);
  }

  /**
   * Records a cost Swath acted on, for an account (`profileId`: which profile spent it). Until a
   * billing summary has grown by it, it counts on top of what billing says.
   */
  async record(account: string, costEur: number, what: string, profileId = account): Promise<void> {
    if (!(costEur >= 0)) return;
    const month = monthOf(this.now());
    const before = this.unbilled.get(account);
    this.unbilled.set(account, { month, eur: (before?.month === month ? before.eur : 0) + costEur });
    this.write(() => this.sql.add.run(profileId, account, new Date(this.now()).toISOString(), cents(costEur), what));
  }

  /** Records a cost of a profile whose account could not be read now: it is counted for the account once {@link adopt}ed. */
  async recordForProfile(profileId: string, costEur: number, what: string): Promise<void> {
    if (!(costEur >= 0)) return;
    this.write(() => this.sql.addLegacy.run(profileId, new Date(this.now()).toISOString(), cents(costEur), what));
  }

  private write(add: () => void): void {
    inTransaction(this.db, () => {
      add();
      // Older months are of no use to a monthly guard: keep this year's entries only.
      this.sql.prune.run(new Date(this.now() - LEDGER_KEEP_DAYS * 86_400_000).toISOString());
    });
  }

  /** What the ledger holds for an account in a month (YYYY-MM). */
  ledgerSpend(account: string, month: string): number {
    return cents((this.sql.sum.get(account, month, pastPrefix(month)) as { eur: number }).eur);
  }

  /** A billing summary was read: what it grew by since the last one is spend it shows now, no longer unbilled. */
  private billedNow(account: string, month: string, spent: number): void {
    const last = this.billed.get(account);
    const unbilled = this.unbilled.get(account);
    if (last?.month !== month) this.unbilled.delete(account);
    else if (unbilled?.month === month) this.unbilled.set(account, { month, eur: Math.max(0, unbilled.eur - Math.max(0, spent - last.eur)) });
    this.billed.set(account, { month, eur: spent });
  }

  /**
   * Month-to-date spend of an account plus `costEur` against its budget. `billing` asks the service
   * for this month's billing summary (one serves {@link BILLING_FRESH_MS}); a summary that could not
   * be read is asked for again next time. The month's spend is never below Swath's own ledger:
   * when the summary names the month's spend, it is that plus what Swath recorded and the summaries
   * have not grown by yet (the service may count an order late), and the ledger's total when that
   * is more; else the ledger alone. `pendingEur` (allowed, not yet recorded) counts as spent.
   */
  async view(account: string, costEur: number, billing: (() => Promise<unknown>) | null, pendingEur = 0, profileId = account): Promise<SpendView> {
    const now = this.now();
    const month = monthOf(now);
    let summary = this.summaries.get(account);
    let note: string | null = null;
    if (!billing) {
      summary = undefined;
      note = 'No billing summary is available for this profile.';
    } else if (!summary || now - summary.at > BILLING_FRESH_MS || monthOf(summary.at) !== month) {
      summary = undefined;
      this.summaries.delete(account);
      try {
        summary = { at: now, spent: spendFromBilling(await billing()) };
        this.summaries.set(account, summary);
        if (summary.spent !== null) this.billedNow(account, month, summary.spent);
      } catch (e) {
        note = `The billing summary could not be read: ${(e as Error).message}`;
      }
    }
    const billed = summary?.spent ?? null;
    if (summary && billed === null) note = "The service's billing summary names no spend for this month.";
    const ledger = this.ledgerSpend(account, month);
    const unbilled = this.unbilled.get(account);
    const fromBilling = billed === null ? null : cents(billed + (unbilled?.month === month ? unbilled.eur : 0));
    const useBilling = fromBilling !== null && fromBilling >= ledger;
    if (fromBilling !== null && !useBilling) note = `The service's billing summary (${billed!.toFixed(2)} EUR) does not show all Swath spent this month yet: Swath's own ledger counts.`;
    const budgetEur = this.budget(account);
    const spentEur = cents(pendingEur + (useBilling ? fromBilling : ledger));
    const cost = cents(costEur);
    const afterEur = cents(spentEur + cost);
    return {
      profileId, month, budgetEur, spentEur, source: useBilling ? 'billing' : 'ledger', sourceNote: useBilling ? null : note,
      costEur: cost, afterEur, overBudget: budgetEur !== null && afterEur > budgetEur + 1e-9, ceilingEur: this.ceilingEur,
    };
  }
}
