import { createHash, randomBytes } from 'node:crypto';
import { mkdir, readdir, stat, unlink, utimes } from 'node:fs/promises';
import { join } from 'node:path';
import type { RasterRequest } from './types.js';
import { abortError, throwIfAborted } from '../../common/abort.js';
import type { StagedFile } from '../../main/geotiff/index.js';
import { openByteReader, type ByteReader } from '../../main/shared/file-io.js';
import { stageGeoTiff } from './write.js';

/** Bumped whenever the synthesis changes, so old cache files are not served for new code. */
export const RASTER_ALGORITHM_VERSION = 1;

/** Default bound on the cache's .tif files (bytes); the least recently used go first beyond it. */
export const DEFAULT_CACHE_MAX_BYTES = 4 * 1024 ** 3;

/** The longest a generated file waits for its first readers before it is put in the cache (they read on from its temporaries). */
const FIRST_READERS_MS = 5_000;

/** A .part untouched this long belongs to a dead generation. */
const STALE_PART_MS = 10 * 60_000;

function canonical(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(canonical);
  if (v && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    return Object.fromEntries(
      Object.keys(o)
        .filter((k) => o[k] !== undefined)
        .sort()
        .map((k) => [k, canonical(o[k])]),
    );
  }
  return v;
}

/** sha256 of the canonical (key-sorted) JSON of the request plus the algorithm version. */
export function rasterCacheKey(req: RasterRequest): string {
  const json = JSON.stringify(canonical({ v: RASTER_ALGORITHM_VERSION, req }));
  return createHash('sha256').update(json).digest('hex');
}

interface InFlight {
  /** Resolves when the file is readable (staged), and when it is in the cache. */
  staged: Promise<StagedFile>;
  /** Staged: the file is complete, and goes into the cache whoever waits for it. */
  isStaged: boolean;
  promise: Promise<{ path: string; bytes: number }>;
  controller: AbortController;
  waiters: number;
}

/** A cached or generated file to read: its size, whether it was cached, and a reader of its bytes. */
export interface RasterFile {
  bytes: number;
  cached: boolean;
  /** A reader of the file's bytes, to close when done. */
  open(): Promise<ByteReader>;
}

/**
 * Content-addressed cache of generated GeoTIFFs in one directory. Files appear atomically (tmp + fsync + rename);
 * concurrent identical requests share one generation, which is aborted only when every waiter has given up.
 */
export class RasterCache {
  private readonly inFlight = new Map<string, InFlight>();

  private swept: Promise<void> | null = null;

  /** Staged files whose temporaries are not gone yet (each one's `gone`). */
  private readonly staged = new Set<Promise<void>>();

  /** `maxBytes` bounds the cached files; after each generation the least recently used (by mtime, touched on every hit) are removed. */
  constructor(private readonly dir: string, private readonly maxBytes = DEFAULT_CACHE_MAX_BYTES) {}

  /** Removes .part files an earlier process left behind when it died mid-generation (once per cache). */
  private sweep(): Promise<void> {
    this.swept ??= readdir(this.dir)
      .then(async (names) => {
        const cutoff = Date.now() - STALE_PART_MS;
        for (const name of names.filter((n) => n.endsWith('.part'))) {
          const file = join(this.dir, name);
          // Only old ones: a fresh .part may belong to another live simulator sharing the folder.
          const st = await stat(file).catch(() => null);
          if (st && st.mtimeMs < cutoff) await unlink(file).catch(() => undefined);
        }
      })
      .catch(() => undefined);
    return this.swept;
  }

  /** Path of the cached file for req, generating it first if absent; cached is true when the file already existed. */
  async get(req: RasterRequest, opts: { signal?: AbortSignal } = {}): Promise<{ path: string; bytes: number; cached: boolean }> {
    const found = await this.lookup(req, opts.signal);
    if (!('job' in found)) return found;
    return { ...(await this.wait(found.job, found.job.promise, opts.signal)), cached: false };
  }

  /**
   * The file for req to read, generating it first if absent: a generated file is readable as soon as
   * it is written, while it is still being put in the cache.
   */
  async open(req: RasterRequest, opts: { signal?: AbortSignal } = {}): Promise<RasterFile> {
    const found = await this.lookup(req, opts.signal);
    if (!('job' in found)) return { bytes: found.bytes, cached: true, open: () => openByteReader(found.path) };
    const staged = await this.wait(found.job, found.job.staged, opts.signal);
    // Opened in the same turn of the event loop, the staged file's reader comes before the generation's commit.
    return { bytes: staged.bytes, cached: false, open: () => Promise.resolve(staged.reader() ?? openByteReader(found.path)) };
  }

  /** Resolves when no file is being generated or put in place, and no staged file's temporaries are left. */
  async idle(): Promise<void> {
    while (this.inFlight.size || this.staged.size) await Promise.allSettled([...[...this.inFlight.values()].map((j) => j.promise), ...this.staged]);
  }

  /** The cached file for req (its use time touched), or the generation to wait for: the one under way, or a new one. */
  private async lookup(req: RasterRequest, signal?: AbortSignal): Promise<{ path: string; bytes: number; cached: true } | { job: InFlight; path: string }> {
    throwIfAborted(signal);
    await this.sweep();
    const key = rasterCacheKey(req);
    const path = join(this.dir, `${key}.tif`);
    if (!this.inFlight.has(key)) {
      try {
        const st = await stat(path);
        const now = new Date();
        await utimes(path, now, now).catch(() => undefined);
        return { path, bytes: st.size, cached: true };
      } catch {
        // not cached yet
      }
    }
    throwIfAborted(signal);
    let job = this.inFlight.get(key);
    // A generation whose waiters all left before it was staged is winding down; a newcomer starts afresh instead of inheriting its abort.
    if (!job || (job.controller.signal.aborted && !job.isStaged)) {
      const controller = new AbortController();
      const staged = this.stage(req, path, controller.signal);
      const created: InFlight = { staged, isStaged: false, promise: staged.then((s) => this.place(s, path)), controller, waiters: 0 };
      // Set before any waiter hears of the staged file (handlers of one promise run in order).
      staged.then(() => (created.isStaged = true), () => undefined);
      const settled = (): void => {
        if (this.inFlight.get(key) === created) this.inFlight.delete(key);
      };
      // Waiters may all leave; the rejection is still observed here.
      created.promise.then(settled, settled);
      this.inFlight.set(key, created);
      job = created;
    }
    return { job, path };
  }

  /** Waits for `promise` of `job` as one of its waiters, until it settles or `signal` fires: the last waiter to leave before the file is staged aborts the generation. */
  private wait<T>(job: InFlight, promise: Promise<T>, signal?: AbortSignal): Promise<T> {
    job.waiters++;
    return new Promise((resolve, reject) => {
      let done = false;
      const leave = (): boolean => {
        if (done) return false;
        done = true;
        job.waiters--;
        signal?.removeEventListener('abort', onAbort);
        return true;
      };
      const onAbort = (): void => {
        if (!leave()) return;
        if (job.waiters === 0 && !job.isStaged) job.controller.abort(signal!.reason);
        reject(abortError(signal!));
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      promise.then(
        (v) => {
          if (leave()) resolve(v);
        },
        (e: unknown) => {
          if (leave()) reject(e instanceof Error ? e : new Error(String(e)));
        },
      );
    });
  }

  /** Writes req's file, staged: readable, not yet in the cache. */
  private async stage(req: RasterRequest, path: string, signal: AbortSignal): Promise<StagedFile> {
    await mkdir(this.dir, { recursive: true });
    const part = `${path}.${randomBytes(6).toString('hex')}.part`;
    return (await stageGeoTiff(req, part, { signal })).staged;
  }

  /** Puts a staged file at `path` (fsynced, never torn under its name) once its first readers are done. */
  private async place(staged: StagedFile, path: string): Promise<{ path: string; bytes: number }> {
    this.staged.add(staged.gone);
    void staged.gone.then(() => this.staged.delete(staged.gone));
    // Put in place once its first readers are done (or after FIRST_READERS_MS), so their reads do not
    // share the disk and the cores with the copy. A cache, rebuilt when lost: the file is fsynced (never
    // torn under its name), the folder is not. The file is complete: it is kept, whoever gave up waiting.
    await staged.firstReaders(FIRST_READERS_MS);
    await staged.commit({ to: path, durable: 'file' });
    await this.evict(path);
    return { path, bytes: staged.bytes };
  }

  /** Removes the least recently used .tif files until the cache fits in maxBytes; `keep` (just written) and files being generated stay. */
  private async evict(keep: string): Promise<void> {
    const names = (await readdir(this.dir).catch(() => [] as string[])).filter((n) => n.endsWith('.tif'));
    const files: { file: string; size: number; used: number }[] = [];
    for (const name of names) {
      const file = join(this.dir, name);
      const st = await stat(file).catch(() => null);
      if (st) files.push({ file, size: st.size, used: st.mtimeMs });
    }
    let total = files.reduce((n, f) => n + f.size, 0);
    files.sort((a, b) => a.used - b.used);
    for (const f of files) {
      if (total <= this.maxBytes) break;
      if (f.file === keep || this.inFlight.has(f.file.slice(this.dir.length + 1, -'.tif'.length))) continue;
      await unlink(f.file).catch(() => undefined);
      total -= f.size;
    }
  }
}

