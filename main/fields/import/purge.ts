/**
 * Deleting parcel sets: main deletes a set's row at once and queues its `sid` in `parcel_purge`
 * ({@link markDeleted}); the fields import worker then removes its parcels in batches
 * ({@link purgeDeleted}), so main never waits on thousands of row deletions.
 */
import type { DatabaseSync } from 'node:sqlite';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { inTransaction } from '../../shared/connection.js';

/** Parcels removed per transaction. */
const PURGE_BATCH = 500;

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
      const n = inTransaction(db, () => {
        let k = 0;
        for (const { pid } of pick.all(sid, PURGE_BATCH) as { pid: number }[]) {
          delParcel.run(pid);
          delBox.run(pid);
          k++;
        }
        if (k === 0) done.run(sid);
        return k;
      });
      removed += n;
      if (n === 0) break;
      await nextTurn();
    }
  }
  return removed;
}

/** Deletes a set's row and queues its parcels for {@link purgeDeleted} (one transaction). */
export function markDeleted(db: DatabaseSync, where: string, ...params: (string | number)[]): number {
  return inTransaction(db, () => {
    db.prepare(`INSERT OR IGNORE INTO parcel_purge (sid) SELECT sid FROM parcel_set WHERE ${where}`).run(...params);
    return Number(db.prepare(`DELETE FROM parcel_set WHERE ${where}`).run(...params).changes);
  });
}
