/**
 * A schema step of swath.db, released: never edited (a change is a new step). Watches (`watches`, `watch_dates`: one row per date of a watch; main/watches/store.ts).
 * Its place in the order is main/shared/database.ts's `MIGRATIONS`.
 */
export const watches = {
  name: 'watches',
  // A watch as JSON without its dates (`rid` keeps the order they were created in); each date is a
  // row of its own keyed by watch and day, with what the summaries count (state, when, cost) in a
  // covering index and what a chip shows (note, first library id) as columns, so a card's counts,
  // month's spend and latest dates are read without parsing the JSON.
  sql: `
      CREATE TABLE watches (
        rid INTEGER PRIMARY KEY,
        id TEXT NOT NULL UNIQUE,
        profile_id TEXT NOT NULL,
        state TEXT NOT NULL,
        next_run_at TEXT,
        watch TEXT NOT NULL
      );
      CREATE INDEX watches_profile ON watches (profile_id, rid);
      CREATE INDEX watches_due ON watches (state, next_run_at);
      CREATE TABLE watch_dates (
        watch_id TEXT NOT NULL REFERENCES watches (id) ON DELETE CASCADE,
        date TEXT NOT NULL,
        state TEXT NOT NULL,
        at TEXT NOT NULL,
        cost_eur REAL,
        note TEXT,
        library_id TEXT,
        item TEXT NOT NULL,
        PRIMARY KEY (watch_id, date)
      ) WITHOUT ROWID;
      CREATE INDEX watch_dates_state ON watch_dates (watch_id, state, at, cost_eur);
    `,
};
