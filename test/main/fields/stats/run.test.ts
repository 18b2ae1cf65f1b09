/**
 * A statistics run in its worker threads: the coverage of a (set, grid) is computed once and read
 * from swath.db by later runs on that grid, progress reaches the total with an ETA, Cancel stops
 * the run, its statistics threads compute at background priority, and bad requests name their field.
 */
import path from 'node:path';
import proj4 from 'proj4';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FieldStatistics, FieldStatisticsStore, FieldStatisticsWorkers } from '../../../../main/fields/stats';
import { decodeChunk, encodeChunk } from '../../../../main/fields/stats/packed';
import { ParcelStore } from '../../../../main/fields/parcels';
import { openDatabase, type OpenDatabase } from '../../../../main/shared/database';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { BACKGROUND_NICE } from '../../../../main/shared/thread-priority';
import { makeTempDir, removeTempDirs } from '../../../support/temp-dirs';
import { entryFor, libraryOf, parcelSetsOf, writeBands, type Parts, type TestGrid } from './support';

const UTM = '+proj=utm +zone=33 +datum=WGS84 +units=m +no_defs';
const GRID: TestGrid = { epsg: 32633, originX: 390000, originY: 5820000, pixelSize: 10, width: 200, height: 200 };
const toLonLat = proj4(UTM, 'EPSG:4326');
const lonLat = (x: number, y: number) => toLonLat.forward([x, y]) as [number, number];

/** A 20 x 20 grid of 73 m squares over the raster. */
const parcels: Parts[] = [];
for (let i = 0; i < 20; i++) for (let j = 0; j < 20; j++) {
  const x = GRID.originX + 15.5 + j * 98.3;
  const y = GRID.originY - 12.25 - i * 98.7;
  parcels.push([[[[x, y], [x + 73, y], [x + 73, y - 73], [x, y - 73], [x, y]]]]);
}

let dir: string;
let db: OpenDatabase;
let workers: FieldStatisticsWorkers;
const dates = ['2026-06-01', '2026-06-11', '2026-06-21', '2026-07-01'];
let library: ReturnType<typeof libraryOf>;
const source = parcelSetsOf({ grid: { epsg: 32633, proj4: UTM, parcels, toLonLat: lonLat } });

beforeAll(async () => {
  dir = makeTempDir('swath-fields-run-');
  const entries = [];
  for (const [k, date] of dates.entries()) {
    const file = await writeBands(path.join(dir, `${date}.tif`), GRID, date, (b, r, c) => 1000 + ((r * 31 + c * 17 + b * 7 + k * 13) % 3000));
    entries.push(entryFor(`r${k}`, file, date, GRID, [lonLat(GRID.originX, GRID.originY - 2000)[0], lonLat(GRID.originX, GRID.originY - 2000)[1], lonLat(GRID.originX + 2000, GRID.originY)[0], lonLat(GRID.originX + 2000, GRID.originY)[1]]));
  }
  library = libraryOf(entries);
  db = await openDatabase({ dir });
  workers = new FieldStatisticsWorkers({ size: 2 });
}, 60_000);

afterAll(async () => {
  await workers?.close();
  await db?.close();
  removeTempDirs();
});

const engine = (store = new FieldStatisticsStore(db.db), threads = workers) => new FieldStatistics({ store, workers: threads, library, parcels: source, chunkParcels: 100, rastersPerTask: 2 });
const count = (where: string) => (db.db.prepare(`SELECT COUNT(*) AS n FROM field_statistics WHERE ${where}`).get() as { n: number }).n;
/** Rows changed through main's connection since it opened. */
const mainChanges = () => (db.db.prepare('SELECT total_changes() AS n').get() as { n: number }).n;

describe('a field statistics run', () => {
  it('computes a grid\'s coverage once and every later run on that grid reads it from swath.db', async () => {
    const first = await engine().run({ setId: 'grid', rasterIds: ['r0'], index: 'B8' });
    expect(first.results).toBe(400);
    const rows = db.db.prepare('SELECT chunk, parcels, data FROM field_coverage ORDER BY chunk').all() as { chunk: number; parcels: number; data: Uint8Array }[];
    expect(rows.map((r) => [r.chunk, r.parcels])).toEqual([[0, 100], [1, 100], [2, 100], [3, 100]]);
    // Keep only each parcel's first pixel in the stored coverage: a run that reads the cache reports one pixel per parcel.
    for (const r of rows) {
      const c = decodeChunk(r.data);
      const cells: number[] = [];
      const starts = [0];
      for (let k = 0; k < c.indices.length; k++) {
        cells.push(c.cells[c.cellStart[k]!]!);
        starts.push(cells.length);
      }
      const one = { ...c, cells: Uint32Array.from(cells), cellStart: Uint32Array.from(starts), weights: Float64Array.from(cells, () => 1) };
      db.db.prepare('UPDATE field_coverage SET data = ? WHERE chunk = ?').run(encodeChunk(one), r.chunk);
    }
    const later = engine(new FieldStatisticsStore(db.db));
    await later.run({ setId: 'grid', rasterIds: ['r1', 'r2', 'r3'], index: 'B8' });
    for (const date of dates.slice(1)) {
      const res = later.results('grid', { index: 'B8', date, limit: 1000 });
      expect(res).toHaveLength(400);
      expect(new Set(res.map((r) => r.validPixels))).toEqual(new Set([1]));
    }
    // The first date was computed with the full coverage: about 73 x 73 m / 100 m² per parcel.
    const full = later.results('grid', { index: 'B8', date: dates[0], limit: 1000 });
    for (const r of full) expect(r.validPixels).toBeCloseTo(53.29, 9);
  }, 60_000);

  it('reports progress up to the total with an ETA, and stores every parcel x date result', async () => {
    const seen: { done: number; total: number; etaMs: number | null }[] = [];
    const out = await engine().run({ setId: 'grid', index: '[B8_B4]', rule: 'centre' }, { onProgress: (p) => seen.push(p) });
    expect(out.results).toBe(1600);
    expect(seen[0]).toEqual({ done: 0, total: 1600, etaMs: null });
    expect(seen.at(-1)).toMatchObject({ done: 1600, total: 1600, etaMs: 0 });
    expect(seen.some((p) => p.done > 0 && p.done < 1600 && typeof p.etaMs === 'number')).toBe(true);
    expect(engine().results('grid', { index: '[B8_B4]', rule: 'centre', limit: 100_000 })).toHaveLength(1600);
  }, 60_000);

  it('counts every result when the writes of its lanes interleave (each write takes turns of the loop, as a large one does)', async () => {
    class TurningWorkers extends FieldStatisticsWorkers {
      override async write(...a: Parameters<FieldStatisticsWorkers['write']>): Promise<number> {
        await new Promise<void>((resolve) => setImmediate(resolve));
        const n = await super.write(...a);
        await new Promise<void>((resolve) => setImmediate(resolve));
        return n;
      }
    }
    const turning = new TurningWorkers({ size: 2 });
    try {
      const out = await engine(undefined, turning).run({ setId: 'grid', index: 'B4', rule: 'centre' });
      expect(out.results).toBe(1600);
    } finally {
      await turning.close();
    }
    expect(engine().results('grid', { index: 'B4', rule: 'centre', limit: 100_000 })).toHaveLength(1600);
  }, 60_000);

  it('stores results and coverage through the writer thread\'s connection: main\'s connection writes no row of a run', async () => {
    const before = mainChanges();
    const out = await engine().run({ setId: 'grid', index: 'B8', rule: 'touched' });
    expect(out.results).toBe(1600);
    expect(count("index_label = 'B8' AND rule = 'touched'")).toBe(1600);
    expect(db.db.prepare("SELECT COUNT(*) AS n FROM field_coverage WHERE set_id = 'grid' AND rule = 'touched'").get()).toEqual({ n: 4 });
    expect(mainChanges()).toBe(before);
  }, 60_000);

  it('stops at Cancel with an AbortError once its writes have ended; run again, it stores every row once', async () => {
    const stop = new AbortController();
    const run = engine().run({ setId: 'grid', index: 'B4', rule: 'touched' }, { signal: stop.signal, onProgress: (p) => { if (p.done > 0) stop.abort(); } });
    await expect(run).rejects.toMatchObject({ name: 'AbortError' });
    const stored = count("index_label = 'B4' AND rule = 'touched'");
    expect(stored).toBeLessThan(1600);
    // A write queued now runs after any the cancelled run left: none is, the count stays.
    await workers.write({ op: 'coverage', dbFile: db.file, setId: 'probe', gridKey: 'g', rule: 'touched', chunk: 0, parcels: 0, bytes: 0, blob: new Uint8Array(1) }, new AbortController().signal);
    expect(count("index_label = 'B4' AND rule = 'touched'")).toBe(stored);
    db.db.exec("DELETE FROM field_coverage WHERE set_id = 'probe'");
    const again = await engine().run({ setId: 'grid', index: 'B4', rule: 'touched' });
    expect(again.results).toBe(1600);
    expect(count("index_label = 'B4' AND rule = 'touched'")).toBe(1600);
    const rows = engine().results('grid', { index: 'B4', rule: 'touched', limit: 100_000 });
    expect(new Set(rows.map((r) => `${r.parcelIndex} ${r.rasterId}`)).size).toBe(1600);
  }, 60_000);

  it.runIf(process.platform === 'linux')('computes at background priority: its statistics threads have a nice value of 10, main and the writer keep theirs', async () => {
    // Each thread's nice value: field 19 of /proc/<pid>/task/<tid>/stat, counted after the name's closing parenthesis.
    const niceOf = (tid: string) => {
      const stat = readFileSync(`/proc/${process.pid}/task/${tid}/stat`, 'utf8');
      return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
    };
    const names = () => new Map(readdirSync(`/proc/${process.pid}/task`).map((tid) => [tid, readFileSync(`/proc/${process.pid}/task/${tid}/comm`, 'utf8').trim()]));
    const before = new Set(readdirSync(`/proc/${process.pid}/task`));
    const fresh = new FieldStatisticsWorkers({ size: 2 });
    try {
      await engine(new FieldStatisticsStore(db.db), fresh).run({ setId: 'grid', index: 'ndvi', rule: 'centre' });
      const started = [...names()].filter(([tid]) => !before.has(tid));
      const nice = started.map(([tid, name]) => ({ name, nice: niceOf(tid) }));
      // Two statistics threads lowered; the writer thread (and the pool's others) not.
      expect(nice.filter((t) => t.nice === BACKGROUND_NICE), JSON.stringify(nice)).toHaveLength(2);
      expect(nice.some((t) => t.nice === 0)).toBe(true);
      expect(niceOf(String(process.pid))).toBe(0);
    } finally {
      await fresh.close();
    }
  });

  it('refuses a request naming the field and the reason', async () => {
    await expect(engine().run({ setId: 'nope', index: 'B8' })).rejects.toMatchObject({ kind: 'not-found' });
    await expect(engine().run({ setId: 'grid', index: 'B8,B4' })).rejects.toMatchObject({ kind: 'validation', fields: { index: [expect.any(String)] } });
    await expect(engine().run({ setId: 'grid', index: 'B8', rule: 'nearest' as never })).rejects.toMatchObject({ kind: 'validation', fields: { rule: [expect.any(String)] } });
    await expect(engine().run({ setId: 'grid', index: 'B8', minValidShare: 1.5 })).rejects.toMatchObject({ kind: 'validation', fields: { minValidShare: [expect.any(String)] } });
    const missing = await engine().run({ setId: 'grid', index: 'B8', rasterIds: ['r0', 'gone'] });
    expect(missing.skippedRasters).toEqual([{ rasterId: 'gone', reason: 'is not in the library' }]);
  }, 60_000);

  it('reads parcels through the ParcelStore (a GeoJSON set in EPSG:4326), and a deleted set\'s results and coverage are purged', async () => {
    const file = path.join(dir, 'parcels.geojson');
    const features = parcels.slice(0, 40).map((p, i) => ({ type: 'Feature', properties: { fid: `P${i}` }, geometry: { type: 'Polygon', coordinates: p[0]!.map((ring) => ring.map(([x, y]) => lonLat(x!, y!))) } }));
    writeFileSync(file, JSON.stringify({ type: 'FeatureCollection', features }));
    const store = new ParcelStore({ db: db.db, file: db.file });
    try {
      const { set } = await store.import(file, { idColumn: 'fid' });
      expect(set.count).toBe(40);
      const results = new FieldStatisticsStore(db.db);
      const stats = new FieldStatistics({ store: results, workers, library, parcels: store });
      const out = await stats.run({ setId: set.id, index: '[B8_B4]', rule: 'centre' });
      expect(out.results).toBe(160);
      // The same squares given in UTM (the set "grid", above): the same pixels and values.
      const utm = stats.results('grid', { index: '[B8_B4]', rule: 'centre', limit: 100_000 }).filter((r) => r.parcelIndex < 40);
      const wgs = stats.results(set.id, { index: '[B8_B4]', rule: 'centre', limit: 100_000 });
      expect(wgs.map((r) => [r.parcelIndex, r.date, r.validPixels])).toEqual(utm.map((r) => [r.parcelIndex, r.date, r.validPixels]));
      wgs.forEach((r, i) => expect(Math.abs(r.mean! - utm[i]!.mean!)).toBeLessThan(1e-12));
      expect(store.delete(set.id)).toBe(true);
      await results.purgeDeletedSets();
      expect(stats.results(set.id, { index: '[B8_B4]', rule: 'centre' })).toEqual([]);
      expect(db.db.prepare('SELECT COUNT(*) AS n FROM field_coverage WHERE set_id = ?').get(set.id)).toEqual({ n: 0 });
    } finally {
      await store.close();
    }
  }, 60_000);
});
