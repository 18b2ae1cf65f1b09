/**
 * A schema step of swath.db, released: never edited (a change is a new step). The key of the request that produced each library raster (`request_key`, indexed), so a request
 * already in the library is found without a scan (main/library/request-identity.ts).
 * Its place in the order is main/shared/database.ts's `MIGRATIONS`.
 */
export const libraryRequestKeys = {
  name: 'library request keys',
  // NULL: not keyed yet (rows of earlier versions, keyed in the background); '': nothing to key (an import, an unreadable request).
  // A series' dates still come from the group index alone, which now carries the key that collapses identical rasters.
  sql: `
      ALTER TABLE library ADD COLUMN request_key TEXT;
      CREATE INDEX library_request ON library (request_key);
      DROP INDEX library_group;
      CREATE INDEX library_group ON library (group_key, date, created_at, id, request_key);
    `,
};
