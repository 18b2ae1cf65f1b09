/**
 * A schema step of swath.db: field statistics (`field_statistics`: one row per parcel, raster,
 * index and pixel rule of a parcel set; main/fields/stats/store.ts) and the coverage cache
 * (`field_coverage`: each chunk of a set's parcels on one pixel grid under one rule, a compressed
 * blob, so a grid's coverage is computed once whatever the dates and runs).
 * Its place in the order is main/shared/database.ts's `MIGRATIONS`.
 */
export const fieldStatistics = {
  name: 'field-statistics',
  // Results are read by parcel (a chart) and by date (the map, the table, the change), both within
  // one set, index and rule: the key serves the first, an index the second. A statistic that is
  // null (no valid pixel) is NULL.
  sql: `
      CREATE TABLE field_statistics (
        set_id TEXT NOT NULL,
        index_label TEXT NOT NULL,
        rule TEXT NOT NULL,
        parcel_index INTEGER NOT NULL,
        raster_id TEXT NOT NULL,
        date TEXT NOT NULL,
        mean REAL,
        min REAL,
        max REAL,
        std REAL,
        median REAL,
        p10 REAL,
        p90 REAL,
        valid_pixels REAL NOT NULL,
        covered_share REAL NOT NULL,
        valid_share REAL NOT NULL,
        below_threshold INTEGER NOT NULL,
        PRIMARY KEY (set_id, index_label, rule, parcel_index, raster_id)
      ) WITHOUT ROWID;
      CREATE INDEX field_statistics_date ON field_statistics (set_id, index_label, rule, date, parcel_index);
      CREATE TABLE field_coverage (
        set_id TEXT NOT NULL,
        grid_key TEXT NOT NULL,
        rule TEXT NOT NULL,
        chunk INTEGER NOT NULL,
        parcels INTEGER NOT NULL,
        bytes INTEGER NOT NULL,
        data BLOB NOT NULL,
        PRIMARY KEY (set_id, grid_key, rule, chunk)
      ) WITHOUT ROWID;
    `,
};
