/**
 * A schema step of swath.db. Parcel sets (main/fields/parcels.ts): `parcel_set`, one row per set
 * (`state` 'importing' while the import worker writes it, 'ready' after; only ready sets are
 * listed; a deleted set has no row), and `parcel`, one row per parcel in import
 * order (`idx`), its id and name, its WGS 84 box, and its geometry in the set's CRS as one blob
 * (main/fields/geometry.ts `encodeGeometry`: part and ring counts, then float64 coordinates).
 * `parcel_box` is the R*Tree of the WGS 84 boxes (by `pid`). No foreign key cascade: a deleted
 * set's `sid` goes to `parcel_purge`, and its parcels are removed in batches off main's thread (by
 * `parcel_order`, whose first column is the set). `sid` never comes back (AUTOINCREMENT), so a new
 * set never adopts a deleted one's rows.
 * Its place in the order is main/shared/database.ts's `MIGRATIONS`.
 */
export const parcelSets = {
  name: 'parcel sets',
  sql: `
      CREATE TABLE parcel_set (
        sid INTEGER PRIMARY KEY AUTOINCREMENT,
        id TEXT NOT NULL UNIQUE,
        state TEXT NOT NULL,
        name TEXT NOT NULL,
        source_file TEXT NOT NULL,
        format TEXT NOT NULL,
        layer TEXT,
        crs TEXT NOT NULL,
        id_column TEXT NOT NULL,
        name_column TEXT,
        count INTEGER NOT NULL,
        skipped INTEGER NOT NULL,
        west REAL, south REAL, east REAL, north REAL,
        created_at TEXT NOT NULL
      );
      CREATE TABLE parcel (
        pid INTEGER PRIMARY KEY,
        sid INTEGER NOT NULL,
        idx INTEGER NOT NULL,
        id TEXT NOT NULL,
        name TEXT,
        west REAL NOT NULL, south REAL NOT NULL, east REAL NOT NULL, north REAL NOT NULL,
        geometry BLOB NOT NULL
      );
      CREATE UNIQUE INDEX parcel_order ON parcel (sid, idx);
      CREATE UNIQUE INDEX parcel_id ON parcel (sid, id);
      CREATE VIRTUAL TABLE parcel_box USING rtree (pid, west, east, south, north);
      CREATE TABLE parcel_purge (sid INTEGER PRIMARY KEY);
    `,
};
