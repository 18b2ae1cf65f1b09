/**
 * The writes of a statistics run, made in the results writer thread (workers.ts) through its own
 * connection to swath.db: a raster's results and a chunk's coverage. A raster's rows land one per
 * page of field_statistics (its key keeps a parcel's dates together, a raster writes every parcel),
 * so each commit writes about as many pages as rows: on main's thread those commits held its event
 * loop for tens of milliseconds each. Here they hold only this thread, and the write lock for one
 * short transaction at a time, so main's own writes wait no longer than one of them.
 */
import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { inTransaction, openThreadConnection } from '../../shared/connection.js';
import type { PixelRule } from './coverage.js';
import { RESULT_FIELDS, type RasterResults } from './packed.js';

/**
 * Rows written per transaction at most: a commit writes about a page per row, and main's own
 * writes wait for the lock while it does.
 */
export const WRITE_BATCH = 250;
/** Time one write transaction takes its rows in, at most (ms); the commit follows. */
const WRITE_SLICE_MS = 10;

/** What a raster's results are stored under. */
export interface ResultsKey {
  setId: string;
  index: string;
  rule: PixelRule;
  /** YYYY-MM-DD UTC, the raster's image date. */
  date: string;
  /** Rows whose valid share is under it are marked below the threshold. */
  minValidShare: number;
}

/** A task of the results writer thread: one raster's results, or one chunk's coverage. */
export type FieldsWriteTask =
  | { op: 'results'; dbFile: string; key: ResultsKey; results: RasterResults }
  | { op: 'coverage'; dbFile: string; setId: string; gridKey: string; rule: PixelRule; chunk: number; parcels: number; bytes: number; blob: Uint8Array };

interface Writer {
  db: DatabaseSync;
  insert: StatementSync;
  coveragePut: StatementSync;
}

/** The thread's connections, one per database file (the app has one). */
const writers = new Map<string, Writer>();

function writerOf(file: string): Writer {
  let w = writers.get(file);
  if (!w) {
    const db = openThreadConnection(file);
    w = {
      db,
      insert: db.prepare(`INSERT OR REPLACE INTO field_statistics
        (set_id, index_label, rule, parcel_index, raster_id, date, mean, min, max, std, median, p10, p90, valid_pixels, covered_share, valid_share, below_threshold)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
      coveragePut: db.prepare('INSERT OR REPLACE INTO field_coverage (set_id, grid_key, rule, chunk, parcels, bytes, data) VALUES (?, ?, ?, ?, ?, ?, ?)'),
    };
    writers.set(file, w);
  }
  return w;
}

const finite = (x: number): number | null => (Number.isFinite(x) ? x : null);

/** Runs one write task; returns the result rows written (0 for coverage). */
export async function runWriteTask(task: FieldsWriteTask, signal: AbortSignal): Promise<number> {
  const w = writerOf(task.dbFile);
  if (task.op === 'coverage') {
    w.coveragePut.run(task.setId, task.gridKey, task.rule, task.chunk, task.parcels, task.bytes, task.blob);
    return 0;
  }
  return writeResults(w, task.key, task.results, signal);
}

/**
 * Writes one raster's results in the order of the table's key (by parcel: each insert lands after
 * the one before), in transactions of at most {@link WRITE_BATCH} rows or {@link WRITE_SLICE_MS},
 * a turn of this thread's loop between them (where a cancel arrives). Returns the rows written.
 */
async function writeResults(w: Writer, key: ResultsKey, r: RasterResults, signal: AbortSignal): Promise<number> {
  const n = r.parcels.length;
  const order = Uint32Array.from({ length: n }, (_, j) => j).sort((a, b) => r.parcels[a]! - r.parcels[b]!);
  const v = r.values;
  for (let start = 0; start < n;) {
    if (start > 0) await nextTurn();
    signal.throwIfAborted();
    start = inTransaction(w.db, () => {
      const t0 = performance.now();
      let at = start;
      for (; at < Math.min(n, start + WRITE_BATCH) && (at === start || performance.now() - t0 < WRITE_SLICE_MS); at++) {
        const j = order[at]!;
        const o = j * RESULT_FIELDS;
        w.insert.run(
          key.setId, key.index, key.rule, r.parcels[j]!, r.rasterId, key.date,
          finite(v[o]!), finite(v[o + 1]!), finite(v[o + 2]!), finite(v[o + 3]!), finite(v[o + 4]!), finite(v[o + 5]!), finite(v[o + 6]!),
          v[o + 7]!, v[o + 8]!, v[o + 9]!, v[o + 9]! < key.minValidShare ? 1 : 0,
        );
      }
      return at;
    });
  }
  return n;
}
