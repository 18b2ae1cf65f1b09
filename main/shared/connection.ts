/**
 * Connections to swath.db and what every writer on one does: a worker thread's own connection
 * (the import, the statistics writer, the library's query thread), and one transaction.
 * Main's own connection is opened by database.ts (WAL, the schema's steps, its checkpointer).
 */
import { DatabaseSync } from 'node:sqlite';
import { afterCommit } from './wal-checkpointer.js';

/**
 * A worker thread's connection to a database main has open (WAL, so it reads the last commit
 * while main writes). A writer waits up to 5 s for the write lock, which each writer holds for
 * one short transaction at a time.
 */
export function openThreadConnection(file: string, opts: { readOnly?: boolean } = {}): DatabaseSync {
  const db = new DatabaseSync(file, { readOnly: opts.readOnly ?? false });
  db.exec('PRAGMA busy_timeout = 5000; PRAGMA synchronous = NORMAL; PRAGMA cache_size = -32000; PRAGMA temp_store = MEMORY;');
  return db;
}

/** Runs `fn` in one transaction (BEGIN IMMEDIATE … COMMIT), rolled back when it throws; main's connection checkpoints soon after. */
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
