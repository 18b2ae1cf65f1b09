/**
 * Field statistics over the library: for every parcel of a set and every library raster of its
 * area, a band or index summarised under one pixel rule (coverage.ts, statistics.ts), computed in
 * the field statistics worker threads and stored in swath.db (store.ts).
 *
 * A run groups the rasters by pixel grid (EPSG, corner, pixel size and size, from their headers).
 * On each grid the parcels whose box meets the grid's footprint are sorted north to south and cut
 * into chunks; a chunk's coverage is computed once (the first task reading that grid, its parcels
 * projected to the grid's CRS by their vertices) and cached, so every other date on that grid, in
 * this run or a later one, reads the cache. Main plans from the parcels' boxes and hands out tasks
 * (two at a time per thread); the parcel store's reader thread reads and packs each chunk's
 * geometries, the statistics threads read the rasters, and the results writer thread stores what they
 * computed (workers.ts, write.ts), so main's event loop never holds a transaction of results.
 */
import { isAbortError, throwIfAborted } from '../../../common/abort.js';
import { AppError } from '../../../common/errors.js';
import { parseIndexExpression } from '../../analysis/expression.js';
import { readGeoTiffHeader, type GeoTiffHeader } from '../../geotiff/index.js';
import type { LibraryEntry } from '../../library/index.js';
import { PIXEL_RULES, type PixelGrid, type PixelRule } from './coverage.js';
import { pixelGridOf, type FieldsTask, type FieldsTaskResult, type ParcelCrsRef } from './compute.js';
import { gridKeyOf, type PackedParcels } from './packed.js';
import { FieldStatisticsStore, type FieldStatistic, type LatestValue, type StatisticKey } from './store.js';
import type { FieldStatisticsWorkers } from './workers.js';

/**
 * What a run reads of a parcel set: main/fields/parcels.ts ParcelStore's `set`, `eachBox` (boxes only,
 * on main) and `packed` (a chunk's geometries, read and packed off main's thread).
 */
export interface ParcelSource {
  set(id: string): { id: string; crs: ParcelCrsRef; count: number; bbox4326: [number, number, number, number] } | null;
  eachBox(setId: string, pageSize?: number): Iterable<{ index: number; bbox4326: [number, number, number, number] }[]>;
  packed(setId: string, indices: Int32Array, signal: AbortSignal): Promise<PackedParcels>;
}

/** What a run reads of the library. */
export interface RasterSource {
  get(id: string): LibraryEntry | undefined;
  covering(box: [number, number, number, number]): LibraryEntry[];
}

export interface FieldStatisticsDeps {
  store: FieldStatisticsStore;
  workers: FieldStatisticsWorkers;
  library: RasterSource;
  parcels: ParcelSource;
  /** Reads a raster's header (main/geotiff's bounded reader by default). */
  readHeader?: (file: string, signal: AbortSignal) => Promise<GeoTiffHeader>;
  /** Parcels per chunk at most (a task's unit and the coverage cache's; by default from the cell budget and the threads). */
  chunkParcels?: number;
  /** Rasters per task: a task's results are written when it ends. */
  rastersPerTask?: number;
}

export interface FieldRunRequest {
  setId: string;
  rasterIds?: string[];
  index: string;
  rule?: PixelRule;
  minValidShare?: number;
}

export interface FieldRunProgress {
  signal?: AbortSignal;
  onProgress?: (p: { done: number; total: number; etaMs: number | null }) => void;
}

/** The default minimum valid share: a date with less than 80 % of its covered weight valid is marked. */
export const DEFAULT_MIN_VALID_SHARE = 0.8;
/**
 * Pixels of the parcels' boxes a chunk holds at most: its coverage (12 bytes a cell under the exact
 * rule) stays within about 100 MB, and the chunks are as large as that allows, because the parcels
 * crossing the line between two chunks make both decode that line's block row of every raster.
 */
const CHUNK_CELLS = 8_000_000;
/** Parcels a chunk holds at most (its per-parcel arrays and results). */
const CHUNK_PARCELS = 25_000;
const RASTERS_PER_TASK = 6;

interface GridGroup {
  key: string;
  epsg: number;
  grid: PixelGrid;
  entries: LibraryEntry[];
  box: [number, number, number, number];
}

const meets = (a: readonly number[], b: readonly number[]) => a[0]! <= b[2]! && b[0]! <= a[2]! && a[1]! <= b[3]! && b[1]! <= a[3]!;

/** Statistics runs and their stored results. */
export class FieldStatistics {
  constructor(private readonly deps: FieldStatisticsDeps) {}

  /** Computes and stores the statistics of a set's parcels over the rasters of its area (or the given ones). */
  async run(request: FieldRunRequest, progress: FieldRunProgress = {}): Promise<{ results: number; skippedRasters: { rasterId: string; reason: string }[]; skippedParcels: { parcelIndex: number; reason: string }[] }> {
    const signal = progress.signal ?? new AbortController().signal;
    const set = this.deps.parcels.set(request.setId);
    if (!set) throw new AppError('not-found', `No parcel set ${request.setId}.`);
    const spec = parseIndexExpression(request.index);
    if ('error' in spec) throw new AppError('validation', spec.error, { fields: { index: [spec.error] } });
    const rule = request.rule ?? 'exact';
    if (!PIXEL_RULES.includes(rule)) throw new AppError('validation', `rule must be one of ${PIXEL_RULES.join(', ')}`, { fields: { rule: ['unknown pixel rule'] } });
    const minValidShare = request.minValidShare ?? DEFAULT_MIN_VALID_SHARE;
    if (!(minValidShare >= 0 && minValidShare <= 1)) throw new AppError('validation', 'minValidShare must be between 0 and 1', { fields: { minValidShare: ['between 0 and 1'] } });

    const skippedRasters: { rasterId: string; reason: string }[] = [];
    const entries: LibraryEntry[] = [];
    for (const id of request.rasterIds ?? []) {
      const e = this.deps.library.get(id);
      if (e) entries.push(e);
      else skippedRasters.push({ rasterId: id, reason: 'is not in the library' });
    }
    if (!request.rasterIds) entries.push(...this.deps.library.covering(set.bbox4326));
    const groups = await this.groups(entries.filter((e) => {
      if (e.date) return true;
      skippedRasters.push({ rasterId: e.id, reason: 'has no image date' });
      return false;
    }), skippedRasters, signal);

    // The parcels of each grid's footprint, north to south, with their boxes' pixels on the grid (from its footprint's degrees).
    const members = new Map<string, { index: number; north: number; cells: number }[]>();
    for (const g of groups) members.set(g.key, []);
    for (const page of this.deps.parcels.eachBox(set.id, 1000)) {
      for (const p of page) {
        for (const g of groups) {
          if (!meets(p.bbox4326, g.box)) continue;
          const b = p.bbox4326;
          const cells = ((b[2] - b[0]) * (g.grid.width / (g.box[2] - g.box[0])) + 1) * ((b[3] - b[1]) * (g.grid.height / (g.box[3] - g.box[1])) + 1);
          // A footprint of no width (no pixels per degree to go by) counts each parcel as a grid's worth.
          members.get(g.key)!.push({ index: p.index, north: b[3], cells: Number.isFinite(cells) ? cells : g.grid.width * g.grid.height });
        }
      }
      await new Promise<void>((resolve) => setImmediate(resolve));
      throwIfAborted(signal);
    }
    const perTask = this.deps.rastersPerTask ?? RASTERS_PER_TASK;
    const jobs: { group: GridGroup; chunk: number; indices: Int32Array }[] = [];
    let total = 0;
    for (const g of groups) {
      const list = members.get(g.key)!.sort((a, b) => b.north - a.north || a.index - b.index);
      const ends = chunkEnds(list.map((p) => p.cells), this.deps.chunkParcels ? { maxParcels: this.deps.chunkParcels } : { minChunks: 2 * this.deps.workers.size });
      ends.forEach((end, chunk) => jobs.push({ group: g, chunk, indices: Int32Array.from(list.slice(chunk ? ends[chunk - 1] : 0, end), (p) => p.index) }));
      total += list.length * g.entries.length;
    }

    const started = performance.now();
    let done = 0;
    let results = 0;
    const skippedParcels = new Map<number, string>();
    const report = () => {
      const elapsed = performance.now() - started;
      progress.onProgress?.({ done, total, etaMs: done > 0 ? Math.round((elapsed / done) * (total - done)) : null });
    };
    report();
    const key = { setId: set.id, index: spec.label, rule, minValidShare };
    const dbFile = this.deps.store.file;
    const runJob = async (job: (typeof jobs)[number]) => {
      const { group } = job;
      let coverage = this.deps.store.coverage(set.id, group.key, rule, job.chunk);
      const packed = await this.deps.parcels.packed(set.id, job.indices, signal);
      for (let at = 0; at < group.entries.length; at += perTask) {
        const files = group.entries.slice(at, at + perTask);
        const task: FieldsTask = {
          op: 'fields', gridKey: group.key, files: files.map((e) => ({ rasterId: e.id, file: e.path })), spec, rule, crs: set.crs,
          parcels: packed,
          coverage,
        };
        let out: FieldsTaskResult;
        try {
          out = await this.deps.workers.run(task, signal, (p) => { done += p.results; report(); });
        } catch (e) {
          if (isAbortError(e)) throw e;
          throwIfAborted(signal);
          for (const f of files) skippedRasters.push({ rasterId: f.id, reason: `could not be read: ${(e as Error).message}` });
          continue;
        }
        if (out.coverage) {
          coverage = out.coverage.blob;
          const c = { setId: set.id, gridKey: group.key, rule, chunk: job.chunk };
          this.deps.store.rememberCoverage(c, coverage);
          await this.deps.workers.write({ op: 'coverage', dbFile, ...c, parcels: packed.indices.length, bytes: out.coverage.bytes, blob: coverage }, signal);
        }
        for (const err of out.parcelErrors) skippedParcels.set(err.index, err.reason);
        for (const r of out.rasters) {
          if ('skip' in r) {
            if (job.chunk === 0) skippedRasters.push({ rasterId: r.rasterId, reason: r.skip });
            continue;
          }
          // Awaited first: `results += await …` would add to the count read before the await, losing the other lanes' rows.
          const written = await this.deps.workers.write({ op: 'results', dbFile, key: { ...key, date: files.find((f) => f.id === r.rasterId)!.date! }, results: r }, signal);
          results += written;
        }
      }
    };
    // Two tasks in flight per thread: one runs while the writer thread stores the other's results.
    const queue = [...jobs];
    const lanes = Array.from({ length: Math.min(queue.length, this.deps.workers.size * 2) }, async () => {
      for (let job = queue.shift(); job; job = queue.shift()) await runJob(job);
    });
    const settled = await Promise.allSettled(lanes);
    throwIfAborted(signal);
    const failed = settled.find((s) => s.status === 'rejected');
    if (failed) throw (failed as PromiseRejectedResult).reason;
    return { results, skippedRasters, skippedParcels: [...skippedParcels].map(([parcelIndex, reason]) => ({ parcelIndex, reason })).slice(0, 1000) };
  }

  results(setId: string, query: { index: string; rule?: PixelRule; parcelIndex?: number; date?: string; after?: StatisticKey; offset?: number; limit?: number }): FieldStatistic[] {
    return this.deps.store.results(setId, { ...query, index: labelOf(query.index) });
  }

  /** A page of parcels' latest valid values and changes (FieldStatisticsStore.latest). */
  latest(setId: string, query: { index: string; rule?: PixelRule; date?: string; offset?: number; limit?: number }, signal?: AbortSignal): Promise<LatestValue[]> {
    return this.deps.store.latest(setId, { ...query, index: labelOf(query.index) }, signal);
  }

  /** Rasters by pixel grid, from their headers; a raster that cannot be placed on a grid is skipped with the reason. */
  private async groups(entries: LibraryEntry[], skipped: { rasterId: string; reason: string }[], signal: AbortSignal): Promise<GridGroup[]> {
    const read = this.deps.readHeader ?? readGeoTiffHeader;
    const byKey = new Map<string, GridGroup>();
    for (const e of entries) {
      let h: GeoTiffHeader;
      try {
        h = await read(e.path, signal);
      } catch (err) {
        throwIfAborted(signal);
        skipped.push({ rasterId: e.id, reason: `could not be read: ${(err as Error).message}` });
        continue;
      }
      let placed;
      try {
        placed = pixelGridOf(h);
      } catch (err) {
        skipped.push({ rasterId: e.id, reason: (err as Error).message });
        continue;
      }
      if (!e.bounds4326) {
        skipped.push({ rasterId: e.id, reason: e.boundsNote ?? 'has no footprint in lon/lat' });
        continue;
      }
      const key = gridKeyOf(placed.epsg, placed.grid);
      const g = byKey.get(key);
      if (g) g.entries.push(e);
      else byKey.set(key, { key, epsg: placed.epsg, grid: placed.grid, entries: [e], box: e.bounds4326 });
    }
    for (const g of byKey.values()) g.entries.sort((a, b) => a.date!.localeCompare(b.date!) || a.id.localeCompare(b.id));
    return [...byKey.values()];
  }
}

/**
 * Where the chunks of parcels end (exclusive), the parcels in order with their boxes' pixels
 * `cells`: as few chunks as {@link CHUNK_CELLS} allows and at least `minChunks` (two per
 * statistics thread, so every lane has one), of about equal pixels, none over the budget (but a
 * parcel larger than it, alone) nor over `maxParcels`.
 */
export function chunkEnds(cells: readonly number[], opts: { maxParcels?: number; minChunks?: number; maxCells?: number } = {}): number[] {
  const maxParcels = opts.maxParcels ?? CHUNK_PARCELS;
  const maxCells = opts.maxCells ?? CHUNK_CELLS;
  const total = cells.reduce((sum, c) => sum + c, 0);
  const count = Math.max(Math.ceil(total / maxCells), Math.ceil(cells.length / maxParcels), opts.minChunks ?? 1);
  const ends: number[] = [];
  for (let at = 0, done = 0; at < cells.length;) {
    // This chunk's share of the pixels left: a parcel goes in when at least half of it fits the
    // share and all of it the budget.
    const share = (total - done) / Math.max(1, count - ends.length);
    let end = at;
    let sum = 0;
    do sum += cells[end++]!;
    while (end < cells.length && end - at < maxParcels && sum + cells[end]! / 2 <= share && sum + cells[end]! <= maxCells);
    ends.push(end);
    done += sum;
    at = end;
  }
  return ends;
}

/** A request's index as the results store it: the expression's label ("NDVI [B8_B4]", "B4"). */
function labelOf(index: string): string {
  const spec = parseIndexExpression(index);
  return 'error' in spec ? index : spec.label;
}
