import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { promisify } from 'node:util';
import proj4 from 'proj4';
import { FieldStatistics, FieldStatisticsStore, FieldStatisticsWorkers, type PixelRule } from '../../main/fields/stats/index.js';
import { ParcelStore } from '../../main/fields/parcels.js';
import { openDatabase } from '../../main/shared/database.js';
import { entryFor, libraryOf, NODATA, writeBands, type TestGrid } from '../main/fields/stats/support.js';
import { interleaved, median, MIN_PAIRS, ratioFigure, spread, type Figure } from './method.js';

const execFileP = promisify(execFile);
/** The reference computes every 10th parcel: its results per second do not depend on how many it takes. */
const REFERENCE_EVERY = 10;

/**
 * `fields-stats-per-second`: parcel x date results per second of a whole statistics run (NDVI,
 * centre rule) of 10,000 parcels over 24 dates of 10 m composites of 50 x 50 km (5000 x 5000 px,
 * bands B8 and B4, INT16, DEFLATE COG written by main's writer, cached under the temp dir and
 * written once), the parcels imported from GeoJSON (EPSG:4326) and projected to the rasters' UTM
 * grid; each measured run starts with an empty coverage cache, so it computes each chunk's coverage
 * once and reuses it for the other 23 dates. `fields-vs-rasterio-ratio`: seconds per result of that
 * run over seconds per result of a rasterio + numpy script reading each parcel's window (every
 * 10th of the same parcels, in UTM, over the first 2 dates: 2,000 results at full size, so the
 * bench runs in minutes; its interpreter start not counted), interleaved pairs.
 * `fields-main-lag-ms`: main's worst event-loop delay during our runs. `fields-stats-exact-per-second`:
 * one run under the exact rule.
 * Sizes: SWATH_BENCH_FIELDS_PARCELS (10000), SWATH_BENCH_FIELDS_DATES (24), SWATH_BENCH_FIELDS_PX (5000);
 * SWATH_BENCH_FIELDS_WORKERS: the statistics threads (the app's default when unset: one core is left to main and the window).
 */
export async function benchFields(): Promise<Figure[]> {
  const parcelCount = Number(process.env.SWATH_BENCH_FIELDS_PARCELS ?? 10_000);
  const dateCount = Number(process.env.SWATH_BENCH_FIELDS_DATES ?? 24);
  const px = Number(process.env.SWATH_BENCH_FIELDS_PX ?? 5000);
  const grid: TestGrid = { epsg: 32633, originX: 500_000, originY: 5_800_000, pixelSize: 10, width: px, height: px };
  const utm = proj4('+proj=utm +zone=33 +datum=WGS84 +units=m +no_defs', 'EPSG:4326');
  const lonLat = (x: number, y: number) => utm.forward([x, y]) as [number, number];

  const cache = path.join(os.tmpdir(), 'swath-bench-fields', `${px}px-${dateCount}-v1`);
  mkdirSync(cache, { recursive: true });
  const dates = Array.from({ length: dateCount }, (_, k) => new Date(Date.UTC(2026, 3, 1) + k * 10 * 86_400_000).toISOString().slice(0, 10));
  const files: string[] = [];
  for (const [k, date] of dates.entries()) {
    const file = path.join(cache, `${date}.tif`);
    if (!existsSync(file)) await writeBands(file, grid, date, composite(k));
    files.push(file);
  }
  const extent = px * grid.pixelSize;
  const bounds = ((): [number, number, number, number] => {
    const c = [lonLat(grid.originX, grid.originY), lonLat(grid.originX + extent, grid.originY), lonLat(grid.originX, grid.originY - extent), lonLat(grid.originX + extent, grid.originY - extent)];
    return [Math.min(...c.map((p) => p[0])), Math.min(...c.map((p) => p[1])), Math.max(...c.map((p) => p[0])), Math.max(...c.map((p) => p[1]))];
  })();
  const library = libraryOf(files.map((f, k) => entryFor(`r${k}`, f, dates[k]!, grid, bounds)));

  const work = mkdtempSync(path.join(os.tmpdir(), 'swath-bench-fields-run-'));
  const db = await openDatabase({ dir: work, checkpointInWorker: true });
  const parcels = new ParcelStore({ db: db.db, file: db.file });
  const threads = process.env.SWATH_BENCH_FIELDS_WORKERS;
  const workers = new FieldStatisticsWorkers(threads ? { size: Number(threads) } : {});
  try {
    // Parcels: one irregular quadrilateral of about 60 % of each cell of a square grid over the area.
    const side = Math.ceil(Math.sqrt(parcelCount));
    const cell = extent / side;
    const rings: [number, number][][] = [];
    for (let i = 0; rings.length < parcelCount; i++) {
      const x = grid.originX + (i % side) * cell + 0.2 * cell;
      const y = grid.originY - Math.floor(i / side) * cell - 0.2 * cell;
      const j = (k: number) => (((i * 7919 + k * 104729) % 97) / 97 - 0.5) * 0.15 * cell;
      rings.push([[x + j(1), y + j(2)], [x + 0.6 * cell + j(3), y + j(4)], [x + 0.6 * cell + j(5), y - 0.6 * cell + j(6)], [x + j(7), y - 0.6 * cell + j(8)], [x + j(1), y + j(2)]]);
    }
    const geojson = path.join(work, 'parcels.geojson');
    writeFileSync(geojson, JSON.stringify({ type: 'FeatureCollection', features: rings.map((r, i) => ({ type: 'Feature', properties: { fid: `F${i}` }, geometry: { type: 'Polygon', coordinates: [r.map(([x, y]) => lonLat(x, y))] } })) }));
    const { set } = await parcels.import(geojson, { idColumn: 'fid' });
    const utmParcels = path.join(work, 'parcels-utm.json');
    const referenceParcels = rings.filter((_, i) => i % REFERENCE_EVERY === 0);
    writeFileSync(utmParcels, JSON.stringify(referenceParcels.map((r) => [r])));

    // One histogram per run: a histogram enabled again after a pause counts the pause as one delay.
    let lagMax = 0;
    const rates: number[] = [];
    const runOnce = async (rule: PixelRule): Promise<number> => {
      db.db.exec('DELETE FROM field_coverage; DELETE FROM field_statistics;');
      const stats = new FieldStatistics({ store: new FieldStatisticsStore(db.db), workers, library, parcels });
      const lag = monitorEventLoopDelay({ resolution: 5 });
      lag.enable();
      const t0 = performance.now();
      const out = await stats.run({ setId: set.id, index: 'ndvi', rule });
      const ms = performance.now() - t0;
      lag.disable();
      lagMax = Math.max(lagMax, lag.max / 1e6);
      if (out.results !== parcelCount * dateCount) throw new Error(`the run stored ${out.results} results, not ${parcelCount * dateCount}`);
      return ms;
    };
    const ours = async (i: number): Promise<number> => {
      const ms = await runOnce('centre');
      if (i >= 0) rates.push((parcelCount * dateCount) / (ms / 1000));
      return ms / (parcelCount * dateCount);
    };
    const reference = async (): Promise<number> => {
      const { stdout } = await execFileP('/usr/bin/python3', [path.join(import.meta.dirname, 'fields-reference.py'), utmParcels, ...files.slice(0, 2)], { maxBuffer: 1 << 20 });
      const r = JSON.parse(stdout) as { results: number; seconds: number };
      if (r.results !== referenceParcels.length * 2) throw new Error(`the reference computed ${r.results} results, not ${referenceParcels.length * 2}`);
      return (r.seconds * 1000) / r.results;
    };
    const pairs = await interleaved(MIN_PAIRS, ours, reference);
    const exactMs = await runOnce('exact');
    const sizes = `${parcelCount} parcels x ${dateCount} dates of ${px} x ${px} px`;
    return [
      { name: 'fields-stats-per-second', value: median(rates), unit: 'results/s', note: `${sizes}, NDVI, centre rule, ${workers.size} worker thread(s)${threads ? ' (SWATH_BENCH_FIELDS_WORKERS)' : ' (the app\'s default)'}, coverage computed once per chunk and grid in each run; runs ${spread(rates, 0)}` },
      { name: 'fields-stats-exact-per-second', value: (parcelCount * dateCount) / (exactMs / 1000), unit: 'results/s', note: `${sizes}, NDVI, exact rule, one run` },
      ratioFigure('fields-vs-rasterio-ratio', pairs, { ours: 'Swath', reference: 'rasterio + numpy', unit: 'ms per result', digits: 3 },
        `seconds per parcel x date result; ours the whole job (${sizes}), the reference every ${REFERENCE_EVERY}th parcel (${referenceParcels.length}) over the first 2 dates, each parcel's window read; goal <= 0.05`),
      { name: 'fields-main-lag-ms', value: lagMax, unit: 'ms', note: 'main\'s worst event-loop delay during our runs (the statistics threads read and compute, the writer thread stores the results); goal <= 50' },
    ];
  } finally {
    await workers.close();
    await parcels.close();
    await db.close();
    rmSync(work, { recursive: true, force: true });
  }
}

/** A date's composite: smooth fields of vegetation changing with the date, sensor noise, and a cloud patch left as nodata. */
function composite(k: number) {
  const cx = 500 + ((k * 1777) % 4000);
  const cy = 500 + ((k * 2903) % 4000);
  return (band: number, row: number, col: number): number => {
    if ((row - cy) ** 2 + (col - cx) ** 2 < 150 ** 2) return NODATA;
    const veg = 0.5 + 0.4 * Math.sin(col / 97 + k / 5) * Math.cos(row / 83 - k / 7);
    const noise = (((row * 73856093) ^ (col * 19349663) ^ (k * 83492791) ^ band) >>> 0) % 61 - 30;
    return Math.round(band === 0 ? 2500 + 1500 * veg + noise : 900 - 500 * veg + noise);
  };
}
