/**
 * Parcel sets: imported from a GeoPackage, Shapefile, GeoJSON or FlatGeobuf file (main/fields/import)
 * and kept in swath.db (schema: main/fields/schema/parcel-sets.ts). Inspecting and importing a
 * file, and removing a deleted set's parcels, run in the fields import worker, which writes
 * through its own connection; main reads the sets and their parcels on its own connection.
 */
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import type { DatabaseSync } from 'node:sqlite';
import { entryPoint, type EntryPoint } from '../shared/entry-point.js';
import { WorkerPool, type WorkerFailure } from '../shared/worker-pool.js';
import { decodeGeometry, toParcelGeometry, type Bbox, type ParcelCrs, type ParcelGeometry } from './geometry.js';
import { ImportError, IMPORT_LIMITS, type ImportLimits } from './import/limits.js';
import { markDeleted } from './import/purge.js';
import type { FieldsImportTask, ImportProgress, ImportResult, InspectResult, SkippedParcel } from './import/run.js';
import type { ParcelFormat } from './import/source.js';
import type { PackedParcels } from './stats/packed.js';
import type { PackTask } from './stored.js';

export type { SkippedParcel } from './import/run.js';
export { ImportError, IMPORT_LIMITS } from './import/limits.js';

export interface ParcelSet {
  id: string;
  name: string;
  sourceFile: string;
  format: ParcelFormat;
  /** The GeoPackage layer; null for the other formats (one layer each). */
  layer: string | null;
  crs: ParcelCrs;
  idColumn: string;
  nameColumn: string | null;
  count: number;
  skipped: number;
  bbox4326: Bbox;
  /** ISO UTC. */
  createdAt: string;
}

export interface Parcel {
  setId: string;
  /** 0.. in import order. */
  index: number;
  id: string;
  name: string | null;
  geometry: ParcelGeometry;
  bbox4326: Bbox;
}

export interface InspectedFile {
  format: ParcelFormat;
  layers: { name: string; count: number; columns: { name: string; type: string }[]; crs: ParcelCrs | null; crsProblem?: string }[];
}

/** Parcels of one {@link ParcelStore.parcels} page at most. */
export const MAX_PARCEL_PAGE = 10_000;

const SET_COLUMNS = 'id, name, source_file, format, layer, crs, id_column, name_column, count, skipped, west, south, east, north, created_at';

function setOf(r: Record<string, unknown>): ParcelSet {
  return {
    id: r.id as string,
    name: r.name as string,
    sourceFile: r.source_file as string,
    format: r.format as ParcelFormat,
    layer: (r.layer as string | null) ?? null,
    crs: JSON.parse(r.crs as string) as ParcelCrs,
    idColumn: r.id_column as string,
    nameColumn: (r.name_column as string | null) ?? null,
    count: Number(r.count),
    skipped: Number(r.skipped),
    bbox4326: [r.west as number, r.south as number, r.east as number, r.north as number],
    createdAt: r.created_at as string,
  };
}

function parcelOf(setId: string, r: Record<string, unknown>): Parcel {
  return {
    setId,
    index: Number(r.idx),
    id: r.id as string,
    name: (r.name as string | null) ?? null,
    geometry: toParcelGeometry(decodeGeometry(r.geometry as Uint8Array)),
    bbox4326: [r.west as number, r.south as number, r.east as number, r.north as number],
  };
}

const toError = (f: WorkerFailure): Error => (f.name === 'ImportError' ? new ImportError(f.message) : Object.assign(new Error(f.message), f.code ? { code: f.code } : {}));

/**
 * The V8 heap (old generation, MB) of the import thread: far above what a file within the import
 * limits takes (the readers hold a file's bytes outside the heap and one feature at a time), and a
 * bound on what a file that still finds a way to take more can take of the machine.
 */
export const IMPORT_HEAP_MB = 2048;

/** The error of an inspect or import whose thread ran out of memory: which file, and what to do. */
function lostError(e: Error & { code?: unknown }, task: FieldsImportTask, heapMb: number): Error {
  if (e.code !== 'ERR_WORKER_OUT_OF_MEMORY' || task.op === 'purge') return e;
  return new ImportError(`the import ran out of memory reading ${path.basename(task.file)}: the file needs more than the ${heapMb} MB of memory an import may use (split it into smaller files, or simplify its geometries)`);
}

function checkFile(file: string): void {
  if (typeof file !== 'string' || !path.isAbsolute(file) || file.length > 4096) throw new ImportError('file: an absolute path of at most 4096 characters');
}

export interface ParcelStoreOptions {
  /** Main's connection to swath.db (its schema up to date). */
  db: DatabaseSync;
  /** swath.db's path: the worker opens its own connection to it. */
  file: string;
  now?: () => number;
  /** The worker module (tests may give another). */
  entry?: () => EntryPoint;
  limits?: ImportLimits;
  /** The import thread's heap, MB; default {@link IMPORT_HEAP_MB}. */
  importHeapMb?: number;
  /** Told when removing a deleted set's parcels failed (they are retried at the next start). */
  onWarning?: (message: string) => void;
}

export class ParcelStore {
  private readonly pool: WorkerPool<FieldsImportTask, unknown>;
  /** Reads stored geometries for statistics runs: its own thread, so a run never waits behind an import. */
  private readonly reader: WorkerPool<PackTask, PackedParcels>;
  private readonly now: () => number;
  private purging: Promise<void> = Promise.resolve();
  private closed = false;

  constructor(private readonly opts: ParcelStoreOptions) {
    this.now = opts.now ?? Date.now;
    const entry = opts.entry ?? (() => entryPoint(import.meta.url, './import/import-worker.ts', 'fields-import-worker'));
    this.pool = new WorkerPool<FieldsImportTask, unknown>({
      name: 'fields-import',
      entry,
      size: 1,
      // A cancelled import removes what it wrote before it answers.
      cancelGraceMs: 30_000,
      toError,
      resourceLimits: { maxOldGenerationSizeMb: opts.importHeapMb ?? IMPORT_HEAP_MB },
      lostError: (e, task) => lostError(e, task, opts.importHeapMb ?? IMPORT_HEAP_MB),
    });
    this.reader = new WorkerPool<PackTask, PackedParcels>({ name: 'fields parcels reader', entry, size: 1, toError });
    // Sets an earlier run left half imported (the app ended during an import) go with the deleted ones
    // whose parcels were not all removed yet: removed off main's thread.
    markDeleted(opts.db, "state = 'importing'");
    if (opts.db.prepare('SELECT 1 FROM parcel_purge LIMIT 1').get()) this.purge();
  }

  /** The file's layers, their feature counts, columns (with types, for the id and name picker) and CRS. */
  async inspect(file: string, signal?: AbortSignal): Promise<InspectedFile> {
    checkFile(file);
    const r = (await this.pool.run({ op: 'inspect', file, limits: this.opts.limits }, signal ?? new AbortController().signal)) as InspectResult;
    return { format: r.format, layers: r.layers };
  }

  /**
   * Imports a layer as a new set. Features without a usable id, with a duplicate id or a bad
   * geometry are skipped, each with its reason (the first 1,000 listed); a file
   * past a limit, without a CRS or without the columns named is refused (ImportError).
   */
  async import(
    file: string,
    options: { layer?: string; idColumn: string; nameColumn?: string; name?: string },
    progress: { signal?: AbortSignal; onProgress?: (done: number, total: number) => void } = {},
  ): Promise<{ set: ParcelSet; skipped: SkippedParcel[] }> {
    checkFile(file);
    const limits = this.opts.limits ?? IMPORT_LIMITS;
    if (typeof options.idColumn !== 'string' || options.idColumn === '') throw new ImportError('idColumn: choose the column that holds each parcel\'s id');
    for (const [field, v] of [['idColumn', options.idColumn], ['nameColumn', options.nameColumn], ['layer', options.layer]] as const) {
      if (v != null && v.length > 1000) throw new ImportError(`${field}: longer than 1000 characters`);
    }
    if (options.name != null && (options.name.trim() === '' || options.name.length > limits.maxNameLength)) {
      throw new ImportError(`name: a set's name is 1 to ${limits.maxNameLength} characters`);
    }
    const setId = randomUUID();
    const task: FieldsImportTask = {
      op: 'import', dbFile: this.opts.file, file, setId,
      name: options.name?.trim() || path.basename(file, path.extname(file)) + (options.layer ? ` (${options.layer})` : ''),
      layer: options.layer ?? null, idColumn: options.idColumn, nameColumn: options.nameColumn ?? null,
      createdAt: new Date(this.now()).toISOString(), limits: this.opts.limits,
    };
    const signal = progress.signal ?? new AbortController().signal;
    const r = (await this.pool.run(task, signal, (p) => {
      const { done, total } = p as ImportProgress;
      progress.onProgress?.(done, total);
    })) as ImportResult;
    const set = this.set(r.setId);
    if (!set) throw new Error(`the imported set ${r.setId} is not in the database`);
    return { set, skipped: r.listed };
  }

  /** Every imported set, newest first. */
  sets(): ParcelSet[] {
    return (this.opts.db.prepare(`SELECT ${SET_COLUMNS} FROM parcel_set WHERE state = 'ready' ORDER BY created_at DESC, sid DESC`).all()).map(setOf);
  }

  set(id: string): ParcelSet | null {
    const r = this.opts.db.prepare(`SELECT ${SET_COLUMNS} FROM parcel_set WHERE id = ? AND state = 'ready'`).get(id);
    return r ? setOf(r) : null;
  }

  /** Deletes a set at once: it is no longer listed, and its parcels are removed in batches off main's thread. False when there is no such set. */
  delete(id: string): boolean {
    const gone = markDeleted(this.opts.db, "id = ? AND state = 'ready'", id) > 0;
    if (gone) this.purge();
    return gone;
  }

  /** When the parcels of the deleted sets are all removed (for tests and the app's close). */
  whenPurged(): Promise<void> {
    return this.purging;
  }

  private purge(): void {
    this.purging = this.purging.then(() => this.pool.run({ op: 'purge', dbFile: this.opts.file }, new AbortController().signal)).then(
      () => undefined,
      (e: unknown) => {
        if (!this.closed) this.opts.onWarning?.(`Removing the parcels of deleted parcel sets failed (${(e as Error).message}); they are removed at the next start.`);
      },
    );
  }

  private sid(setId: string): number | null {
    const r = this.opts.db.prepare("SELECT sid FROM parcel_set WHERE id = ? AND state = 'ready'").get(setId);
    return r ? Number(r.sid) : null;
  }

  /** A page of a set's parcels in index order; with `bbox4326`, those whose box meets it. */
  parcels(setId: string, query: { offset?: number; limit?: number; bbox4326?: Bbox } = {}): Parcel[] {
    const sid = this.sid(setId);
    if (sid == null) return [];
    const offset = Math.max(0, Math.floor(query.offset ?? 0));
    const limit = Math.min(MAX_PARCEL_PAGE, Math.max(0, Math.floor(query.limit ?? 1000)));
    if (query.bbox4326) {
      const [w, s, e, n] = query.bbox4326;
      return this.opts.db.prepare(`SELECT p.idx, p.id, p.name, p.west, p.south, p.east, p.north, p.geometry FROM parcel_box b JOIN parcel p ON p.pid = b.pid
        WHERE b.west <= ? AND b.east >= ? AND b.south <= ? AND b.north >= ? AND p.sid = ?
          AND p.west <= ? AND p.east >= ? AND p.south <= ? AND p.north >= ?
        ORDER BY p.idx LIMIT ? OFFSET ?`).all(e, w, n, s, sid, e, w, n, s, limit, offset).map((r) => parcelOf(setId, r));
    }
    return this.opts.db.prepare('SELECT idx, id, name, west, south, east, north, geometry FROM parcel WHERE sid = ? AND idx >= ? ORDER BY idx LIMIT ?')
      .all(sid, offset, limit).map((r) => parcelOf(setId, r));
  }

  /** Every parcel of a set in index order, in pages (the statistics run reads them this way). */
  *eachParcel(setId: string, pageSize = 1000): Iterable<Parcel[]> {
    const sid = this.sid(setId);
    if (sid == null) return;
    const size = Math.min(MAX_PARCEL_PAGE, Math.max(1, Math.floor(pageSize)));
    const page = this.opts.db.prepare('SELECT idx, id, name, west, south, east, north, geometry FROM parcel WHERE sid = ? AND idx >= ? ORDER BY idx LIMIT ?');
    let from = 0;
    for (;;) {
      const rows = page.all(sid, from, size).map((r) => parcelOf(setId, r));
      if (rows.length) yield rows;
      if (rows.length < size) return;
      from = rows[rows.length - 1]!.index + 1;
    }
  }

  /** Pages of a set's parcels' indices and lon/lat boxes in index order (no geometry: nothing to decode). */
  *eachBox(setId: string, pageSize = 1000): Iterable<{ index: number; bbox4326: Bbox }[]> {
    const sid = this.sid(setId);
    if (sid == null) return;
    const size = Math.min(MAX_PARCEL_PAGE, Math.max(1, Math.floor(pageSize)));
    const page = this.opts.db.prepare('SELECT idx, west, south, east, north FROM parcel WHERE sid = ? AND idx >= ? ORDER BY idx LIMIT ?');
    let from = 0;
    for (;;) {
      const rows = page.all(sid, from, size).map((r) => ({ index: Number(r.idx), bbox4326: [r.west, r.south, r.east, r.north] as Bbox }));
      if (rows.length) yield rows;
      if (rows.length < size) return;
      from = rows[rows.length - 1]!.index + 1;
    }
  }

  /** The geometries of parcels `indices` of a set, packed in that order (stats/packed.ts), read and decoded in the reader thread. */
  packed(setId: string, indices: Int32Array, signal: AbortSignal): Promise<PackedParcels> {
    return this.reader.run({ op: 'pack', dbFile: this.opts.file, setId, indices }, signal);
  }

  /** Ends the worker (with the app): an import in progress fails, and parcels still to remove are removed at the next start. */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.all([this.pool.close(), this.reader.close()]);
    await this.purging;
  }
}
