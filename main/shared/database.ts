import { existsSync, renameSync } from 'node:fs';
import { mkdir, rename } from 'node:fs/promises';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import type { ZodType } from 'zod';
import { throwIfAborted } from '../../common/abort.js';
import { readJsonFile } from './files.js';
import { afterCommit, WalCheckpointer } from './wal-checkpointer.js';
import { inTransaction } from './connection.js';
import { libraryCatalog } from '../library/schema/library-catalog.js';
import { teamOutbox } from '../team/schema/team-outbox.js';
import { downloadJobs } from '../downloads/schema/download-jobs.js';
import { watches } from '../watches/schema/watches.js';
import { spendLedger } from '../spend/schema/spend-ledger.js';
import { libraryListIndexes } from '../library/schema/library-list-indexes.js';
import { spendPerAccount } from '../spend/schema/spend-per-account.js';
import { libraryRequestKeys } from '../library/schema/library-request-keys.js';
import { parcelSets } from '../fields/schema/parcel-sets.js';
import { fieldStatistics } from '../fields/schema/field-statistics.js';
import { fieldWatches } from '../fields/schema/field-watches.js';

export { afterCommit, inTransaction };

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
 * The schema, in order: `user_version` N means the first N steps are applied. Each step is owned by
 * its feature, one file per step named by its purpose (`main/<feature>/schema/<purpose>.ts`: pure
 * SQL text, importing nothing; the layer table's "main schema steps"); this list alone gives their
 * order, so a step's number never changes. A released step is never edited and never moved: a
 * change is a new step appended here (test/main/shared/database.test.ts pins each released one).
 */
export const MIGRATIONS: readonly Migration[] = [
  libraryCatalog,
  teamOutbox,
  downloadJobs,
  watches,
  spendLedger,
  libraryListIndexes,
  spendPerAccount,
  libraryRequestKeys,
  parcelSets,
  fieldStatistics,
  fieldWatches,
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
    // Moves aside, not writes (SQLite writes the database itself): the unreadable files are kept for the user.
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
  // The renames below move an imported or unreadable document aside (kept for the user), they write nothing.
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
