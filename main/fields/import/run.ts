/**
 * The import itself, run in the fields import worker (import-worker.ts): reads the source, checks
 * each feature (id, name, geometry, limits) and writes the set into swath.db through the worker's
 * own connection, in transactions of {@link CHUNK} parcels so main's writes never wait long for
 * the lock. The set stays 'importing' (unlisted) until its last row is in; a failed or cancelled
 * import deletes it and removes what it wrote.
 */
import type { DatabaseSync } from 'node:sqlite';
import { setImmediate as nextTurn } from 'node:timers/promises';
import path from 'node:path';
import { throwIfAborted } from '../../../common/abort.js';
import { openThreadConnection } from '../../shared/connection.js';
import { checkGeometry, encodeGeometry, lonLatBox, type Bbox } from '../geometry.js';
import { toLonLat } from './crs.js';
import { ImportError, IMPORT_LIMITS, type ImportLimits } from './limits.js';
import { openSource } from './open.js';
import { markDeleted, purgeDeleted } from './purge.js';
import type { Source, SourceLayer } from './source.js';

/** Parcels per transaction of the import's writes (a few milliseconds each: main's own writes wait no longer for the lock). */
export const CHUNK = 500;
/** Skipped parcels listed in the result (the count covers all). */
export const SKIPPED_LISTED = 1000;

export interface SkippedParcel { row: number; id: string | null; reason: string }

export interface InspectTask { op: 'inspect'; file: string; limits?: ImportLimits }
export interface ImportTask {
  op: 'import';
  dbFile: string;
  file: string;
  setId: string;
  name: string;
  layer: string | null;
  idColumn: string;
  nameColumn: string | null;
  createdAt: string;
  limits?: ImportLimits;
}
export interface PurgeTask { op: 'purge'; dbFile: string }
export type FieldsImportTask = InspectTask | ImportTask | PurgeTask;

export interface InspectResult { format: Source['format']; layers: SourceLayer[] }
export interface ImportResult { setId: string; count: number; skipped: number; listed: SkippedParcel[] }

/** Progress as the worker posts it. */
export interface ImportProgress { done: number; total: number }

export async function inspectFile(file: string, limits: ImportLimits = IMPORT_LIMITS): Promise<InspectResult> {
  const source = await openSource(file, limits);
  try {
    return { format: source.format, layers: source.layers() };
  } finally {
    source.close();
  }
}

function pickLayer(source: Source, name: string | null): SourceLayer {
  const layers = source.layers();
  if (name == null) {
    if (layers.length === 1) return layers[0]!;
    if (layers.length === 0) throw new ImportError('the file has no layer of features');
    throw new ImportError(`the file has ${layers.length} layers (${layers.slice(0, 10).map((l) => l.name).join(', ')}${layers.length > 10 ? ', …' : ''}): choose one`);
  }
  const layer = layers.find((l) => l.name === name);
  if (!layer) throw new ImportError(`layer: the file has no layer named ${JSON.stringify(name.slice(0, 200))}`);
  return layer;
}

/** An id or name value as text, or why it cannot be one. */
function asText(v: unknown): string | null | { bad: string } {
  if (v === null || v === undefined) return null;
  if (typeof v === 'string') return v.trim() === '' ? null : v;
  if (typeof v === 'number') return Number.isFinite(v) ? String(v) : null;
  if (typeof v === 'bigint' || typeof v === 'boolean') return String(v);
  return { bad: 'is not a text or number value' };
}


export async function purgeTask(task: PurgeTask): Promise<number> {
  const db = openThreadConnection(task.dbFile);
  try {
    return await purgeDeleted(db);
  } finally {
    db.close();
  }
}

export async function importFile(task: ImportTask, signal: AbortSignal, progress: (p: ImportProgress) => void): Promise<ImportResult> {
  const limits = task.limits ?? IMPORT_LIMITS;
  const source = await openSource(task.file, limits);
  let db: DatabaseSync | null = null;
  let sid: number | null = null;
  try {
    const layer = pickLayer(source, task.layer);
    if (!layer.crs) throw new ImportError(layer.crsProblem ?? 'the layer declares no CRS');
    const names = new Set(layer.columns.map((c) => c.name));
    if (!names.has(task.idColumn)) throw new ImportError(`idColumn: the layer has no column named ${JSON.stringify(task.idColumn.slice(0, 200))}`);
    if (task.nameColumn != null && !names.has(task.nameColumn)) throw new ImportError(`nameColumn: the layer has no column named ${JSON.stringify(task.nameColumn.slice(0, 200))}`);
    const project = toLonLat(layer.crs);
    db = openThreadConnection(task.dbFile);
    sid = Number(db.prepare(`INSERT INTO parcel_set (id, state, name, source_file, format, layer, crs, id_column, name_column, count, skipped, created_at)
      VALUES (?, 'importing', ?, ?, ?, ?, ?, ?, ?, 0, 0, ?)`).run(
      task.setId, task.name, path.resolve(task.file), source.format, source.format === 'gpkg' ? layer.name : null,
      JSON.stringify(layer.crs), task.idColumn, task.nameColumn, task.createdAt,
    ).lastInsertRowid);
    const insParcel = db.prepare('INSERT INTO parcel (sid, idx, id, name, west, south, east, north, geometry) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)');
    const insBox = db.prepare('INSERT INTO parcel_box (pid, west, east, south, north) VALUES (?, ?, ?, ?, ?)');
    const ids = new Set<string>();
    const listed: SkippedParcel[] = [];
    let skipped = 0;
    let count = 0;
    let seen = 0;
    let vertices = 0;
    let pairs = 0;
    const box: Bbox = [Infinity, Infinity, -Infinity, -Infinity];
    const skip = (row: number, id: string | null, reason: string): void => {
      skipped++;
      if (listed.length < SKIPPED_LISTED) listed.push({ row, id, reason });
    };
    const total = layer.count;
    db.exec('BEGIN IMMEDIATE');
    let inChunk = 0;
    for await (const f of source.features(layer, { id: task.idColumn, name: task.nameColumn })) {
      if (++seen > limits.maxFeatures) throw new ImportError(`the layer has more than ${limits.maxFeatures} features, past the limit of ${limits.maxFeatures} parcels per set`);
      const idText = asText(f.id);
      if (idText !== null && typeof idText === 'object') { skip(f.row, null, `its id (column ${task.idColumn}) ${idText.bad}`); continue; }
      // A feature the reader could not decode may have no id read either: its own reason is the one to give.
      if (idText === null) { skip(f.row, null, f.unreadable ?? `missing or empty id (column ${task.idColumn})`); continue; }
      if (idText.length > limits.maxIdLength) { skip(f.row, idText.slice(0, 40) + '…', `its id is longer than ${limits.maxIdLength} characters`); continue; }
      if (ids.has(idText)) { skip(f.row, idText, `duplicate id ${JSON.stringify(idText)} (an earlier feature has it)`); continue; }
      const nameText = task.nameColumn == null ? null : asText(f.name);
      if (nameText !== null && typeof nameText === 'object') { skip(f.row, idText, `its name (column ${task.nameColumn}) ${nameText.bad}`); continue; }
      if (nameText !== null && nameText.length > limits.maxNameLength) { skip(f.row, idText, `its name is longer than ${limits.maxNameLength} characters`); continue; }
      if (f.unreadable) { skip(f.row, idText, f.unreadable); continue; }
      const checked = checkGeometry(f.geometry, { maxVertices: limits.maxVerticesPerParcel, maxSegmentPairs: limits.maxSegmentPairsPerParcel });
      if (!checked.ok) { skip(f.row, idText, checked.reason); continue; }
      pairs += checked.pairsTested;
      if (pairs > limits.maxSegmentPairs) throw new ImportError(`the geometries are too complex to check: more than ${limits.maxSegmentPairs} segment pairs in all, past the limit of the self-intersection checks an import makes`);
      const g = checked.geometry;
      const bbox = lonLatBox(g, project);
      if (!bbox) { skip(f.row, idText, 'a point does not project to a longitude/latitude within -180..180 / -90..90 (outside the CRS\'s area, or not in this CRS)'); continue; }
      vertices += g.coords.length / 2;
      if (vertices > limits.maxTotalVertices) throw new ImportError(`the layer has more than ${limits.maxTotalVertices} points in all, past the limit of points per set`);
      ids.add(idText);
      const pid = insParcel.run(sid, count, idText, nameText, bbox[0], bbox[1], bbox[2], bbox[3], encodeGeometry(g)).lastInsertRowid;
      insBox.run(pid, bbox[0], bbox[2], bbox[1], bbox[3]);
      count++;
      if (bbox[0] < box[0]) box[0] = bbox[0];
      if (bbox[1] < box[1]) box[1] = bbox[1];
      if (bbox[2] > box[2]) box[2] = bbox[2];
      if (bbox[3] > box[3]) box[3] = bbox[3];
      if (++inChunk >= CHUNK) {
        db.exec('COMMIT');
        inChunk = 0;
        progress({ done: seen, total: Math.max(total, seen) });
        await nextTurn();
        throwIfAborted(signal);
        db.exec('BEGIN IMMEDIATE');
      }
    }
    throwIfAborted(signal);
    if (count === 0) throw new ImportError(`no parcel could be imported: all ${seen} features were skipped${listed[0] ? ` (the first: row ${listed[0].row}, ${listed[0].reason})` : ''}`);
    db.prepare("UPDATE parcel_set SET state = 'ready', count = ?, skipped = ?, west = ?, south = ?, east = ?, north = ? WHERE sid = ?").run(count, skipped, box[0], box[1], box[2], box[3], sid);
    db.exec('COMMIT');
    progress({ done: seen, total: seen });
    return { setId: task.setId, count, skipped, listed };
  } catch (e) {
    if (db && sid != null) {
      if (db.isTransaction) db.exec('ROLLBACK');
      markDeleted(db, 'sid = ?', sid);
      await purgeDeleted(db);
    }
    throw e;
  } finally {
    source.close();
    db?.close();
  }
}
