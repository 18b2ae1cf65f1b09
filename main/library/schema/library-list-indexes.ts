/**
 * A schema step of swath.db, released: never edited (a change is a new step). The library's list pages from indexes alone (a search's counts, the date order's walk, a series' dates;
 * main/library/catalog.ts).
 * Its place in the order is main/shared/database.ts's `MIGRATIONS`.
 */
export const libraryListIndexes = {
  name: 'library list indexes',
  // A list page reads only indexes: a search's counts read each match's series group by row, the
  // walk down the date order reads the group beside the date, a series' dates come with their ids.
  sql: `
      CREATE INDEX library_rid_group ON library (rid, group_key);
      DROP INDEX library_date_desc;
      CREATE INDEX library_date_desc ON library ((date IS NULL), date DESC, created_at DESC, group_key);
      DROP INDEX library_date_asc;
      CREATE INDEX library_date_asc ON library ((date IS NULL), date ASC, created_at DESC, group_key);
      DROP INDEX library_group;
      CREATE INDEX library_group ON library (group_key, date, created_at, id);
    `,
};
