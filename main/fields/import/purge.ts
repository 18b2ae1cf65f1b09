/**
 * Deleting parcel sets: main deletes a set's row at once and queues its `sid` in `parcel_purge`
 * ({@link markDeleted}); the fields import worker then removes its parcels in batches
 * ({@link purgeDeleted}), so main never waits on thousands of row deletions.
 */
import type { DatabaseSync } from 'node:sqlite';

/** Parcels removed per transaction. */
const PURGE_BATCH = 500;

const nextTurn = (): Promise<void> => new Promise((r) => setImmediate(r));

/**
 * Removes the parcels of the sets in `parcel_purge` (deleted by the analyst, or an import that
 * failed or was left half done), in batches by the set's index, then the purge's row.
 */
export async function purgeDeleted(db: DatabaseSync, signal?: AbortSignal): Promise<number> {
  const sets = db.prepare('SELECT sid FROM parcel_purge').all() as { sid: number }[];
  const pick = db.prepare('SELECT pid FROM parcel WHERE sid = ? LIMIT ?');
  const delParcel = db.prepare('DELETE FROM parcel WHERE pid = ?');
  const delBox = db.prepare('DELETE FROM parcel_box WHERE pid = ?');
  const done = db.prepare('DELETE FROM parcel_purge WHERE sid = ?');
  let removed = 0;
  for (const { sid } of sets) {
    for (;;) {
      if (signal?.aborted) return removed;
      db.exec('BEGIN IMMEDIATE');
      let n = 0;
      try {
        for (const { pid } of pick.all(sid, PURGE_BATCH) as { pid: number }[]) {
          delParcel.run(pid);
          delBox.run(pid);
          n++;
        }
        if (n === 0) done.run(sid);
        db.exec('COMMIT');
      } catch (e) {
        if (db.isTransaction) db.exec('ROLLBACK');
        throw e;
      }
      removed += n;
      if (n === 0) break;
      await nextTurn();
    }
  }
  return removed;
}

/** Deletes a set's row and queues its parcels for {@link purgeDeleted} (one transaction). */
export function markDeleted(db: DatabaseSync, where: string, ...params: (string | number)[]): number {
  db.exec('BEGIN IMMEDIATE');
  try {
    db.prepare(`INSERT OR IGNORE INTO parcel_purge (sid) SELECT sid FROM parcel_set WHERE ${where}`).run(...params);
    const n = Number(db.prepare(`DELETE FROM parcel_set WHERE ${where}`).run(...params).changes);
    db.exec('COMMIT');
    return n;
  } catch (e) {
    if (db.isTransaction) db.exec('ROLLBACK');
    throw e;
  }
}
