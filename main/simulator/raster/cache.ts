import { createHash, randomBytes } from 'node:crypto';
import { mkdir, open, readdir, rename, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import type { RasterRequest } from './types.js';
import { abortError, throwIfAborted } from '../../../common/abort.js';
import { writeGeoTiff } from './write.js';

/** Bumped whenever the synthesis changes, so old cache files are not served for new code. */
export const RASTER_ALGORITHM_VERSION = 1;

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
  promise: Promise<{ path: string; bytes: number }>;
  controller: AbortController;
  waiters: number;
}

/**
 * Content-addressed cache of generated GeoTIFFs in one directory. Files appear atomically (tmp + fsync + rename);
 * concurrent identical requests share one generation, which is aborted only when every waiter has given up.
 */
export class RasterCache {
  private readonly inFlight = new Map<string, InFlight>();

  private swept: Promise<void> | null = null;

  constructor(private readonly dir: string) {}

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
    const { signal } = opts;
    throwIfAborted(signal);
    await this.sweep();
    const key = rasterCacheKey(req);
    const path = join(this.dir, `${key}.tif`);
    if (!this.inFlight.has(key)) {
      try {
        const st = await stat(path);
        return { path, bytes: st.size, cached: true };
      } catch {
        // not cached yet
      }
    }
    throwIfAborted(signal);
    let job = this.inFlight.get(key);
    // A generation whose waiters all left is winding down; a newcomer starts afresh instead of inheriting its abort.
    if (!job || job.controller.signal.aborted) {
      const controller = new AbortController();
      const created: InFlight = { promise: this.generate(req, path, controller.signal), controller, waiters: 0 };
      const settled = (): void => {
        if (this.inFlight.get(key) === created) this.inFlight.delete(key);
      };
      // Waiters may all leave; the rejection is still observed here.
      created.promise.then(settled, settled);
      this.inFlight.set(key, created);
      job = created;
    }
    const res = await this.wait(job, signal);
    return { ...res, cached: false };
  }

  private wait(job: InFlight, signal?: AbortSignal): Promise<{ path: string; bytes: number }> {
    job.waiters++;
    if (!signal) {
      return job.promise;
    }
    return new Promise((resolve, reject) => {
      let done = false;
      const onAbort = (): void => {
        if (done) return;
        done = true;
        if (--job.waiters === 0) job.controller.abort(signal.reason);
        reject(abortError(signal));
      };
      signal.addEventListener('abort', onAbort, { once: true });
      job.promise.then(
        (v) => {
          if (done) return;
          done = true;
          signal.removeEventListener('abort', onAbort);
          resolve(v);
        },
        (e: unknown) => {
          if (done) return;
          done = true;
          signal.removeEventListener('abort', onAbort);
          reject(e instanceof Error ? e : new Error(String(e)));
        },
      );
    });
  }

  private async generate(req: RasterRequest, path: string, signal: AbortSignal): Promise<{ path: string; bytes: number }> {
    await mkdir(this.dir, { recursive: true });
    const part = `${path}.${randomBytes(6).toString('hex')}.part`;
    try {
      const { bytes } = await writeGeoTiff(req, part, { signal });
      const fh = await open(part, 'r+');
      try {
        await fh.sync();
      } finally {
        await fh.close();
      }
      await rename(part, path);
      return { path, bytes };
    } catch (e) {
      await unlink(part).catch(() => undefined);
      throw e;
    }
  }
}
