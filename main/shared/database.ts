import { existsSync, renameSync } from 'node:fs';
import { mkdir, rename } from 'node:fs/promises';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import type { ZodType } from 'zod';
import { throwIfAborted } from '../../common/abort.js';
import { readJsonFile } from './files.js';
import { afterCommit, WalCheckpointer } from './wal-checkpointer.js';

export { afterCommit };

/**
 * Main's embedded database, `swath.db` in the userData directory: Node's built-in SQLite
 * (`node:sqlite`, no native module to build for Electron) in WAL mode. The features keep their
 * tables here (the library catalog first; see {@link MIGRATIONS}). Every change is one small
 * transaction, so a crash loses at most the change in flight and never tears the file.
 */

/** Name of the database file inside the userData directory. */
export const DATABASE_FILE = 'swath.db';

/** One schema step; `user_version` counts the steps applied. Never edit a shipped step: append one. */
export interface Migration {
  /** What it adds, for the log and the error when it fails. */
  name: string;
  sql: string;
}

/**
 * The schema, in order. 1: the library catalog (entries (their JSON in a table of its own) with indexes on date, model, created time,
 * name and path, and their time-series keys; an R*Tree of lon/lat footprints; a trigram FTS5 index
 * of the searchable text and the band list) and `meta` (one-time imports done). 2: the team
 * library's registration outbox (`team_outbox`). 3: the download queue's jobs (`download_jobs`: every
 * job as JSON, indexed by state and updated time; finished jobs live only here, see main/downloads/queue.ts).
 * 4: watches (`watches`, `watch_dates`: one row per date of a watch; main/watches/store.ts). 5: the
 * spend guard's budgets and ledger (`spend_budgets`, `spend_ledger`; main/spend/store.ts). 6: the library's
 * list pages from indexes alone (a search's counts, the date order's walk, a series' dates; main/library/catalog.ts).
 * 7: the spend guard counts per account (service and key fingerprint; main/spend/account.ts): the
 * ledger's `account` and `spend_account_budgets`; rows of step 5 stay keyed by profile until the
 * guard learns that profile's account and moves them (main/spend/store.ts `adopt`).
 * 8: the key of the request that produced each library raster (`request_key`, indexed), so a request
 * already in the library is found without a scan (main/library/request-identity.ts).
 */
export const MIGRATIONS: readonly Migration[] = [
  {
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
  },
  {
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
  },
  {
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
  },
  {
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
  },
  {
    name: 'spend ledger',
    // Budgets per profile; the ledger's entries indexed by profile and time (a month's total is a
    // range of that index) and by time alone (pruning).
    sql: `
      CREATE TABLE spend_budgets (profile_id TEXT PRIMARY KEY, eur REAL NOT NULL);
      CREATE TABLE spend_ledger (
        seq INTEGER PRIMARY KEY,
        profile_id TEXT NOT NULL,
        at TEXT NOT NULL,
        cost_eur REAL NOT NULL,
        what TEXT NOT NULL
      );
      CREATE INDEX spend_ledger_profile ON spend_ledger (profile_id, at, cost_eur);
      CREATE INDEX spend_ledger_at ON spend_ledger (at);
    `,
  },
  {
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
  },
  {
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
  },
  {
    name: 'library request keys',
    // NULL: not keyed yet (rows of earlier versions, keyed in the background); '': nothing to key (an import, an unreadable request).
    // A series' dates still come from the group index alone, which now carries the key that collapses identical rasters.
    sql: `
      ALTER TABLE library ADD COLUMN request_key TEXT;
      CREATE INDEX library_request ON library (request_key);
      DROP INDEX library_group;
      CREATE INDEX library_group ON library (group_key, date, created_at, id, request_key);
    `,
  },
];

/** Options of {@link openDatabase}. */
export interface DatabaseOptions {
  /** userData directory. */
  dir: string;
  /** Told, in words the analyst can act on, when the database was unreadable and set aside. */
  onWarning?: (message: string) => void;
  now?: () => number;
  /** The schema (tests pass their own). */
  migrations?: readonly Migration[];
  /**
   * Checkpoints the write-ahead log in a worker thread instead of inside main's commits (the app's
   * one database; see main/shared/wal-checkpointer.ts). Off for the stores tests open on their own.
   */
  checkpointInWorker?: boolean;
}

/** An open database: the connection and whether it is new (nothing was there, or it was set aside). */
export interface OpenDatabase {
  db: DatabaseSync;
  file: string;
  /** True when this start created the database (first start, or after setting a broken one aside). */
  created: boolean;
  /** The worker checkpointing the log (with `checkpointInWorker`, when it started). */
  checkpointer: WalCheckpointer | null;
  /** Stops the checkpointer, then closes the connection. */
  close(): Promise<void>;
}

function opened(db: DatabaseSync, file: string, created: boolean, opts: DatabaseOptions): OpenDatabase {
  const checkpointer = opts.checkpointInWorker ? WalCheckpointer.start(db, file, { onWarning: opts.onWarning }) : null;
  return {
    db, file, created, checkpointer,
    async close() {
      await checkpointer?.close();
      db.close();
    },
  };
}

/** The write-ahead log's size on disk once checkpointed, bytes. */
export const WAL_SIZE_LIMIT = 16 * 1024 * 1024;

function connect(file: string, migrations: readonly Migration[]): DatabaseSync {
  const db = new DatabaseSync(file);
  try {
    db.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON; PRAGMA busy_timeout = 2000; PRAGMA cache_size = -32000; PRAGMA temp_store = MEMORY;');
    // The log keeps its largest size on disk once a burst of commits grew it (checkpoints wait for the
    // commits to pause, wal-checkpointer.ts): the next write after a whole checkpoint cuts it back to this.
    db.exec(`PRAGMA journal_size_limit = ${WAL_SIZE_LIMIT}`);
    // Reads the header and the schema: a file that is not a database, or one torn there, fails here.
    // (Not an integrity check of every page: that reads the whole file, seconds at 100,000 rasters.)
    db.prepare('SELECT COUNT(*) AS n FROM sqlite_master').get();
    migrate(db, migrations);
    return db;
  } catch (e) {
    try {
      db.close();
    } catch {
      // Already unusable; setting it aside is what matters.
    }
    throw e;
  }
}

/** Applies the steps past `user_version`, each in its own transaction with the version bump. */
export function migrate(db: DatabaseSync, migrations: readonly Migration[]): void {
  const { user_version: at } = db.prepare('PRAGMA user_version').get() as { user_version: number };
  if (at > migrations.length) {
    throw new Error(`it was written by a newer Swath (schema ${at}; this version knows ${migrations.length})`);
  }
  for (let v = at; v < migrations.length; v++) {
    const step = migrations[v]!;
    db.exec('BEGIN IMMEDIATE');
    try {
      db.exec(step.sql);
      db.exec(`PRAGMA user_version = ${v + 1}`);
      db.exec('COMMIT');
    } catch (e) {
      db.exec('ROLLBACK');
      throw new Error(`schema step ${v + 1} (${step.name}) failed: ${(e as Error).message}`, { cause: e });
    }
  }
}

/**
 * Opens (creating when absent) `swath.db` in `opts.dir` and brings its schema up to date. A file
 * that cannot be opened, fails to read its schema or carries a newer schema is renamed aside with
 * its WAL (kept for the analyst or support, never deleted), `onWarning` says where, and a fresh
 * database takes its place: the app starts either way.
 */
export async function openDatabase(opts: DatabaseOptions): Promise<OpenDatabase> {
  await mkdir(opts.dir, { recursive: true });
  const file = path.join(opts.dir, DATABASE_FILE);
  const migrations = opts.migrations ?? MIGRATIONS;
  const existed = existsSync(file);
  try {
    return opened(connect(file, migrations), file, !existed, opts);
  } catch (e) {
    if (!existed) throw e;
    const aside = `${file}.corrupt-${(opts.now ?? Date.now)()}`;
    for (const suffix of ['', '-wal', '-shm']) {
      try {
        renameSync(file + suffix, aside + suffix);
      } catch {
        // No WAL or shared-memory file: nothing to keep.
      }
    }
    opts.onWarning?.(
      `Swath's database ${file} could not be used (${(e as Error).message}). It was moved to ${aside} and kept there; `
      + 'Swath started with a new, empty database. The files of your rasters are untouched: import them again from their folder.',
    );
    return opened(connect(file, migrations), file, true, opts);
  }
}

/** Runs `fn` in one transaction (BEGIN IMMEDIATE … COMMIT), rolled back when it throws. */
export function inTransaction<T>(db: DatabaseSync, fn: () => T): T {
  db.exec('BEGIN IMMEDIATE');
  try {
    const out = fn();
    db.exec('COMMIT');
    afterCommit(db);
    return out;
  } catch (e) {
    if (db.isTransaction) db.exec('ROLLBACK');
    throw e;
  }
}

/** How {@link importJsonOnce} reads and writes one old JSON file. */
export interface JsonImport<T> {
  /** The old file (its name is the `meta` key saying it was imported). */
  file: string;
  /** What starts without it when it is unreadable, for the notice ("the queue"). */
  subject: string;
  /** The file's format: its name in the notice ("queue") and its schema. */
  format: string;
  schema: ZodType<T>;
  /** Writes the content (inside the import's one transaction). */
  write(data: T): void;
  now: () => number;
  warn?: (message: string) => void;
  signal?: AbortSignal;
}

/** Why a file is not in a zod schema's format, in a line: its first three issues with their paths. */
function formatProblem(file: string, format: string, issues: readonly { path: readonly PropertyKey[]; message: string }[]): string {
  return `${file} does not match the ${format} format: ${issues.map((i) => `${i.path.map(String).join('.') || '(root)'}: ${i.message}`).slice(0, 3).join('; ')}`;
}

/**
 * Imports a JSON file of earlier versions into `db` once: in one transaction with a `meta` row
 * naming it, then renames it `<name>.imported-<ms>` and keeps it (a crash between the two only
 * renames it at the next start). An unreadable file, or one not in its format, is renamed
 * `<name>.corrupt-<ms>` and kept, with a notice through `warn`; nothing is imported then. True
 * when it imported something this time.
 */
export async function importJsonOnce<T>(db: DatabaseSync, job: JsonImport<T>): Promise<boolean> {
  const { file } = job;
  if (!existsSync(file)) return false;
  const key = path.basename(file);
  const stamp = job.now();
  if (db.prepare('SELECT 1 AS x FROM meta WHERE key = ?').get(key)) {
    // Imported before, but a crash came between the commit and the rename.
    await rename(file, `${file}.imported-${stamp}`).catch(() => undefined);
    return false;
  }
  let raw: unknown = null;
  let problem: string | null = null;
  try {
    raw = await readJsonFile(file, job.signal);
  } catch (e) {
    throwIfAborted(job.signal);
    problem = (e as Error).message;
  }
  // Gone since (or the literal `null`): nothing to import.
  if (!problem && raw === null) return false;
  const parsed = problem ? null : job.schema.safeParse(raw);
  if (!parsed?.success) {
    const aside = `${file}.corrupt-${stamp}`;
    await rename(file, aside).catch(() => undefined);
    job.warn?.(`${problem ?? formatProblem(file, job.format, parsed!.error.issues)}. It was moved to ${aside} and ${job.subject} starts without it.`);
    return false;
  }
  inTransaction(db, () => {
    job.write(parsed.data);
    db.prepare('INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)').run(key, new Date(stamp).toISOString());
  });
  await rename(file, `${file}.imported-${stamp}`).catch((e: unknown) => job.warn?.(`Imported ${file} but could not rename it: ${(e as Error).message}`));
  return true;
}
