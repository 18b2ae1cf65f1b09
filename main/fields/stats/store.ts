/**
 * The stored side of field statistics in swath.db (schema step main/fields/schema/field-statistics.ts),
 * read on main's connection: the results table, and the coverage cache, each chunk of a set's parcels
 * on one grid under one rule kept compressed on disk and, the most recently used ones, in memory up to
 * a byte bound (compressed too: only the worker threads decode them). Both are written by the results
 * writer thread (write.ts), never on main's thread.
 */
import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { inTransaction } from '../../shared/database.js';
import type { PixelRule } from './coverage.js';
import { sharedCopy } from './packed.js';
import { WRITE_BATCH } from './write.js';

/** One parcel's statistics on one raster (a date), with one index under one rule. */
export interface FieldStatistic {
  setId: string;
  parcelIndex: number;
  rasterId: string;
  /** YYYY-MM-DD UTC, the raster's image date. */
  date: string;
  /** The band or index label (the band grammar of main/analysis/expression.ts). */
  index: string;
  rule: PixelRule;
  mean: number | null;
  min: number | null;
  max: number | null;
  std: number | null;
  median: number | null;
  p10: number | null;
  p90: number | null;
  /** Sum of the weights of the valid pixels (a pixel count under the centre and touched rules). */
  validPixels: number;
  /** Weight of the parcel's pixels in the raster (valid or not) times the pixel area, over the parcel's area. */
  coveredShare: number;
  /** Valid weight over covered weight (0 when nothing is covered). */
  validShare: number;
  /** validShare below the run's minimum: the date is kept and shown, never averaged into a change. */
  belowThreshold: boolean;
}

/** Compressed coverage kept in memory by default (bytes). */
export const COVERAGE_MEMORY_BYTES = 256 * 1024 * 1024;
/** Most rows one results query returns. */
export const MAX_RESULT_ROWS = 100_000;
/** Rows one page of the latest values' scan reads. */
export const LATEST_PAGE_ROWS = 5_000;
/** Most parcels one latest-values answer holds (the window shows 20,000). */
export const MAX_LATEST_PARCELS = 20_000;

/** Where a page of results starts: after the row of this parcel, date and raster. */
export type StatisticKey = Pick<FieldStatistic, 'parcelIndex' | 'date' | 'rasterId'>;

/** The statistics of a row besides its mean, as {@link FieldStatistic} names them. */
type OtherStatistics = Pick<FieldStatistic, 'min' | 'max' | 'std' | 'median' | 'p10' | 'p90' | 'validPixels' | 'coveredShare' | 'validShare'>;

/** A parcel's latest valid value (its mean) and the change from its previous valid date, with that date's other statistics. */
export interface LatestValue extends OtherStatistics {
  parcelIndex: number;
  date: string;
  value: number | null;
  previousDate: string | null;
  change: number | null;
}

/** The columns of {@link OtherStatistics}, as field_statistics names them. */
interface OtherColumns {
  min: number | null; max: number | null; std: number | null; median: number | null; p10: number | null; p90: number | null;
  valid_pixels: number; covered_share: number; valid_share: number;
}
const OTHER_COLUMNS = 'min, max, std, median, p10, p90, valid_pixels, covered_share, valid_share';

interface LatestRow extends OtherColumns { parcel_index: number; date: string; raster_id: string; mean: number }

interface Row extends OtherColumns {
  set_id: string; index_label: string; rule: string; parcel_index: number; raster_id: string; date: string; mean: number | null; below_threshold: number;
}

const othersOf = (r: OtherColumns): OtherStatistics => ({
  min: r.min, max: r.max, std: r.std, median: r.median, p10: r.p10, p90: r.p90, validPixels: r.valid_pixels, coveredShare: r.covered_share, validShare: r.valid_share,
});

const rowOf = (r: Row): FieldStatistic => ({
  setId: r.set_id, parcelIndex: r.parcel_index, rasterId: r.raster_id, date: r.date, index: r.index_label, rule: r.rule as PixelRule,
  mean: r.mean, ...othersOf(r), belowThreshold: r.below_threshold === 1,
});

const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/** The results table and the coverage cache. */
export class FieldStatisticsStore {
  /** swath.db's path, where the results writer thread opens its connection. */
  readonly file: string;
  private readonly coverageGet: StatementSync;
  private readonly memory = new Map<string, Uint8Array>();
  private memoryBytes = 0;

  constructor(private readonly db: DatabaseSync, private readonly memoryLimit = COVERAGE_MEMORY_BYTES) {
    const file = (db.prepare("SELECT file FROM pragma_database_list WHERE name = 'main'").get() as { file: string } | undefined)?.file;
    if (!file) throw new Error('The field statistics store needs swath.db on disk (its writer thread opens the file).');
    this.file = file;
    this.coverageGet = db.prepare('SELECT data FROM field_coverage WHERE set_id = ? AND grid_key = ? AND rule = ? AND chunk = ?');
  }

  /**
   * Stored results of a set, by parcel, date and raster: those after `after` (a keyset on the
   * table's key, for pages that cost the same wherever they start), then `offset` rows skipped.
   */
  results(setId: string, q: { index: string; rule?: PixelRule; parcelIndex?: number; date?: string; after?: StatisticKey; offset?: number; limit?: number }): FieldStatistic[] {
    const where = ['set_id = ?', 'index_label = ?', 'rule = ?'];
    const args: (string | number)[] = [setId, q.index, q.rule ?? 'exact'];
    if (q.parcelIndex !== undefined) { where.push('parcel_index = ?'); args.push(q.parcelIndex); }
    if (q.date !== undefined) { where.push('date = ?'); args.push(q.date); }
    if (q.after) {
      const { parcelIndex: p, date: d, rasterId: r } = q.after;
      where.push('parcel_index >= ?', '(parcel_index > ? OR date > ? OR (date = ? AND raster_id > ?))');
      args.push(p, p, d, d, r);
    }
    const limit = Math.max(0, Math.min(MAX_RESULT_ROWS, q.limit ?? 1000));
    args.push(limit, Math.max(0, q.offset ?? 0));
    const rows = this.db.prepare(`SELECT * FROM field_statistics WHERE ${where.join(' AND ')} ORDER BY parcel_index, date, raster_id LIMIT ? OFFSET ?`).all(...args) as unknown as Row[];
    return rows.map(rowOf);
  }

  /**
   * Per parcel with a valid date (at or before `date` when given), of the parcels whose index is in
   * [offset, offset + limit) (at most {@link MAX_LATEST_PARCELS}): the latest valid mean and that
   * date's other statistics, and the change of the mean from the previous valid date. A valid date has a mean and is not below the threshold;
   * of two rasters of one date, the first by id counts. Read in pages of at most
   * {@link LATEST_PAGE_ROWS} rows (keyset on the table's key, a parcel left once its two dates are
   * known), main's loop free between them: a set of 100,000 parcels over hundreds of dates never
   * holds it for longer than one page.
   */
  async latest(setId: string, q: { index: string; rule?: PixelRule; date?: string; offset?: number; limit?: number }, signal?: AbortSignal): Promise<LatestValue[]> {
    const from = Math.max(0, q.offset ?? 0);
    const to = from + Math.max(0, Math.min(MAX_LATEST_PARCELS, q.limit ?? MAX_LATEST_PARCELS));
    const page = this.db.prepare(`SELECT parcel_index, date, raster_id, mean, ${OTHER_COLUMNS} FROM field_statistics
      WHERE set_id = ? AND index_label = ? AND rule = ? AND parcel_index >= ? AND parcel_index < ?
        AND (parcel_index > ? OR date < ? OR (date = ? AND raster_id > ?))
        AND below_threshold = 0 AND mean IS NOT NULL ${q.date ? 'AND date <= ?' : ''}
      ORDER BY parcel_index, date DESC, raster_id LIMIT ${LATEST_PAGE_ROWS}`);
    const out: LatestValue[] = [];
    // The parcel being read: its latest valid row and, once seen, the previous date's.
    let last: LatestRow | null = null;
    let prev: LatestRow | null = null;
    const flush = () => {
      if (last) out.push({ parcelIndex: last.parcel_index, date: last.date, value: last.mean, previousDate: prev?.date ?? null, change: prev ? last.mean - prev.mean : null, ...othersOf(last) });
      last = prev = null;
    };
    // The keyset: rows after (parcel, date descending, raster id); '' before every date skips the rest of a parcel.
    let cursor: [number, string, string] = [from - 1, '', ''];
    for (let first = true; ; first = false) {
      if (!first) await yieldToLoop();
      signal?.throwIfAborted();
      const [p, d, r] = cursor;
      const args: (string | number)[] = [setId, q.index, q.rule ?? 'exact', Math.max(from, p), to, p, d, d, r];
      if (q.date) args.push(q.date);
      const rows = page.all(...args) as unknown as LatestRow[];
      for (const row of rows) {
        if (last && row.parcel_index !== last.parcel_index) flush();
        if (!last) last = row;
        else if (!prev && row.date !== last.date) prev = row;
      }
      if (rows.length < LATEST_PAGE_ROWS) break;
      const end = rows[rows.length - 1]!;
      cursor = prev ? [end.parcel_index, '', ''] : [end.parcel_index, end.date, end.raster_id];
    }
    flush();
    return out;
  }

  /** A cached chunk of coverage, compressed (memory first, then swath.db) and shared (packed.ts sharedCopy), or null. */
  coverage(setId: string, gridKey: string, rule: PixelRule, chunk: number): Uint8Array | null {
    const key = `${setId}\n${gridKey}\n${rule}\n${chunk}`;
    const hit = this.memory.get(key);
    if (hit) {
      this.memory.delete(key);
      this.memory.set(key, hit);
      return hit;
    }
    const row = this.coverageGet.get(setId, gridKey, rule, chunk) as { data: Uint8Array } | undefined;
    if (!row) return null;
    const blob = sharedCopy(row.data);
    this.remember(key, blob);
    return blob;
  }

  /** Keeps a computed chunk's compressed coverage in memory (the writer thread stores it in swath.db). */
  rememberCoverage(c: { setId: string; gridKey: string; rule: PixelRule; chunk: number }, blob: Uint8Array): void {
    this.remember(`${c.setId}\n${c.gridKey}\n${c.rule}\n${c.chunk}`, blob);
  }

  /**
   * Removes the results and coverage of the sets no longer in swath.db (deleted: parcel_set has no
   * row of that id), {@link WRITE_BATCH} rows per transaction with main's loop free between them.
   * Returns the rows removed.
   */
  async purgeDeletedSets(signal?: AbortSignal): Promise<number> {
    const gone = 'set_id NOT IN (SELECT id FROM parcel_set)';
    const batch = this.db.prepare(`DELETE FROM field_statistics WHERE (set_id, index_label, rule, parcel_index, raster_id) IN
      (SELECT set_id, index_label, rule, parcel_index, raster_id FROM field_statistics WHERE ${gone} LIMIT ${WRITE_BATCH})`);
    let removed = 0;
    for (;;) {
      signal?.throwIfAborted();
      const n = Number(inTransaction(this.db, () => batch.run()).changes);
      removed += n;
      if (n < WRITE_BATCH) break;
      await yieldToLoop();
    }
    removed += Number(this.db.prepare(`DELETE FROM field_coverage WHERE ${gone}`).run().changes);
    const live = new Set((this.db.prepare('SELECT id FROM parcel_set').all() as { id: string }[]).map((r) => r.id));
    for (const k of [...this.memory.keys()]) if (!live.has(k.slice(0, k.indexOf('\n')))) this.forget(k);
    return removed;
  }

  /** Bytes of coverage held in memory. */
  get memoryUsed(): number {
    return this.memoryBytes;
  }

  private remember(key: string, c: Uint8Array): void {
    const bytes = c.byteLength;
    if (bytes > this.memoryLimit) return;
    this.forget(key);
    this.memory.set(key, c);
    this.memoryBytes += bytes;
    while (this.memoryBytes > this.memoryLimit) this.forget(this.memory.keys().next().value!);
  }

  private forget(key: string): void {
    const c = this.memory.get(key);
    if (!c) return;
    this.memory.delete(key);
    this.memoryBytes -= c.byteLength;
  }
}
