/**
 * A schema step of swath.db, released: never edited (a change is a new step). The team library's registration outbox (`team_outbox`, main/team/outbox.ts).
 * Its place in the order is main/shared/database.ts's `MIGRATIONS`.
 */
export const teamOutbox = {
  name: 'team registration outbox',
  // Registrations waiting for the team catalog, in the order they were queued (main/team/outbox.ts).
  // `idem` (sha256 and storage path) makes queueing the same registration twice one item; a row the
  // catalog refused as invalid is parked (parked_at, parked_reason) instead of being retried.
  sql: `
      CREATE TABLE team_outbox (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        idem TEXT NOT NULL UNIQUE,
        input TEXT NOT NULL,
        queued_at TEXT NOT NULL,
        attempts INTEGER NOT NULL DEFAULT 0,
        last_error TEXT,
        parked_at TEXT,
        parked_reason TEXT
      );
      CREATE INDEX team_outbox_ready ON team_outbox (seq) WHERE parked_at IS NULL;
    `,
};
