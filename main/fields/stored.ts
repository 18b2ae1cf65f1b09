/**
 * A parcel set's stored geometries read in a worker thread: ParcelStore.packed asks the fields import
 * worker's read thread (import-worker.ts, op 'pack') for a chunk of parcels, so a statistics run
 * never decodes geometries on main's thread. The thread keeps one read-only connection per database.
 */
import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { openThreadConnection } from '../shared/connection.js';
import { decodeGeometry } from './geometry.js';
import { packFlat, type PackedParcels } from './stats/packed.js';

export interface PackTask {
  op: 'pack';
  dbFile: string;
  setId: string;
  indices: Int32Array;
}

const connections = new Map<string, { db: DatabaseSync; sid: StatementSync; geometry: StatementSync }>();

/** The parcels `indices` of set `setId` packed in that order; throws when the set or one of them is not stored (deleted since the run began). */
export function packStored(task: PackTask): PackedParcels {
  let c = connections.get(task.dbFile);
  if (!c) {
    const db = openThreadConnection(task.dbFile, { readOnly: true });
    c = { db, sid: db.prepare("SELECT sid FROM parcel_set WHERE id = ? AND state = 'ready'"), geometry: db.prepare('SELECT geometry FROM parcel WHERE sid = ? AND idx = ?') };
    connections.set(task.dbFile, c);
  }
  const set = c.sid.get(task.setId) as { sid: number } | undefined;
  if (!set) throw new Error(`the parcel set ${task.setId} is no longer stored`);
  const flats = Array.from(task.indices, (idx) => {
    const row = c.geometry.get(set.sid, idx) as { geometry: Uint8Array } | undefined;
    if (!row) throw new Error(`parcel ${idx} of set ${task.setId} is no longer stored`);
    return decodeGeometry(row.geometry);
  });
  return packFlat(task.indices, flats);
}
