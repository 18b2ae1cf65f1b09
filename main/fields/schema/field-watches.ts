/**
 * A schema step of swath.db, released: never edited (a change is a new step). Parcel sets attached
 * to watches (`field_watches`: the index, pixel rule, valid-share minimum, threshold and direction
 * chosen when attaching) and the watch rasters each attachment has computed (`field_watch_rasters`),
 * so a date is computed and notified once (main/fields/monitor.ts).
 * Its place in the order is main/shared/database.ts's `MIGRATIONS`.
 */
export const fieldWatches = {
  name: 'field-watches',
  sql: `
      CREATE TABLE field_watches (
        set_id TEXT NOT NULL,
        watch_id TEXT NOT NULL,
        expression TEXT NOT NULL,
        rule TEXT NOT NULL,
        min_valid_share REAL NOT NULL,
        threshold REAL NOT NULL,
        direction TEXT NOT NULL,
        baseline_done INTEGER NOT NULL DEFAULT 0,
        created_at TEXT NOT NULL,
        PRIMARY KEY (set_id, watch_id)
      );
      CREATE INDEX field_watches_watch ON field_watches (watch_id);
      CREATE TABLE field_watch_rasters (
        set_id TEXT NOT NULL,
        watch_id TEXT NOT NULL,
        raster_id TEXT NOT NULL,
        date TEXT NOT NULL,
        PRIMARY KEY (set_id, watch_id, raster_id),
        FOREIGN KEY (set_id, watch_id) REFERENCES field_watches (set_id, watch_id) ON DELETE CASCADE
      );
  `,
};
