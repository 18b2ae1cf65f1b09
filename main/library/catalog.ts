import { createHash, randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { createReadStream } from 'node:fs';
import { rename, stat, unlink } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { AppError } from '../../common/errors.js';
import { withoutSecrets, type DownloadedRaster, type DownloadKind, type DownloadSink } from './download-sink.js';

export type { DownloadedRaster };
import { throwIfAborted } from '../../common/abort.js';
import { JsonStore, readJsonFile } from './atomic-json.js';
import { readRasterMetadata, type RasterMetadata } from './metadata.js';

/** Name of the catalog file inside the userData directory. */
export const LIBRARY_FILE = 'library.json';

/** One local raster the app knows about: its file, its origin, and what the file says of itself. */
export interface LibraryEntry extends RasterMetadata {
  id: string;
  /** Absolute path of the file. */
  path: string;
  size: number;
  /** Null for a moment after a download is recorded, until the background hash is done. */
  sha256: string | null;
  /** The process body that produced the file (never the key); null for imports. */
  request: Record<string, unknown> | null;
  /** The operation that produced it; null for imports. */
  kind: DownloadKind | null;
  /** ISO 8601. */
  createdAt: string;
  source: 'download' | 'import';
}

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
  /** userData directory holding library.json. */
  dir: string;
  now?: () => number;
  /** Told when the catalog file was unreadable and set aside. */
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

/**
 * The catalog of local rasters (downloaded or imported), persisted atomically as library.json in
 * userData. Only files recorded here are ever served to the renderer (see raster-protocol.ts).
 */
export class LibraryCatalog extends EventEmitter<LibraryEvents> implements DownloadSink {
  private readonly entries = new Map<string, LibraryEntry>();
  private readonly store: JsonStore;
  private readonly now: () => number;
  private readonly warn: (message: string) => void;
  /** Background hashing, one file at a time so it never competes with itself for the disk. */
  private hashing: Promise<void> = Promise.resolve();

  private constructor(readonly file: string, opts: LibraryOptions) {
    super();
    this.now = opts.now ?? Date.now;
    this.warn = opts.onWarning ?? (() => undefined);
    this.store = new JsonStore(file, () => ({ version: 1, entries: [...this.entries.values()] }));
  }

  /** Loads the catalog from `opts.dir` (an empty one when absent; an unreadable file is renamed aside, not lost). */
  static async open(opts: LibraryOptions, signal?: AbortSignal): Promise<LibraryCatalog> {
    const file = path.join(opts.dir, LIBRARY_FILE);
    const cat = new LibraryCatalog(file, opts);
    let raw: unknown = null;
    let problem: string | null = null;
    try {
      raw = await readJsonFile(file, signal);
    } catch (e) {
      throwIfAborted(signal);
      problem = (e as Error).message;
    }
    if (raw !== null && !problem) {
      const parsed = fileSchema.safeParse(raw);
      if (parsed.success) for (const e of parsed.data.entries) cat.entries.set(e.id, e as LibraryEntry);
      else problem = `${file} does not match the catalog format: ${parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).slice(0, 3).join('; ')}`;
    }
    if (problem) {
      const aside = `${file}.corrupt-${cat.now()}`;
      await rename(file, aside).catch(() => undefined);
      opts.onWarning?.(`${problem}. It was moved to ${aside} and the library starts empty.`);
    }
    // Entries recorded just before a crash may still lack their hash.
    for (const e of cat.entries.values()) if (e.sha256 === null) cat.hashLater(e.id, e.path);
    return cat;
  }

  /** Every entry, newest first. */
  list(): LibraryEntry[] {
    return [...this.entries.values()].sort((a, b) => b.createdAt.localeCompare(a.createdAt)).map((e) => structuredClone(e));
  }

  /** One entry by id, or undefined. */
  get(id: string): LibraryEntry | undefined {
    const e = this.entries.get(id);
    return e ? structuredClone(e) : undefined;
  }

  /** The entry recorded for a path, if any. */
  findByPath(file: string): LibraryEntry | undefined {
    const abs = path.resolve(file);
    for (const e of this.entries.values()) if (e.path === abs) return structuredClone(e);
    return undefined;
  }

  /** Whether an entry, in any folder, has this file name (case-insensitive: names must stay apart on Windows and macOS too). */
  hasFileName(name: string): boolean {
    const want = name.toLowerCase();
    for (const e of this.entries.values()) if (path.basename(e.path).toLowerCase() === want) return true;
    return false;
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
    const meta = await readRasterMetadata(abs, signal);
    return this.put(abs, d.size, d.sha256, meta, withoutSecrets(d.request), d.kind, 'download', signal);
  }

  private async put(
    abs: string, size: number, sha256: string | null, meta: RasterMetadata,
    request: Record<string, unknown> | null, kind: DownloadKind | null, source: LibraryEntry['source'], signal: AbortSignal,
  ): Promise<LibraryEntry> {
    throwIfAborted(signal);
    const existing = [...this.entries.values()].find((e) => e.path === abs);
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
    this.entries.set(entry.id, entry);
    await this.store.save();
    this.emit('added', structuredClone(entry));
    if (sha256 === null) this.hashLater(entry.id, abs);
    return structuredClone(entry);
  }

  /** Computes a recorded file's sha256 in the background and stores it (the entry may be gone or replaced by then). */
  private hashLater(id: string, file: string): void {
    this.hashing = this.hashing.then(async () => {
      try {
        const digest = await sha256File(file, new AbortController().signal);
        const e = this.entries.get(id);
        if (!e || e.path !== file || e.sha256 !== null) return;
        e.sha256 = digest;
        await this.store.save();
        this.emit('updated', structuredClone(e));
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
    const entry = this.entries.get(id);
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
    this.entries.delete(id);
    await this.store.save();
    this.emit('removed', structuredClone(entry));
    return structuredClone(entry);
  }

  /** Resolves once every change so far, background hashes included, is on disk. */
  async flush(): Promise<void> {
    await this.hashing;
    await this.store.save();
  }
}
