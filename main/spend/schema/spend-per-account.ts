/**
 * A schema step of swath.db, released: never edited (a change is a new step). The spend guard counts per account (service and key fingerprint; main/spend/account.ts): the ledger's
 * `account` and `spend_account_budgets`; rows of the spend ledger step stay keyed by profile until the
 * guard learns that profile's account and moves them (main/spend/store.ts `adopt`).
 * Its place in the order is main/shared/database.ts's `MIGRATIONS`.
 */
export const spendPerAccount = {
  name: 'spend per account',
  // A month's total is a range of (account, at); the rows of the profile-keyed schema (account
  // NULL, and the budgets in spend_budgets) wait in their own index until they are adopted.
  sql: `
      ALTER TABLE spend_ledger ADD COLUMN account TEXT;
      DROP INDEX spend_ledger_profile;
      CREATE INDEX spend_ledger_account ON spend_ledger (account, at, cost_eur);
      CREATE INDEX spend_ledger_unadopted ON spend_ledger (profile_id) WHERE account IS NULL;
      CREATE TABLE spend_account_budgets (account TEXT PRIMARY KEY, eur REAL NOT NULL);
    `,
};
