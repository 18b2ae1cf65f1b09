/**
 * Stored statistics read in bounded pages. The latest valid value and change of every parcel, read
 * with main's event loop turning between pages: equal to a plain reading of every stored row, for a
 * page of parcels or a date, with marked dates, missing means and two rasters of one date. The
 * export's pages, each after the last row of the one before: every row once, in order.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FieldStatisticsStore, LATEST_PAGE_ROWS, type LatestValue } from '../../../../main/fields/stats';
import { inTransaction, openDatabase, type OpenDatabase } from '../../../../main/shared/database';
import { makeTempDir, removeTempDirs } from '../../../support/temp-dirs';

const PARCELS = 2_500;
const DATES = Array.from({ length: 16 }, (_, k) => new Date(Date.UTC(2026, 3, 1) + k * 7 * 86_400_000).toISOString().slice(0, 10));

/** A stored row's other statistics, distinct per row, so the latest values can be told to come from their own row. */
interface OtherStatistics { median: number | null; min: number | null; max: number | null; std: number | null; p10: number | null; p90: number | null; validPixels: number; coveredShare: number; validShare: number }
interface StoredRow { parcel: number; raster: string; date: string; mean: number | null; marked: boolean; other: OtherStatistics }

let db: OpenDatabase;
const stored: StoredRow[] = [];
const byParcel: StoredRow[][] = Array.from({ length: PARCELS }, () => []);

beforeAll(async () => {
  db = await openDatabase({ dir: makeTempDir('swath-fields-latest-') });
  const insert = db.db.prepare(`INSERT INTO field_statistics (set_id, index_label, rule, parcel_index, raster_id, date, mean, min, max, std, median, p10, p90, valid_pixels, covered_share, valid_share, below_threshold)
    VALUES ('s', 'B8', 'exact', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
  for (let p = 0; p < PARCELS; p++) {
    DATES.forEach((date, k) => {
      // Some parcels have few dates or none valid; a second raster of the 5th date (its id after the first's).
      const h = (p * 7919 + k * 104729) % 101;
      const rasters = k === 4 ? [`r${k}`, `r${k}b`] : [`r${k}`];
      for (const raster of rasters) {
        if (p % 97 === 3 && k > 2) continue;
        const mean = h < 6 ? null : (h + (raster.endsWith('b') ? 1000 : 0)) / 100;
        const other = {
          median: mean === null ? null : mean + 0.5, min: mean === null ? null : mean - k, max: mean === null ? null : mean + p, std: h % 7 === 0 ? null : h / 7,
          p10: mean === null ? null : -h, p90: mean === null ? null : h * 3, validPixels: p + k, coveredShare: (k + 1) / 17, validShare: h / 101,
        };
        stored.push({ parcel: p, raster, date, mean, marked: h >= 6 && h < 20, other });
      }
    });
  }
  inTransaction(db.db, () => {
    for (const r of stored) {
      const o = r.other;
      insert.run(r.parcel, r.raster, r.date, r.mean, o.min, o.max, o.std, o.median, o.p10, o.p90, o.validPixels, o.coveredShare, o.validShare, r.marked ? 1 : 0);
    }
  });
  for (const r of stored) byParcel[r.parcel]!.push(r);
}, 60_000);

afterAll(async () => {
  await db?.close();
  removeTempDirs();
});

/** Every parcel's latest valid value, that row's other statistics and the change, by reading each of its stored rows. */
function expected(q: { date?: string; offset?: number; limit?: number }): LatestValue[] {
  const out: LatestValue[] = [];
  const from = q.offset ?? 0;
  const to = from + (q.limit ?? PARCELS);
  for (let p = from; p < Math.min(to, PARCELS); p++) {
    const valid = byParcel[p]!.filter((r) => r.mean !== null && !r.marked && (!q.date || r.date <= q.date))
      .sort((a, b) => b.date.localeCompare(a.date) || a.raster.localeCompare(b.raster));
    if (!valid.length) continue;
    const last = valid[0]!;
    const prev = valid.find((r) => r.date !== last.date) ?? null;
    out.push({ parcelIndex: p, date: last.date, value: last.mean, previousDate: prev?.date ?? null, change: prev ? last.mean! - prev.mean! : null, ...last.other });
  }
  return out;
}

describe('latest values', () => {
  it('equal a reading of every row, read in pages while main\'s event loop keeps turning', async () => {
    const validRows = stored.filter((r) => r.mean !== null && !r.marked).length;
    expect(validRows).toBeGreaterThan(6 * LATEST_PAGE_ROWS);
    const store = new FieldStatisticsStore(db.db);
    let turns = 0;
    let done = false;
    const turn = () => {
      turns++;
      if (!done) setImmediate(turn);
    };
    setImmediate(turn);
    const latest = await store.latest('s', { index: 'B8', rule: 'exact' });
    done = true;
    expect(latest).toEqual(expected({}));
    // A turn between pages at least: the valid rows are more than six pages.
    expect(turns).toBeGreaterThanOrEqual(6);
  });

  it('answer a page of parcels, and a date in the past', async () => {
    const store = new FieldStatisticsStore(db.db);
    expect(await store.latest('s', { index: 'B8', rule: 'exact', offset: 1000, limit: 700 })).toEqual(expected({ offset: 1000, limit: 700 }));
    expect(await store.latest('s', { index: 'B8', rule: 'exact', date: DATES[6] })).toEqual(expected({ date: DATES[6] }));
    expect(await store.latest('s', { index: 'B8', rule: 'centre' })).toEqual([]);
  });

  it('stop when the request is cancelled', async () => {
    const abort = new AbortController();
    abort.abort();
    await expect(new FieldStatisticsStore(db.db).latest('s', { index: 'B8' }, abort.signal)).rejects.toThrow();
  });
});

describe('pages of results after a row', () => {
  it('give every row once, by parcel, date and raster', () => {
    const store = new FieldStatisticsStore(db.db);
    const all = store.results('s', { index: 'B8', rule: 'exact', limit: 100_000 });
    expect(all.length).toBe(stored.length);
    const paged: typeof all = [];
    for (let page = store.results('s', { index: 'B8', rule: 'exact', limit: 3_001 }); page.length; ) {
      paged.push(...page);
      const last = page[page.length - 1]!;
      page = store.results('s', { index: 'B8', rule: 'exact', after: last, limit: 3_001 });
    }
    expect(paged.map((r) => `${r.parcelIndex} ${r.date} ${r.rasterId}`)).toEqual(all.map((r) => `${r.parcelIndex} ${r.date} ${r.rasterId}`));
    expect(new Set(paged.map((r) => `${r.parcelIndex} ${r.rasterId}`)).size).toBe(stored.length);
  });
});
