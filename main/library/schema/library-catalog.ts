/**
 * A schema step of swath.db, released: never edited (a change is a new step). The library catalog (main/library/catalog.ts): entries (their JSON in a table of its own) with indexes on
 * date, model, created time, name and path, and their time-series keys; an R*Tree of lon/lat footprints;
 * a trigram FTS5 index of the searchable text and the band list. With it came `meta`, the database
 * module's own table of one-time imports done (main/shared/database.ts `importJsonOnce`).
 * Its place in the order is main/shared/database.ts's `MIGRATIONS`.
 */
export const libraryCatalog = {
  name: 'library catalog',
  sql: `
      CREATE TABLE library (
        rid INTEGER PRIMARY KEY,
        id TEXT NOT NULL UNIQUE,
        path TEXT NOT NULL UNIQUE,
        name_key TEXT NOT NULL,
        date TEXT,
        model TEXT,
        created_at TEXT NOT NULL,
        size INTEGER NOT NULL,
        source TEXT NOT NULL,
        hashed INTEGER NOT NULL,
        series_key TEXT,
        group_key TEXT
      );
      -- The entry as JSON, apart: the list's table stays narrow, so filters, counts and orders read few pages.
      CREATE TABLE library_entry (rid INTEGER PRIMARY KEY, entry TEXT NOT NULL);
      CREATE INDEX library_date_desc ON library ((date IS NULL), date DESC, created_at DESC);
      CREATE INDEX library_date_asc ON library ((date IS NULL), date ASC, created_at DESC);
      CREATE INDEX library_model ON library (model);
      CREATE INDEX library_created ON library (created_at);
      CREATE INDEX library_name ON library (name_key);
      CREATE INDEX library_series ON library (series_key, date);
      CREATE INDEX library_group ON library (group_key, date, created_at);
      CREATE INDEX library_size ON library (size);
      CREATE INDEX library_unhashed ON library (hashed) WHERE hashed = 0;
      CREATE VIRTUAL TABLE library_box USING rtree (rid, west, east, south, north);
      CREATE VIRTUAL TABLE library_text USING fts5 (text, bands, tokenize = 'trigram');
      CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
    `,
};
