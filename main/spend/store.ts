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

/**
 * The spend guard's memory (main/spend/guard.ts decides with it): an optional monthly budget per profile (EUR) and Swath's own ledger of
 * the costs it acted on (downloads and orders the analyst confirmed, watch downloads), kept in the
 * `spend_budgets` and `spend_ledger` tables of swath.db, each change one small transaction; a
 * month's total is a range of the ledger's (profile, time) index. An old `spend.json` is imported once.
 */
export class SpendStore {
  private readonly sql: Record<'budget' | 'setBudget' | 'clearBudget' | 'add' | 'prune' | 'sum', StatementSync>;
  /** The last billing summary read per profile: when (ms), and the month's spend it named (null: none). */
  private readonly summaries = new Map<string, { at: number; spent: number | null }>();

  private constructor(readonly file: string, private readonly db: DatabaseSync, private readonly ownsDb: boolean, private readonly now: () => number, private readonly ceilingEur: number | null) {
    const p = (q: string): StatementSync => db.prepare(q);
    this.sql = {
      budget: p('SELECT eur FROM spend_budgets WHERE profile_id = ?'),
      setBudget: p('INSERT OR REPLACE INTO spend_budgets (profile_id, eur) VALUES (?, ?)'),
      clearBudget: p('DELETE FROM spend_budgets WHERE profile_id = ?'),
      add: p('INSERT INTO spend_ledger (profile_id, at, cost_eur, what) VALUES (?, ?, ?, ?)'),
      prune: p('DELETE FROM spend_ledger WHERE at < ?'),
      sum: p('SELECT TOTAL(cost_eur) AS eur FROM spend_ledger WHERE profile_id = ? AND at >= ? AND at < ? AND at > ?'),
    };
  }

  /**
   * Opens the budgets and the ledger in `opts.db` (or swath.db in `dir`). An old `spend.json` there
   * is imported once, in one transaction, then kept as `spend.json.imported-<ms>`; an unreadable one
   * is renamed `.corrupt-<ms>` with a warning and the guard starts with no budget.
   */
  static async open(dir: string, opts: SpendStoreOptions = {}): Promise<SpendStore> {
    const now = opts.now ?? Date.now;
    const db = opts.db ?? (await openDatabase({ dir, onWarning: opts.onWarning, now })).db;
    const s = new SpendStore(path.join(dir, SPEND_FILE), db, !opts.db, now, opts.ceilingEur ?? null);
    await importJsonOnce(db, {
      file: s.file, subject: 'the spend guard (no budget, an empty ledger)', format: 'spend', schema: fileSchema, now, warn: opts.onWarning,
      write: ({ budgets, ledger }) => {
        for (const [profileId, eur] of Object.entries(budgets)) s.sql.setBudget.run(profileId, eur);
        for (const e of ledger) s.sql.add.run(e.profileId, e.at, e.costEur, e.what);
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

  /** The profile's own budget (EUR), before the policy's ceiling. */
  ownBudget(profileId: string): number | null {
    return (this.sql.budget.get(profileId) as { eur: number } | undefined)?.eur ?? null;
  }

  /** Forgets the profile's billing summary: the next check asks the service again (after Swath spent). */
  forgetSummary(profileId: string): void {
    this.summaries.delete(profileId);
  }

  /** The profile's monthly budget in EUR, or null; never above the admin policy's ceiling. */
  budget(profileId: string): number | null {
    const own = this.ownBudget(profileId);
    if (this.ceilingEur === null) return own;
    return own === null ? this.ceilingEur : Math.min(own, this.ceilingEur);
  }

  /** Sets or clears (null) a profile's monthly budget; above the policy's ceiling is refused. */
  async setBudget(profileId: string, eur: number | null): Promise<void> {
    if (eur !== null && this.ceilingEur !== null && eur > this.ceilingEur) {
      throw new AppError('validation', `Your organisation's policy caps the monthly budget at ${this.ceilingEur.toFixed(2)} EUR.`, { fields: { budgetEur: [`At most ${this.ceilingEur.toFixed(2)} EUR (policy).`] } });
    }
    if (eur === null) this.sql.clearBudget.run(profileId);
    else this.sql.setBudget.run(profileId, cents(eur));
    afterCommit(this.db);
  }

  /** Records a cost Swath acted on. */
  async record(profileId: string, costEur: number, what: string): Promise<void> {
    if (!(costEur >= 0)) return;
    inTransaction(this.db, () => {
      this.sql.add.run(profileId, new Date(this.now()).toISOString(), cents(costEur), what);
      // Older months are of no use to a monthly guard: keep this year's entries only.
      this.sql.prune.run(new Date(this.now() - LEDGER_KEEP_DAYS * 86_400_000).toISOString());
    });
  }

  /** What the ledger holds for a profile in a month (YYYY-MM), recorded after `since` (ISO time) when given. */
  ledgerSpend(profileId: string, month: string, since = ''): number {
    return cents((this.sql.sum.get(profileId, month, pastPrefix(month), since) as { eur: number }).eur);
  }

  /**
   * Month-to-date spend plus `costEur` against the budget. `billing` asks the service for this
   * month's billing summary. When it names the month's spend, that is the spend as of the summary,
   * plus what the ledger recorded since (a summary serves {@link BILLING_FRESH_MS}, and the service
   * may not count an order yet); else the ledger alone. A summary that could not be read is asked
   * for again next time.
   */
  async view(profileId: string, costEur: number, billing: (() => Promise<unknown>) | null, pendingEur = 0): Promise<SpendView> {
    const now = this.now();
    const month = monthOf(now);
    let summary = this.summaries.get(profileId);
    let note: string | null = null;
    if (!billing) {
      summary = undefined;
      note = 'No billing summary is available for this profile.';
    } else if (!summary || now - summary.at > BILLING_FRESH_MS || monthOf(summary.at) !== month) {
      summary = undefined;
      this.summaries.delete(profileId);
      try {
        summary = { at: now, spent: spendFromBilling(await billing()) };
        this.summaries.set(profileId, summary);
      } catch (e) {
        note = `The billing summary could not be read: ${(e as Error).message}`;
      }
    }
    const spent = summary?.spent ?? null;
    if (summary && spent === null) note = "The service's billing summary names no spend for this month.";
    const budgetEur = this.budget(profileId);
    // What Swath allowed and has not recorded yet (a download still running) counts as spent.
    const spentEur = cents(pendingEur + (spent === null ? this.ledgerSpend(profileId, month) : spent + this.ledgerSpend(profileId, month, new Date(summary!.at).toISOString())));
    const cost = cents(costEur);
    const afterEur = cents(spentEur + cost);
    return {
      profileId, month, budgetEur, spentEur, source: spent === null ? 'ledger' : 'billing', sourceNote: spent === null ? note : null,
      costEur: cost, afterEur, overBudget: budgetEur !== null && afterEur > budgetEur + 1e-9, ceilingEur: this.ceilingEur,
    };
  }
}
