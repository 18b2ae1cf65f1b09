/**
 * A schema step of swath.db, released: never edited (a change is a new step). The download queue's jobs (`download_jobs`: every job as JSON, indexed by state and updated time;
 * finished jobs live only here, see main/downloads/queue.ts).
 * Its place in the order is main/shared/database.ts's `MIGRATIONS`.
 */
export const downloadJobs = {
  name: 'download jobs',
  // One row per job; `finished` (done, failed, cancelled) orders the history newest first.
  sql: `
      CREATE TABLE download_jobs (
        id TEXT PRIMARY KEY,
        state TEXT NOT NULL,
        finished INTEGER NOT NULL,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        job TEXT NOT NULL
      );
      CREATE INDEX download_jobs_state ON download_jobs (state, updated_at, id);
      CREATE INDEX download_jobs_finished ON download_jobs (finished, updated_at, id);
    `,
};
