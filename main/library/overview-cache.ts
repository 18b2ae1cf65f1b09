import { mkdir, readdir, stat, unlink } from 'node:fs/promises';
import path from 'node:path';
import { DownloadError } from '../downloads/types.js';
import type { LibraryEntry } from './catalog.js';
import { buildOverviewCopy, overviewNeed } from './overview.js';
import type { RasterFileLookup } from './raster-protocol.js';

/**
 * Overview copies of library rasters that are not cloud optimised, built once and reused: a copy
 * is named by the source's sha256, so it survives restarts and is rebuilt only when the file's
 * content changes. The raster protocol serves a copy as `<OVERVIEW_PREFIX><library-id>`.
 */

/** Prefix of the raster id under which an entry's overview copy is served. */
export const OVERVIEW_PREFIX = 'ovr-';

/** How a library raster is previewed. */
export interface OverviewStatus {
  id: string;
  /** not-needed: preview the file itself; ready: preview `rasterId` (the copy); unsupported: the file itself, slower. */
  state: 'not-needed' | 'ready' | 'unsupported';
  /** The raster id the map should open (the library id, or the copy's). */
  rasterId: string;
  reason: string;
  /** True when an existing copy was reused instead of built now. */
  reused: boolean;
  /** Time spent building now, in ms (0 when nothing was built). */
  buildMs: number;
}

/** Progress of a build, for the renderer's progress bar. */
export interface OverviewProgress {
  id: string;
  fraction: number;
}

/** What the cache needs from the library catalog. */
export interface OverviewCatalog extends RasterFileLookup {
  get(id: string): LibraryEntry | undefined;
  list(): LibraryEntry[];
  on(event: 'removed', listener: (entry: LibraryEntry) => void): unknown;
  /** Resolves once background work (hashing of new downloads) is done. */
  flush(): Promise<void>;
}

/** Options of {@link OverviewCache}. */
export interface OverviewCacheOptions {
  /** Folder of the copies (created on demand). */
  dir: string;
  catalog: OverviewCatalog;
  onProgress?: (p: OverviewProgress) => void;
  log?: (message: string) => void;
}

/** Builds, caches and serves overview copies of library rasters. */
export class OverviewCache {
  private readonly builds = new Map<string, Promise<void>>();
  private readonly ready = new Set<string>();
  private readonly closing = new AbortController();

  /** Creates the cache and removes a copy when its last library entry goes. */
  constructor(private readonly opts: OverviewCacheOptions) {
    opts.catalog.on('removed', (entry) => {
      if (entry.sha256) void this.dropIfUnused(entry.sha256);
    });
  }

  private copyPath(sha256: string): string {
    return path.join(this.opts.dir, `${sha256}.tif`);
  }

  private async exists(file: string): Promise<boolean> {
    try {
      return (await stat(file)).isFile();
    } catch {
      return false;
    }
  }

  private async dropIfUnused(sha256: string): Promise<void> {
    if (this.opts.catalog.list().some((e) => e.sha256 === sha256)) return;
    this.ready.delete(sha256);
    await unlink(this.copyPath(sha256)).catch(() => undefined);
  }

  /**
   * Decides how entry `id` is previewed and, when it needs one, builds its overview copy (once:
   * concurrent callers share the build, later callers reuse the file). The build outlives a caller
   * that gives up (it is cached for the next open); only {@link close} stops it.
   */
  async prepare(id: string, signal: AbortSignal): Promise<OverviewStatus> {
    let found = this.opts.catalog.get(id);
    if (!found) throw new DownloadError('not-found', `No library entry with id ${id}.`);
    // A just-downloaded file is hashed in the background; the copy is keyed by content, so wait for it.
    if (found.sha256 === null) {
      await this.opts.catalog.flush();
      found = this.opts.catalog.get(id) ?? found;
    }
    const entry = { ...found, sha256: found.sha256 ?? `unhashed-${found.id}` };
    const need = await overviewNeed(entry.path, signal).catch((e: unknown) => {
      if (signal.aborted) throw e;
      throw new DownloadError('validation', `${entry.path} cannot be previewed: ${(e as Error).message}`, { cause: e });
    });
    if (!need.needed || !need.supported) {
      return { id, state: need.needed ? 'unsupported' : 'not-needed', rasterId: id, reason: need.reason, reused: false, buildMs: 0 };
    }
    const file = this.copyPath(entry.sha256);
    if (this.ready.has(entry.sha256) || (await this.exists(file))) {
      this.ready.add(entry.sha256);
      return { id, state: 'ready', rasterId: OVERVIEW_PREFIX + id, reason: need.reason, reused: true, buildMs: 0 };
    }
    const started = performance.now();
    let build = this.builds.get(entry.sha256);
    if (!build) {
      build = (async () => {
        await mkdir(this.opts.dir, { recursive: true });
        await buildOverviewCopy(entry.path, file, {
          signal: this.closing.signal,
          onProgress: (fraction) => this.opts.onProgress?.({ id, fraction }),
        });
        this.ready.add(entry.sha256);
      })().finally(() => this.builds.delete(entry.sha256));
      this.builds.set(entry.sha256, build);
    }
    await abortable(build, signal);
    return { id, state: 'ready', rasterId: OVERVIEW_PREFIX + id, reason: need.reason, reused: false, buildMs: Math.round(performance.now() - started) };
  }

  /** The lookup for the raster protocol: library ids as the catalog serves them, plus ready copies. */
  rasterLookup(): RasterFileLookup {
    return {
      get: (rasterId) => {
        if (!rasterId.startsWith(OVERVIEW_PREFIX)) return this.opts.catalog.get(rasterId);
        const entry = this.opts.catalog.get(rasterId.slice(OVERVIEW_PREFIX.length));
        if (!entry?.sha256 || !this.ready.has(entry.sha256)) return undefined;
        return { path: this.copyPath(entry.sha256) };
      },
    };
  }

  /** Removes copies whose source is no longer in the library (left over from a crash or an older version). */
  async prune(): Promise<number> {
    let names: string[];
    try {
      names = await readdir(this.opts.dir);
    } catch {
      return 0;
    }
    const keep = new Set(this.opts.catalog.list().map((e) => `${e.sha256}.tif`));
    let removed = 0;
    for (const name of names) {
      if (keep.has(name)) continue;
      await unlink(path.join(this.opts.dir, name)).then(() => removed++, () => undefined);
    }
    return removed;
  }

  /** Stops running builds (their partial files are removed) and waits for them. */
  async close(): Promise<void> {
    this.closing.abort();
    await Promise.allSettled([...this.builds.values()]);
  }
}

function abortable<T>(p: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason instanceof Error ? signal.reason : new DOMException('Aborted', 'AbortError'));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason instanceof Error ? signal.reason : new DOMException('Aborted', 'AbortError'));
    signal.addEventListener('abort', onAbort, { once: true });
    p.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
