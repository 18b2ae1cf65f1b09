import { createHash } from 'node:crypto';
import { mkdir, readdir, stat, unlink } from 'node:fs/promises';
import path from 'node:path';
import { AppError } from '../../common/errors.js';
import { abortError, abortable, isAbortError } from '../../common/abort.js';
import type { LibraryEntry } from './catalog.js';
import { overviewNeed, type OverviewNeed } from './overview.js';
import { OverviewWorkers } from './overview-thread.js';
import type { RasterFileLookup, RemoteRasterFile } from './raster-protocol.js';

/**
 * Overview copies of library rasters that are not cloud optimised, built once and reused: a copy
 * is named by a hash of the source's path, size and modification time, so it survives restarts
 * and is rebuilt when the file changes. The raster protocol serves a copy as
 * `<OVERVIEW_PREFIX><library-id>`.
 *
 * Before a first build, the renderer may ask for a quick look: a nearest-decimated copy about the
 * size of the screen (every f-th row is read, so it takes a fraction of the full build), served as
 * `<QUICK_LOOK_PREFIX><f>-<library-id>`, so the map has a first frame while the full copy is built on
 * the next request. Quick looks live for the session; {@link prune} removes them at start.
 */

/** A full copy's file name: its key (see {@link OverviewCache}) and .tif. */
const COPY_NAME = /^[0-9a-f]{40}\.tif$/;
/** Library files stat'ed at once by {@link OverviewCache.prune}. */
const PRUNE_STATS_AT_ONCE = 16;

/** Prefix of the raster id under which an entry's overview copy is served. */
export const OVERVIEW_PREFIX = 'ovr-';
/** Prefix of the raster ids under which an entry's quick looks are served (`qlk-<f>-<id>`). */
export const QUICK_LOOK_PREFIX = 'qlk-';

/** How a library raster is previewed. */
export interface OverviewStatus {
  id: string;
  /**
   * not-needed: preview the file itself; ready: preview `rasterId` (the copy); unsupported: the
   * file itself, slower; quick-look: `rasterId` is a quick look, ask again (without quickLook) for the copy.
   */
  state: 'not-needed' | 'ready' | 'unsupported' | 'quick-look';
  /** The raster id the map should open (the library id, or the copy's). */
  rasterId: string;
  reason: string;
  /** True when an existing copy was reused instead of built now. */
  reused: boolean;
  /** Time spent building now, in ms (0 when nothing was built). */
  buildMs: number;
}

/** Options of {@link OverviewCache.prepare}. */
export interface PrepareOptions {
  /**
   * When the copy does not exist yet, answer at once with a quick look whose longer side is at
   * least this many px (or the file's own size) instead of building the copy.
   */
  quickLook?: number;
}

/** Progress of a build, for the renderer's progress bar. */
export interface OverviewProgress {
  id: string;
  fraction: number;
}

/** What the cache needs from the library catalog. */
export interface OverviewCatalog extends RasterFileLookup {
  get(id: string): LibraryEntry | undefined;
  paths(): string[];
  on(event: 'removed', listener: (entry: LibraryEntry) => void): unknown;
}

/** Options of {@link OverviewCache}. */
export interface OverviewCacheOptions {
  /** Folder of the copies (created on demand). */
  dir: string;
  catalog: OverviewCatalog;
  onProgress?: (p: OverviewProgress) => void;
  log?: (message: string) => void;
  /** The threads that build copies; default: the cache's own, closed with it. */
  workers?: OverviewWorkers;
  /**
   * Rasters that are not library entries but are read from elsewhere by main (a teammate's, over
   * the team's read URL): previewed as they are (no overview copy: that would mean reading the
   * whole file), served by the raster protocol under their own id.
   */
  remote?: { get(id: string): (RemoteRasterFile & { url: string }) | undefined };
}

/**
 * A build its callers share: each waits with its own signal, and when every caller waiting for it
 * has given up (a closed preview), the build is aborted too (its partial file is removed).
 */
class SharedBuild {
  private waiters = 0;
  private readonly stop = new AbortController();
  readonly done: Promise<void>;

  constructor(run: (signal: AbortSignal) => Promise<void>, closing: AbortSignal) {
    this.done = run(AbortSignal.any([closing, this.stop.signal]));
    this.done.catch(() => undefined);
  }

  /** True once every caller gave up: the build is being stopped, a new caller starts another. */
  get stopping(): boolean {
    return this.stop.signal.aborted;
  }

  /** Waits for the build on behalf of one caller; rejects with an AbortError as soon as `signal` fires. */
  async wait(signal: AbortSignal): Promise<void> {
    this.waiters++;
    try {
      await abortable(this.done, signal);
    } finally {
      if (--this.waiters === 0 && signal.aborted) this.stop.abort(abortError(signal));
    }
  }
}

/**
 * A failed read or build as the renderer sees it: the file's own fault (a header or block Swath
 * refuses: a deflate bomb, a corrupt strip) is a validation error naming the file; aborts, system
 * errors (ENOSPC, EACCES: they carry a code) and app errors pass as they are.
 */
function previewError(e: unknown, file: string, signal: AbortSignal): unknown {
  if (signal.aborted || isAbortError(e) || e instanceof AppError || typeof (e as { code?: unknown }).code === 'string') return e;
  return new AppError('validation', `${file} cannot be previewed: ${(e as Error).message}`, { cause: e });
}

/** Builds, caches and serves overview copies of library rasters. */
export class OverviewCache {
  private readonly builds = new Map<string, SharedBuild>();
  /** Library id -> key of its copy, once the copy exists. */
  private readonly ready = new Map<string, string>();
  /**
   * Quick looks of this session: `<key>.quick<f>` -> its file (named with a serial, so a rebuild
   * never shares a file with a build being dropped) and build; library id -> that base name.
   */
  private readonly quickBuilds = new Map<string, { file: string; build: SharedBuild }>();
  private readonly quickOf = new Map<string, Set<string>>();
  private quickSerial = 0;
  /** What {@link overviewNeed} said, by file key. */
  private readonly needs = new Map<string, OverviewNeed>();
  private readonly closing = new AbortController();
  private readonly workers: OverviewWorkers;

  /** Creates the cache; a copy is deleted when the last entry using it leaves the library. */
  constructor(private readonly opts: OverviewCacheOptions) {
    this.workers = opts.workers ?? new OverviewWorkers();
    opts.catalog.on('removed', (entry) => {
      const key = this.ready.get(entry.id);
      this.ready.delete(entry.id);
      if (key) void this.dropIfUnused(key);
      const quicks = this.quickOf.get(entry.id);
      this.quickOf.delete(entry.id);
      for (const name of quicks ?? []) this.dropQuickIfUnused(name);
    });
  }

  /** Forgets a quick look no entry uses at once (a re-import builds a new one) and deletes its file once its build is over. */
  private dropQuickIfUnused(name: string): void {
    const q = this.quickBuilds.get(name);
    if (!q || [...this.quickOf.values()].some((names) => names.has(name))) return;
    this.quickBuilds.delete(name);
    void q.build.done.catch(() => undefined).then(() => unlink(q.file)).catch(() => undefined);
  }

  private copyPath(key: string): string {
    return path.join(this.opts.dir, `${key}.tif`);
  }

  /**
   * The copy key of a file as it is now, or null when it is gone. Path, size and modification time
   * rather than the content hash: known at once (new downloads are hashed in the background) and
   * changed by any rewrite of the file.
   */
  private async keyOf(file: string): Promise<string | null> {
    try {
      const st = await stat(file);
      return createHash('sha256').update(`${file}\0${st.size}\0${st.mtimeMs}`).digest('hex').slice(0, 40);
    } catch {
      return null;
    }
  }

  private async exists(file: string): Promise<boolean> {
    try {
      return (await stat(file)).isFile();
    } catch {
      return false;
    }
  }

  private async dropIfUnused(key: string): Promise<void> {
    if ([...this.ready.values()].includes(key) || this.builds.has(key)) return;
    await unlink(this.copyPath(key)).catch(() => undefined);
  }

  /**
   * Decides how entry `id` is previewed and, when it needs one, builds its overview copy (once:
   * concurrent callers share the build, later callers reuse the file). A build goes on while one
   * caller still waits for it; when the last one gives up (its signal fires), the build stops and
   * its partial file is removed, and {@link close} stops them all.
   */
  async prepare(id: string, signal: AbortSignal, opts: PrepareOptions = {}): Promise<OverviewStatus> {
    const entry = this.opts.catalog.get(id);
    if (!entry && this.opts.remote?.get(id)) {
      return { id, state: 'not-needed', rasterId: id, reason: 'Read from the team’s read URL: only the parts the map shows are fetched.', reused: false, buildMs: 0 };
    }
    if (!entry) throw new AppError('not-found', `No library entry with id ${id}.`);
    const key = await this.keyOf(entry.path);
    if (!key) throw new AppError('not-found', `${entry.path} is missing.`);
    // The header is read once per version of the file (the key changes with it).
    const need = this.needs.get(key) ?? await overviewNeed(entry.path, signal).catch((e: unknown) => {
      throw previewError(e, entry.path, signal);
    });
    this.needs.set(key, need);
    if (!need.needed || !need.supported) {
      return { id, state: need.needed ? 'unsupported' : 'not-needed', rasterId: id, reason: need.reason, reused: false, buildMs: 0 };
    }
    const file = this.copyPath(key);
    if (!this.builds.has(key) && (this.ready.get(id) === key || (await this.exists(file)))) {
      this.ready.set(id, key);
      return { id, state: 'ready', rasterId: OVERVIEW_PREFIX + id, reason: need.reason, reused: true, buildMs: 0 };
    }
    const started = performance.now();
    // Every f-th pixel, f the largest factor that keeps the longer side at least quickLook px; a
    // file less than twice that size gets its copy at once (a quick look would be the copy again).
    const f = opts.quickLook ? Math.floor(Math.max(need.source.width, need.source.height) / opts.quickLook) : 0;
    if (f >= 2) {
      const name = `${key}.quick${f}`;
      let quick = this.quickBuilds.get(name);
      if (quick?.build.stopping) quick = undefined;
      const reused = !!quick;
      if (!quick) {
        const file = path.join(this.opts.dir, `${name}-${++this.quickSerial}.tif`);
        const build = new SharedBuild(async (buildSignal) => {
          await mkdir(this.opts.dir, { recursive: true });
          await this.workers.build(entry.path, file, { signal: buildSignal, decimate: f, durable: false });
        }, this.closing.signal);
        const q = { file, build };
        quick = q;
        this.quickBuilds.set(name, q);
        build.done.catch(() => {
          if (this.quickBuilds.get(name) === q) this.quickBuilds.delete(name);
        });
      }
      const q = quick;
      await q.build.wait(signal).catch((e: unknown) => {
        // Every caller gave up: the quick look goes, even one finished just as the last caller left
        // (else its file would stay with no one to serve or delete it).
        if (q.build.stopping && this.quickBuilds.get(name) === q) this.dropQuickIfUnused(name);
        throw previewError(e, entry.path, signal);
      });
      if (!this.opts.catalog.get(id)) {
        // Removed while its quick look was built.
        this.dropQuickIfUnused(name);
        throw new AppError('not-found', `No library entry with id ${id}.`);
      }
      this.quickOf.set(id, (this.quickOf.get(id) ?? new Set()).add(name));
      return { id, state: 'quick-look', rasterId: `${QUICK_LOOK_PREFIX}${f}-${id}`, reason: need.reason, reused, buildMs: Math.round(performance.now() - started) };
    }
    let build = this.builds.get(key);
    // A build being stopped still owns the .part file: a new one starts once it is gone.
    while (build?.stopping) {
      await build.done.catch(() => undefined);
      build = this.builds.get(key);
    }
    if (!build) {
      const b = new SharedBuild(async (buildSignal) => {
        try {
          await mkdir(this.opts.dir, { recursive: true });
          await this.workers.build(entry.path, file, {
            signal: buildSignal,
            onProgress: (fraction) => this.opts.onProgress?.({ id, fraction }),
          });
        } finally {
          if (this.builds.get(key) === b) this.builds.delete(key);
        }
      }, this.closing.signal);
      build = b;
      this.builds.set(key, b);
    }
    await build.wait(signal).catch((e: unknown) => {
      throw previewError(e, entry.path, signal);
    });
    this.ready.set(id, key);
    return { id, state: 'ready', rasterId: OVERVIEW_PREFIX + id, reason: need.reason, reused: false, buildMs: Math.round(performance.now() - started) };
  }

  /** The lookup for the raster protocol: library ids as the catalog serves them, plus ready copies. */
  rasterLookup(): RasterFileLookup {
    return {
      get: (rasterId) => {
        if (rasterId.startsWith(QUICK_LOOK_PREFIX)) {
          // qlk-<f>-<id>: each size of quick look has its own id, so an open file never changes under it.
          const m = /^(\d+)-(.+)$/.exec(rasterId.slice(QUICK_LOOK_PREFIX.length));
          const id = m?.[2] ?? '';
          const name = [...(this.quickOf.get(id) ?? [])].find((n) => n.endsWith(`.quick${m?.[1]}`));
          const q = name ? this.quickBuilds.get(name) : undefined;
          return q && this.opts.catalog.get(id) ? { path: q.file } : undefined;
        }
        if (!rasterId.startsWith(OVERVIEW_PREFIX)) {
          const remote = this.opts.catalog.get(rasterId) ? undefined : this.opts.remote?.get(rasterId);
          return remote ? { path: remote.url, remote } : this.opts.catalog.get(rasterId);
        }
        const id = rasterId.slice(OVERVIEW_PREFIX.length);
        const key = this.ready.get(id);
        if (!key || !this.opts.catalog.get(id)) return undefined;
        return { path: this.copyPath(key) };
      },
    };
  }

  /**
   * Removes copies whose source is no longer in the library, or has changed (left over from a crash or an older file), and quick looks of earlier sessions.
   * A copy is named by its source's path, size and time, so finding a copy's source takes a stat of library files: they are
   * looked at {@link PRUNE_STATS_AT_ONCE} at a time (the thread pool keeps room for the app's own reads; at 100,000 rasters
   * one stat each at once held every other file read of the start behind them), and no more once every copy has its source.
   */
  async prune(): Promise<number> {
    let names: string[];
    try {
      names = await readdir(this.opts.dir);
    } catch {
      return 0;
    }
    // The copies no library file has been found to be the source of yet.
    const orphans = new Set(names.filter((n) => COPY_NAME.test(n)));
    if (orphans.size > 0) {
      const sources = this.opts.catalog.paths();
      for (let i = 0; i < sources.length && orphans.size > 0; i += PRUNE_STATS_AT_ONCE) {
        const keys = await Promise.all(sources.slice(i, i + PRUNE_STATS_AT_ONCE).map((p) => this.keyOf(p)));
        for (const key of keys) if (key) orphans.delete(`${key}.tif`);
      }
    }
    // Copies this session serves stay whatever the listing said (a file imported while the stats ran).
    for (const key of this.ready.values()) orphans.delete(`${key}.tif`);
    let removed = 0;
    for (const name of names) {
      if ((COPY_NAME.test(name) && !orphans.has(name)) || [...this.quickBuilds.values()].some((q) => path.join(this.opts.dir, name).startsWith(q.file))) continue;
      if ([...this.builds.keys()].some((k) => name.startsWith(k))) continue;
      await unlink(path.join(this.opts.dir, name)).then(() => removed++, () => undefined);
    }
    return removed;
  }

  /** Stops running builds (their partial files are removed), waits for them, then ends its own threads. */
  async close(): Promise<void> {
    this.closing.abort();
    await Promise.allSettled([...this.builds.values(), ...this.quickBuilds.values()].map((b) => ('build' in b ? b.build : b).done));
    if (!this.opts.workers) await this.workers.close();
  }
}
