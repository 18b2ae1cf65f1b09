/**
 * A schema step of swath.db, released: never edited (a change is a new step). The spend guard's budgets and ledger (`spend_budgets`, `spend_ledger`; main/spend/store.ts).
 * Its place in the order is main/shared/database.ts's `MIGRATIONS`.
 */
export const spendLedger = {
  name: 'spend ledger',
  // Budgets per profile; the ledger's entries indexed by profile and time (a month's total is a
  // range of that index) and by time alone (pruning).
  sql: `
      CREATE TABLE spend_budgets (profile_id TEXT PRIMARY KEY, eur REAL NOT NULL);
      CREATE TABLE spend_ledger (
        seq INTEGER PRIMARY KEY,
        profile_id TEXT NOT NULL,
        at TEXT NOT NULL,
        cost_eur REAL NOT NULL,
        what TEXT NOT NULL
      );
      CREATE INDEX spend_ledger_profile ON spend_ledger (profile_id, at, cost_eur);
      CREATE INDEX spend_ledger_at ON spend_ledger (at);
    `,
};
