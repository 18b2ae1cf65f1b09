import { createHash, randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { createReadStream } from 'node:fs';
import { stat, unlink } from 'node:fs/promises';
import path from 'node:path';
import type { DatabaseSync } from 'node:sqlite';
import { z } from 'zod';
import { AppError } from '../../common/errors.js';
import { seriesKey } from '../../common/library-series.js';
import { importJsonOnce, inTransaction, openDatabase } from '../shared/database.js';
import { withoutSecrets, type DownloadedRaster, type DownloadKind, type DownloadSink } from './download-sink.js';
import { TextMerger } from './text-merger.js';

export type { DownloadedRaster };
import { throwIfAborted } from '../../common/abort.js';
import { readRasterMetadata, type RasterMetadata } from './metadata.js';
import type { Box, LibraryEntry, LibraryPage, LibraryQuery } from './entry.js';
import { LibraryReader, rowEntry, type Row } from './reader.js';
import { identicalRequestKey } from './request-identity.js';

export type { Box, LibraryEntry, LibraryPage, LibraryQuery, LibrarySort } from './entry.js';

/** Name of the catalog file of earlier versions inside the userData directory: imported once into swath.db, then kept as `library.json.imported-<ms>`. */
export const LIBRARY_FILE = 'library.json';

const bbox = z.tuple([z.number(), z.number(), z.number(), z.number()]);
const entrySchema = z.object({
  id: z.string().min(1),
  path: z.string().min(1),
  size: z.number().int().nonnegative(),
  sha256: z.string().regex(/^[0-9a-f]{64}$/).nullable(),
  request: z.record(z.string(), z.unknown()).nullable(),
  kind: z.enum(['composite', 'tile', 'minitile']).nullable(),
  date: z.string().nullable(),
  model: z.string().nullable(),
  constellations: z.array(z.string()),
  bands: z.array(z.string()),
  epsg: z.number().int().nullable(),
  resolution: z.number().nullable(),
  width: z.number().int().nonnegative(),
  height: z.number().int().nonnegative(),
  bounds4326: bbox.nullable(),
  boundsNote: z.string().optional(),
  period: z.object({ start: z.string(), end: z.string() }).optional(),
  cog: z.boolean().optional(),
  createdAt: z.string(),
  source: z.enum(['download', 'import']),
});
const fileSchema = z.object({ version: z.literal(1), entries: z.array(entrySchema) });


/** Events of the catalog: an entry appeared (or was refreshed), or went away. */
export type LibraryEvents = { added: [LibraryEntry]; removed: [LibraryEntry]; updated: [LibraryEntry] };

/** Options of {@link LibraryCatalog.open}. */
export interface LibraryOptions {
  /** userData directory (swath.db, and library.json of earlier versions). */
  dir: string;
  /** The app's open database; absent: the catalog opens (and owns) swath.db in `dir` itself. */
  db?: DatabaseSync;
  now?: () => number;
  /** Told when the database or the old catalog file was unreadable and set aside. */
  onWarning?: (message: string) => void;
}

/** True for a file name ending in .tif or .tiff (any case). */
export function isTiffName(file: string): boolean {
  return /\.tiff?$/i.test(file);
}

/** sha256 of a file, streamed so large rasters cost no memory. */
export async function sha256File(file: string, signal: AbortSignal): Promise<string> {
  throwIfAborted(signal);
  const hash = createHash('sha256');
  try {
    for await (const chunk of createReadStream(file, { highWaterMark: 1 << 20, signal })) hash.update(chunk as Buffer);
  } catch (e) {
    throwIfAborted(signal);
    throw new Error(`Could not read ${file}: ${(e as Error).message}`, { cause: e });
  }
  return hash.digest('hex');
}

/** What the search reads: file name, date, model, bands, EPSG, constellations, kind and source (lower case). */
function searchText(e: LibraryEntry): string {
  return [path.basename(e.path), e.date ?? '', e.model ?? '', e.bands.join(' '), e.epsg ? `EPSG:${e.epsg}` : '', e.constellations.join(' '), e.kind ?? '', e.source]
    .join(' ').toLowerCase();
}

/** The held bands as `|B8| |[B8_B4]|`, so a band is matched whole (B8 is neither B8A nor [B8_B4]). */
function bandText(bands: readonly string[]): string {
  return bands.map((b) => `|${b.toUpperCase().replace(/\s+/g, '')}|`).join(' ');
}

/** Most identical rows {@link LibraryCatalog.findIdentical} looks at (the oldest; each is checked on disk). */
const MAX_IDENTICAL = 20;
/** Rows of earlier versions keyed per transaction. */
const KEY_PAGE = 500;

/** The request key a row is stored under: '' when it has nothing to key (an import, a request that cannot be matched). */
function requestKeyOf(e: Pick<LibraryEntry, 'kind' | 'request'>): string {
  return (e.kind ? identicalRequestKey(e.kind, e.request) : null) ?? '';
}

/** Whether two lon/lat boxes meet. */
function boxesMeet(a: readonly number[], b: readonly number[]): boolean {
  return a[0]! <= b[2]! && b[0]! <= a[2]! && a[1]! <= b[3]! && b[1]! <= a[3]!;
}

/**
 * The catalog of local rasters (downloaded or imported), kept in the `library` tables of swath.db
 * (see main/shared/database.ts): one row per raster, an R*Tree of footprints and a full-text index.
 * Every change is one small transaction. Only files recorded here are ever served to the renderer
 * (see raster-protocol.ts).
 */
export class LibraryCatalog extends EventEmitter<LibraryEvents> implements DownloadSink {
  private readonly now: () => number;
  private readonly warn: (message: string) => void;
  /** Background hashing, one file at a time so it never competes with itself for the disk. */
  private hashing: Promise<void> = Promise.resolve();
  /** Keying the rows of earlier versions (see {@link keyRequests}). */
  private keying: Promise<void> = Promise.resolve();
  private readonly sql;
  /** The list's queries on this connection (tests, exports, sync callers). */
  private readonly reader: LibraryReader;
  /** Merges the text index between commits (see text-merger.ts). */
  readonly textMerger: TextMerger;

  private constructor(readonly db: DatabaseSync, private readonly ownsDb: boolean, opts: LibraryOptions) {
    super();
    this.now = opts.now ?? Date.now;
    this.warn = opts.onWarning ?? (() => undefined);
    this.reader = new LibraryReader(db);
    const p = (q: string) => db.prepare(q);
    this.sql = {
      byId: p('SELECT l.rid, e.entry, l.group_key FROM library l JOIN library_entry e ON e.rid = l.rid WHERE l.id = ?'),
      byPath: p('SELECT l.rid, e.entry, l.group_key FROM library l JOIN library_entry e ON e.rid = l.rid WHERE l.path = ?'),
      byRid: p('SELECT l.rid, e.entry, l.group_key FROM library l JOIN library_entry e ON e.rid = l.rid WHERE l.rid = ?'),
      hasName: p('SELECT 1 AS x FROM library WHERE name_key = ? LIMIT 1'),
      all: p('SELECT l.rid, e.entry, l.group_key FROM library l JOIN library_entry e ON e.rid = l.rid ORDER BY l.created_at DESC'),
      paths: p('SELECT path FROM library'),
      after: p('SELECT l.rid, e.entry, l.group_key FROM library l JOIN library_entry e ON e.rid = l.rid WHERE l.rid > ? ORDER BY l.rid LIMIT ?'),
      count: p('SELECT COUNT(*) AS n FROM library'),
      insert: p(`INSERT INTO library (id, path, name_key, date, model, created_at, size, source, hashed, series_key, request_key)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING RETURNING rid`),
      update: p(`UPDATE library SET path = ?, name_key = ?, date = ?, model = ?, created_at = ?, size = ?, source = ?, hashed = ?, series_key = ?, request_key = ?
        WHERE rid = ?`),
      identical: p(`SELECT l.rid, e.entry, l.group_key FROM library l JOIN library_entry e ON e.rid = l.rid
        WHERE l.request_key = ? ORDER BY l.created_at, l.rid LIMIT ${MAX_IDENTICAL}`),
      unkeyed: p(`SELECT l.rid, e.entry FROM library l JOIN library_entry e ON e.rid = l.rid WHERE l.request_key IS NULL LIMIT ${KEY_PAGE}`),
      setKey: p('UPDATE library SET request_key = ? WHERE rid = ? AND request_key IS NULL'),
      entrySet: p('INSERT OR REPLACE INTO library_entry (rid, entry) VALUES (?, ?)'),
      entryDelete: p('DELETE FROM library_entry WHERE rid = ?'),
      seriesOf: p('SELECT series_key FROM library WHERE rid = ?'),
      deleteRow: p('DELETE FROM library WHERE rid = ?'),
      boxDelete: p('DELETE FROM library_box WHERE rid = ?'),
      boxInsert: p('INSERT INTO library_box (rid, west, east, south, north) VALUES (?, ?, ?, ?, ?)'),
      textDelete: p('DELETE FROM library_text WHERE rowid = ?'),
      textInsert: p('INSERT INTO library_text (rowid, text, bands) VALUES (?, ?, ?)'),
      dates: p('SELECT COUNT(DISTINCT date) AS n FROM library WHERE series_key = ?'),
      setGroup: p('UPDATE library SET group_key = ? WHERE series_key = ? AND group_key IS NOT ?'),
      regroupAll: p(`UPDATE library SET group_key = CASE WHEN series_key IN (
        SELECT series_key FROM library WHERE series_key IS NOT NULL GROUP BY series_key HAVING COUNT(DISTINCT date) >= 2) THEN series_key END`),
      unhashed: p('SELECT id, path FROM library WHERE hashed = 0'),
      setHash: p('UPDATE library SET hashed = 1 WHERE id = ? AND path = ? AND hashed = 0 RETURNING rid'),
      cover: p(`SELECT l.rid, e.entry, l.group_key FROM library_box b JOIN library l ON l.rid = b.rid JOIN library_entry e ON e.rid = b.rid
        WHERE b.west <= ? AND b.east >= ? AND b.south <= ? AND b.north >= ? ORDER BY l.date, l.created_at`),
    };
    this.textMerger = new TextMerger(db, 'library_text', { onWarning: this.warn });
  }

  /**
   * Opens the catalog in `opts.db` (or swath.db in `opts.dir`). An old `library.json` is imported
   * once, in one transaction, then renamed to `library.json.imported-<ms>` and kept; an unreadable
   * one is renamed `.corrupt-<ms>` with a warning, and the library starts without it.
   */
  static async open(opts: LibraryOptions, signal?: AbortSignal): Promise<LibraryCatalog> {
    const db = opts.db ?? (await openDatabase({ dir: opts.dir, onWarning: opts.onWarning, now: opts.now })).db;
    const cat = new LibraryCatalog(db, !opts.db, opts);
    await cat.importJson(path.join(opts.dir, LIBRARY_FILE), signal);
    // Entries recorded just before a crash may still lack their hash.
    for (const r of cat.sql.unhashed.all() as { id: string; path: string }[]) cat.hashLater(r.id, r.path);
    cat.keying = cat.keyRequests();
    return cat;
  }

  /**
   * Keys the rows recorded before request keys existed, a page per turn of the event loop (at
   * 100,000 rasters main never waits for all of them at once); {@link findIdentical} waits for it.
   */
  private async keyRequests(): Promise<void> {
    try {
      for (;;) {
        if (!this.db.isOpen) return;
        const rows = this.sql.unkeyed.all() as { rid: number; entry: string }[];
        if (rows.length === 0) return;
        inTransaction(this.db, () => {
          for (const r of rows) this.sql.setKey.run(requestKeyOf(JSON.parse(r.entry) as LibraryEntry), r.rid);
        });
        await new Promise((resolve) => setImmediate(resolve));
      }
    } catch (e) {
      this.warn(`Could not key the library's earlier downloads by their requests: ${(e as Error).message}`);
    }
  }

  /**
   * The library's file of a request identical to `request` (see identicalRequestKey: the same date,
   * area, model, constellations and output settings), the oldest whose file is still on disk; null
   * when there is none, or the request cannot be matched. Read from the request-key index.
   */
  async findIdentical(kind: DownloadKind, request: Record<string, unknown>): Promise<LibraryEntry | null> {
    const key = identicalRequestKey(kind, request);
    if (key === null) return null;
    await this.keying;
    if (!this.db.isOpen) return null;
    for (const r of this.sql.identical.all(key) as unknown as Row[]) {
      const e = rowEntry(r);
      if (await stat(e.path).then((st) => st.isFile(), () => false)) return e;
    }
    return null;
  }

  private async importJson(file: string, signal?: AbortSignal): Promise<void> {
    await importJsonOnce(this.db, {
      file, subject: 'the library', format: 'catalog', schema: fileSchema, now: this.now, warn: this.warn, signal,
      write: ({ entries }) => {
        // A larger page cache for the one big transaction (the indexes and the text index stay in memory).
        this.db.exec('PRAGMA cache_size = -262144');
        for (const e of entries as LibraryEntry[]) this.write(e, null);
        this.db.exec('PRAGMA cache_size = -32000');
        this.sql.regroupAll.run();
        // Only after an import: a merge step counts as a change, and an unchanged library at start
        // keeps the first page the query thread warmed (its answers are kept per change count).
        this.textMerger.nudge();
      },
    });
  }

  private one(r: unknown): LibraryEntry | undefined {
    return r ? rowEntry(r as Row) : undefined;
  }

  /**
   * Writes one entry's row, footprint and search text (inside the caller's transaction); `rid` of
   * the row it replaces, or null for a new one. Returns the series keys whose grouping may have
   * changed, or null when a new row was refused as a duplicate (same id or path).
   */
  private write(e: LibraryEntry, rid: number | null): (string | null)[] | null {
    const stored: LibraryEntry = { ...e };
    delete stored.series;
    const key = e.date ? seriesKey(e) : null;
    const cols = [e.path, path.basename(e.path).toLowerCase(), e.date, e.model, e.createdAt, e.size, e.source, e.sha256 === null ? 0 : 1, key, requestKeyOf(e)] as const;
    let at: number;
    const keys: (string | null)[] = [key];
    if (rid === null) {
      const r = this.sql.insert.get(e.id, ...cols) as { rid: number } | undefined;
      if (!r) return null;
      at = r.rid;
    } else {
      keys.push((this.sql.seriesOf.get(rid) as { series_key: string | null }).series_key);
      this.sql.update.run(...cols, rid);
      at = rid;
      this.sql.boxDelete.run(at);
      this.sql.textDelete.run(at);
    }
    this.sql.entrySet.run(at, JSON.stringify(stored));
    const b = e.bounds4326;
    if (b) this.sql.boxInsert.run(at, b[0], b[2], b[1], b[3]);
    this.sql.textInsert.run(at, searchText(e), bandText(e.bands));
    return keys;
  }

  /** Marks the rasters of a series key as a series when it has two dates or more, and unmarks them otherwise. */
  private regroup(keys: readonly (string | null)[]): void {
    for (const k of new Set(keys)) {
      if (k === null) continue;
      const { n } = this.sql.dates.get(k) as { n: number };
      const group = n >= 2 ? k : null;
      this.sql.setGroup.run(group, k, group);
    }
  }

  /** Every entry, newest first (the whole library: prefer {@link query}). */
  list(): LibraryEntry[] {
    return (this.sql.all.all() as unknown as Row[]).map((r) => rowEntry(r));
  }

  /**
   * Every raster, oldest record first, read a page at a time with a turn of the event loop between
   * pages: for exports of the whole library, which never hold it all in memory.
   */
  async *everyEntry(pageSize = 500): AsyncGenerator<LibraryEntry> {
    let after = 0;
    for (;;) {
      const rows = this.sql.after.all(after, pageSize) as unknown as Row[];
      for (const r of rows) yield rowEntry(r);
      if (rows.length < pageSize) return;
      after = rows.at(-1)!.rid;
      await new Promise((resolve) => setImmediate(resolve));
    }
  }

  /** How many rasters the library holds. */
  count(): number {
    return (this.sql.count.get() as { n: number }).n;
  }

  /** Every recorded path. */
  paths(): string[] {
    return (this.sql.paths.all() as { path: string }[]).map((r) => r.path);
  }

  /** One entry by id, or undefined. */
  get(id: string): LibraryEntry | undefined {
    return this.one(this.sql.byId.get(id));
  }

  /** The entry recorded for a path, if any. */
  findByPath(file: string): LibraryEntry | undefined {
    return this.one(this.sql.byPath.get(path.resolve(file)));
  }

  /** Whether an entry, in any folder, has this file name (case-insensitive: names must stay apart on Windows and macOS too). */
  hasFileName(name: string): boolean {
    return this.sql.hasName.get(name.toLowerCase()) !== undefined;
  }

  /** The rasters whose footprint meets a lon/lat box (from the R*Tree), oldest image first. */
  covering(box: Box): LibraryEntry[] {
    const rows = this.sql.cover.all(box[2], box[0], box[3], box[1]) as unknown as Row[];
    // The R*Tree stores 32-bit floats rounded outward: check the exact footprint.
    return rows.map((r) => rowEntry(r)).filter((e) => e.bounds4326 && boxesMeet(e.bounds4326, box));
  }

  /** One page of the list, answered from the indexes (see {@link LibraryReader.query}; `library:query` runs it off main's thread). */
  query(q: LibraryQuery): LibraryPage {
    return this.reader.query(q);
  }

  /**
   * Changes whenever the library may have changed (any commit to its database, by main or another
   * connection); the text index's merge steps change no content, so they leave it as it is.
   */
  changeVersion(): string {
    return this.reader.version(this.textMerger.changesMade);
  }

  /** Records an existing GeoTIFF from disk (metadata via geotiff.js); importing a path again refreshes its entry. */
  async importFile(file: string, signal: AbortSignal): Promise<LibraryEntry> {
    const abs = path.resolve(file);
    // Only GeoTIFFs by name: the path comes from the renderer, which must not get other files read or recorded.
    if (!isTiffName(abs)) throw new AppError('validation', `Cannot import ${abs}: only .tif and .tiff files can be imported.`);
    let st;
    try {
      st = await stat(abs);
    } catch (e) {
      const missing = (e as NodeJS.ErrnoException).code === 'ENOENT';
      throw new AppError(missing ? 'not-found' : 'io', `Cannot import ${abs}: ${missing ? 'the file does not exist' : (e as Error).message}`, { cause: e });
    }
    if (!st.isFile()) throw new AppError('validation', `Cannot import ${abs}: it is not a regular file.`);
    const meta = await readRasterMetadata(abs, signal);
    const sha256 = await sha256File(abs, signal);
    return this.put(abs, st.size, sha256, meta, null, null, 'import', signal);
  }

  /** Records a file the download queue has just verified and published. */
  async addDownload(d: DownloadedRaster, signal: AbortSignal): Promise<LibraryEntry> {
    const abs = path.resolve(d.path);
    const meta = await readRasterMetadata(abs, signal, d.content);
    return this.put(abs, d.size, d.sha256, meta, withoutSecrets(d.request), d.kind, 'download', signal);
  }

  private put(
    abs: string, size: number, sha256: string | null, meta: RasterMetadata,
    request: Record<string, unknown> | null, kind: DownloadKind | null, source: LibraryEntry['source'], signal: AbortSignal,
  ): LibraryEntry {
    throwIfAborted(signal);
    const saved = inTransaction(this.db, () => {
      const row = this.sql.byPath.get(abs) as Row | undefined;
      const existing = row ? rowEntry(row) : undefined;
      const entry: LibraryEntry = {
        id: existing?.id ?? randomUUID(),
        path: abs,
        size,
        sha256,
        request,
        kind,
        date: meta.date,
        model: meta.model ?? (typeof request?.Model === 'string' ? request.Model : null),
        constellations: meta.constellations,
        bands: meta.bands,
        epsg: meta.epsg,
        resolution: meta.resolution,
        width: meta.width,
        height: meta.height,
        bounds4326: meta.bounds4326,
        ...(meta.boundsNote ? { boundsNote: meta.boundsNote } : {}),
        ...(meta.period ? { period: meta.period } : {}),
        ...(meta.cog !== undefined ? { cog: meta.cog } : {}),
        createdAt: existing?.createdAt ?? new Date(this.now()).toISOString(),
        source: existing?.source ?? source,
      };
      const keys = this.write(entry, row?.rid ?? null);
      if (!keys) throw new AppError('io', `Could not record ${abs}: its id is taken.`);
      this.regroup(keys);
      return this.one(this.sql.byPath.get(abs))!;
    });
    this.textMerger.nudge();
    this.emit('added', structuredClone(saved));
    if (sha256 === null) this.hashLater(saved.id, abs);
    return saved;
  }

  /** Computes a recorded file's sha256 in the background and stores it (the entry may be gone or replaced by then). */
  private hashLater(id: string, file: string): void {
    this.hashing = this.hashing.then(async () => {
      try {
        const digest = await sha256File(file, new AbortController().signal);
        if (!this.db.isOpen) return;
        const e = this.get(id);
        if (!e || e.path !== file || e.sha256 !== null) return;
        e.sha256 = digest;
        const stored: LibraryEntry = { ...e };
        delete stored.series;
        inTransaction(this.db, () => {
          const row = this.sql.setHash.get(id, file) as { rid: number } | undefined;
          if (row) this.sql.entrySet.run(row.rid, JSON.stringify(stored));
        });
        this.emit('updated', e);
      } catch (error) {
        this.warn(`Could not hash ${file}: ${(error as Error).message}`);
      }
    });
  }

  /**
   * Forgets an entry and, when asked, deletes its file first (a file that is already gone is fine).
   * Only a .tif/.tiff file Swath downloaded itself is deleted on the renderer's word; any other
   * file needs `confirmDelete` (main's own native dialog), and without one it is refused.
   */
  async remove(id: string, opts: { deleteFile?: boolean; confirmDelete?: (entry: LibraryEntry) => Promise<boolean> }, signal: AbortSignal): Promise<LibraryEntry> {
    throwIfAborted(signal);
    const entry = this.get(id);
    if (!entry) throw new AppError('not-found', `No library entry with id ${id}.`);
    if (opts.deleteFile) {
      if (!isTiffName(entry.path)) throw new AppError('validation', `Swath deletes only .tif and .tiff files; ${entry.path} was kept.`);
      if (entry.source !== 'download') {
        if (!opts.confirmDelete) {
          throw new AppError('validation', `${entry.path} was imported, not downloaded by Swath, so it is not deleted from here; remove it from the library and delete the file yourself.`);
        }
        if (!(await opts.confirmDelete(structuredClone(entry)))) throw new AppError('cancelled', `${entry.path} was not deleted.`);
        throwIfAborted(signal);
      }
      try {
        await unlink(entry.path);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'ENOENT') {
          throw new AppError('io', `Could not delete ${entry.path}: ${(e as Error).message}`, { cause: e });
        }
      }
    }
    const removed = inTransaction(this.db, () => {
      const row = this.sql.byId.get(id) as Row | undefined;
      if (!row) return false;
      const key = (this.sql.seriesOf.get(row.rid) as { series_key: string | null }).series_key;
      this.sql.deleteRow.run(row.rid);
      this.sql.entryDelete.run(row.rid);
      this.sql.boxDelete.run(row.rid);
      this.sql.textDelete.run(row.rid);
      this.regroup([key]);
      return true;
    });
    if (removed) this.textMerger.nudge();
    if (removed) this.emit('removed', structuredClone(entry));
    return entry;
  }

  /** Resolves once every background hash so far is stored (each change is committed when its call returns). */
  async flush(): Promise<void> {
    await this.hashing;
  }

  /** Waits for the background hashes, then closes the database when this catalog opened it. */
  async close(): Promise<void> {
    this.textMerger.stop();
    await this.hashing;
    await this.keying;
    if (this.ownsDb && this.db.isOpen) this.db.close();
  }
}
