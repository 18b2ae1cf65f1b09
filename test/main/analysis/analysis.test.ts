import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AnalysisService, AnalysisWorkers, CHANGE_NODATA } from '../../../main/analysis';
import { changeGrid } from '../../../main/analysis/compute';
import { parseIndexExpression } from '../../../main/analysis/expression';
import { LibraryCatalog } from '../../../main/library';
import { cogReport } from '../geotiff/cog-validator';
import { seriesCsv } from '../../../renderer/src/features/analysis/model/series-csv';
import { gdalBand, gdalInfo, gdalLocation, gdalValues, referenceStats } from './gdal-reference';
import { TEST_AOI, writeTestRaster } from './rasters';

// Time series and change layers computed in the worker threads from simulator-written files,
// checked against what GDAL's own tools read from the same files.

const signal = () => new AbortController().signal;

let dir: string;
let library: LibraryCatalog;
let workers: AnalysisWorkers;
let service: AnalysisService;
const files: Record<string, string> = {};
const ids: Record<string, string> = {};

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'swath-analysis-'));
  for (const date of ['2026-04-10', '2026-06-15', '2026-08-20']) files[date] = await writeTestRaster(dir, date, ['B4', 'B8']);
  // The service's own index band, as UINT8 (index = (DN - 128) / 127).
  files.index = await writeTestRaster(dir, '2026-07-01', ['[B8_B4]'], 'UINT8', 40);
  library = await LibraryCatalog.open({ dir });
  for (const [k, f] of Object.entries(files)) ids[k] = (await library.importFile(f, signal())).id;
  workers = new AnalysisWorkers({ size: 2 });
  service = new AnalysisService({ library, workers, downloadDir: () => dir });
});

afterAll(async () => {
  await workers?.close();
  await library?.flush();
  rmSync(dir, { recursive: true, force: true });
});

/** Lon/lat of the centre of pixel (col, row) of a UTM 33N file, by GDAL (gdaltransform). */
function pixelCentreLonLat(file: string, col: number, row: number): [number, number] {
  const gt = gdalInfo(file).geoTransform;
  const x = gt[0]! + (col + 0.5) * gt[1]!;
  const y = gt[3]! + (row + 0.5) * gt[5]!;
  const out = execFileSync('gdaltransform', ['-s_srs', 'EPSG:32633', '-t_srs', 'EPSG:4326', '-output_xy'], { input: `${x} ${y}\n`, encoding: 'utf8' });
  const [lon, lat] = out.trim().split(/\s+/).map(Number);
  return [lon!, lat!];
}

describe('time series over an area', () => {
  it('gives per date the mean, median, p10-p90 and valid count GDAL\'s numbers give (whole files)', async () => {
    // An area larger than the files: every pixel of each file is in.
    const big = 'POLYGON((13.35 52.45, 13.5 52.45, 13.5 52.56, 13.35 52.56, 13.35 52.45))';
    const s = await service.series({ expression: 'ndvi', target: { kind: 'area', aoi: { wkt: big } } }, signal());
    expect(s.kind).toBe('area');
    expect(s.unit).toMatch(/index/);
    expect(s.points.map((p) => p.date)).toEqual(['2026-04-10', '2026-06-15', '2026-07-01', '2026-08-20']);
    expect(s.skipped).toEqual([]);
    for (const p of s.points) {
      const file = library.get(p.id)!.path;
      const values = p.date === '2026-07-01' ? gdalValues(file, { band: '[B8_B4]' }) : gdalValues(file, { a: 'B8', b: 'B4' });
      const ref = referenceStats(values);
      const info = gdalInfo(file);
      expect(p.pixels).toBe(info.size[0] * info.size[1]);
      expect(p.valid).toBe(ref.count);
      expect(p.valid).toBeGreaterThan(100);
      expect(p.valid).toBeLessThan(p.pixels!); // the files have nodata outside their AOI's corners
      for (const k of ['mean', 'median', 'p10', 'p90'] as const) expect(p[k]).toBeCloseTo(ref[k], 9);
    }
    // Vegetation changes with the season in the simulated landscape: the dates differ.
    expect(new Set(s.points.map((p) => p.mean!.toFixed(4))).size).toBe(4);
  });

  it('counts only the pixels that intersect a smaller area (a band, reflectance)', async () => {
    const file = files['2026-06-15']!;
    // Corners at pixel centres: columns 10..30 and rows 5..25 intersect the area.
    const corners = [[10, 5], [30, 5], [30, 25], [10, 25], [10, 5]].map(([c, r]) => pixelCentreLonLat(file, c!, r!));
    const s = await service.series({ expression: 'B8', target: { kind: 'area', aoi: { geojson: { type: 'Polygon', coordinates: [corners] } } }, ids: [ids['2026-06-15']!] }, signal());
    expect(s.unit).toBe('reflectance');
    const p = s.points[0]!;
    expect(p.pixels).toBe(21 * 21);
    const g = gdalValues(file, { band: 'B8' });
    const width = gdalInfo(file).size[0];
    const inside: number[] = [];
    for (let r = 5; r <= 25; r++) for (let c = 10; c <= 30; c++) inside.push(g[r * width + c]!);
    const ref = referenceStats(inside);
    expect(p.valid).toBe(ref.count);
    for (const k of ['mean', 'median', 'p10', 'p90'] as const) expect(p[k]).toBeCloseTo(ref[k], 9);
  });

  it('lists a raster that lacks the bands as skipped, with why', async () => {
    const s = await service.series({ expression: '[B11_B8]', target: { kind: 'area', aoi: { geojson: TEST_AOI } } }, signal());
    expect(s.points).toEqual([]);
    expect(s.skipped).toHaveLength(4);
    expect(s.skipped[0]!.reason).toMatch(/has neither band \[B11_B8\] nor both B11 and B8/);
  });
});

describe('time series at a point', () => {
  it('gives the value of the pixel gdallocationinfo finds, and names it', async () => {
    const file = files['2026-08-20']!;
    const [lon, lat] = pixelCentreLonLat(file, 33, 17);
    const s = await service.series({ expression: 'ndvi', target: { kind: 'point', lon, lat } }, signal());
    expect(s.points).toHaveLength(4);
    for (const p of s.points) {
      const f = library.get(p.id)!.path;
      const info = gdalInfo(f);
      const bandNo = (name: string) => info.bands.find((b) => b.description === name)!;
      if (p.date === '2026-07-01') {
        const b = bandNo('[B8_B4]');
        const loc = gdalLocation(f, lon, lat, [b.band]);
        expect([p.pixel!.col, p.pixel!.row]).toEqual([loc.col, loc.row]);
        expect(p.value).toBeCloseTo(loc.values[0]! * b.scale! + b.offset!, 12);
      } else {
        const b8 = bandNo('B8');
        const b4 = bandNo('B4');
        const loc = gdalLocation(f, lon, lat, [b8.band, b4.band]);
        expect([p.pixel!.col, p.pixel!.row]).toEqual([loc.col, loc.row]);
        const [v8, v4] = [loc.values[0]! * b8.scale!, loc.values[1]! * b4.scale!];
        expect(p.value).toBeCloseTo((v8 - v4) / (v8 + v4), 12);
      }
    }
  });
});

/** Why the CSV check with Debian's Python and pandas cannot run here, or null. */
function pandasMissing(): string | null {
  try {
    execFileSync('/usr/bin/python3', ['-c', 'import csv, pandas'], { stdio: 'ignore' });
    return null;
  } catch {
    return '/usr/bin/python3 with pandas (apt-get install python3-pandas) is not installed';
  }
}
const noPandas = pandasMissing();
if (noPandas) console.log(`Skipping the CSV check with Python's csv module and pandas: ${noPandas}.`);

// What the analyst does with Export CSV: open the file in Python as is.
const READ_CSV_PY = `
import csv, json, sys
import pandas as pd
path = sys.argv[1]
with open(path, newline="") as f:
    rows = list(csv.DictReader(f))
df = pd.read_csv(path)
print(json.dumps({
    "csv_fields": list(rows[0].keys()) if rows else [],
    "csv_rows": rows,
    "pd_columns": [str(c) for c in df.columns],
    "pd_dtypes": {str(c): str(t) for c, t in df.dtypes.items()},
    "pd_records": json.loads(df.to_json(orient="records", double_precision=15)),
}))
`;

describe.skipIf(noPandas)('the exported time-series CSV', () => {
  it('reads with Python\'s csv module and pandas as is: the header first, flat column names, the series\' values', async () => {
    const big = 'POLYGON((13.35 52.45, 13.5 52.45, 13.5 52.56, 13.35 52.56, 13.35 52.45))';
    const area = await service.series({ expression: 'ndvi', target: { kind: 'area', aoi: { wkt: big } } }, signal());
    const file = path.join(dir, 'series-area.csv');
    writeFileSync(file, seriesCsv(area));
    const read = JSON.parse(execFileSync('/usr/bin/python3', ['-c', READ_CSV_PY, file], { encoding: 'utf8' })) as {
      csv_fields: string[]; csv_rows: Record<string, string>[]; pd_columns: string[]; pd_dtypes: Record<string, string>; pd_records: Record<string, number | string | null>[];
    };
    const columns = ['date_utc', 'file', 'epsg', 'mean_ndvi [unitless]', 'median_ndvi [unitless]', 'p10_ndvi [unitless]', 'p90_ndvi [unitless]', 'valid_pixels', 'pixels_in_area'];
    expect(read.csv_fields).toEqual(columns);
    expect(read.pd_columns).toEqual(columns);
    expect(read.pd_dtypes).toMatchObject({ epsg: 'int64', 'mean_ndvi [unitless]': 'float64', valid_pixels: 'int64', pixels_in_area: 'int64' });
    expect(read.csv_rows).toHaveLength(area.points.length);
    expect(read.pd_records).toHaveLength(area.points.length);
    area.points.forEach((p, i) => {
      const row = read.csv_rows[i]!;
      expect(row.date_utc).toBe(p.date);
      expect(row.file).toBe(p.name);
      expect(Number(row['mean_ndvi [unitless]'])).toBe(p.mean); // full precision survives the text
      const rec = read.pd_records[i]!;
      expect(rec.date_utc).toBe(p.date);
      expect(rec.epsg).toBe(32633);
      expect(rec['median_ndvi [unitless]']).toBeCloseTo(p.median!, 12);
      expect(rec['p10_ndvi [unitless]']).toBeCloseTo(p.p10!, 12);
      expect(rec['p90_ndvi [unitless]']).toBeCloseTo(p.p90!, 12);
      expect(rec.valid_pixels).toBe(p.valid);
      expect(rec.pixels_in_area).toBe(p.pixels);
    });

    const file8 = files['2026-08-20']!;
    const [lon, lat] = pixelCentreLonLat(file8, 33, 17);
    const point = await service.series({ expression: 'B8', target: { kind: 'point', lon, lat }, ids: [ids['2026-08-20']!] }, signal());
    const pfile = path.join(dir, 'series-point.csv');
    writeFileSync(pfile, seriesCsv(point));
    const pread = JSON.parse(execFileSync('/usr/bin/python3', ['-c', READ_CSV_PY, pfile], { encoding: 'utf8' })) as typeof read;
    const pcols = ['date_utc', 'file', 'epsg', 'value_B8 [reflectance]', 'pixel_col', 'pixel_row', 'pixel_centre_x', 'pixel_centre_y'];
    expect(pread.csv_fields).toEqual(pcols);
    expect(pread.pd_columns).toEqual(pcols);
    expect(pread.pd_records).toEqual([{
      date_utc: '2026-08-20', file: point.points[0]!.name, epsg: 32633, 'value_B8 [reflectance]': point.points[0]!.value,
      pixel_col: 33, pixel_row: 17, pixel_centre_x: point.points[0]!.pixel!.x, pixel_centre_y: point.points[0]!.pixel!.y,
    }]);
  });
});

describe('cancellation', () => {
  it('rejects a cancelled series with an AbortError, and answers the next one', async () => {
    const ac = new AbortController();
    const run = service.series({ expression: 'ndvi', target: { kind: 'area', aoi: { geojson: TEST_AOI } } }, ac.signal);
    ac.abort();
    await expect(run).rejects.toMatchObject({ name: 'AbortError' });
    // The pool still works afterwards (a fresh thread).
    const s = await service.series({ expression: 'B4', target: { kind: 'area', aoi: { geojson: TEST_AOI } }, ids: [ids['2026-04-10']!] }, signal());
    expect(s.points).toHaveLength(1);
  });
});

describe('the worker pool', () => {
  it('terminates the thread of an aborted running task, drops an aborted queued one, and keeps serving', async () => {
    const pool = new AnalysisWorkers({ size: 1 });
    try {
      const task = { op: 'area' as const, file: files['2026-06-15']!, spec: { kind: 'band' as const, band: 'B4', label: 'B4' }, aoi: TEST_AOI };
      const running = new AbortController();
      const queued = new AbortController();
      const first = pool.run(task, running.signal);
      const second = pool.run(task, queued.signal);
      const third = pool.run<{ pixels: number }>(task, signal());
      expect(pool.threadCount).toBe(1);
      queued.abort();
      await expect(second).rejects.toMatchObject({ name: 'AbortError' });
      running.abort();
      await expect(first).rejects.toMatchObject({ name: 'AbortError' });
      // The third task got a fresh thread once the first was ended.
      expect((await third).pixels).toBeGreaterThan(0);
      expect(pool.threadCount).toBe(1);
    } finally {
      await pool.close();
    }
  });
});

describe('change layer', () => {
  it('is B minus A on A\'s grid, saved as a FLOAT32 GeoTIFF GDAL reads with EPSG, geotransform and nodata', async () => {
    const a = files['2026-04-10']!;
    const b = files['2026-08-20']!;
    const c = await service.change({ expression: 'ndvi', fromId: ids['2026-04-10']!, toId: ids['2026-08-20']! }, signal());
    const infoA = gdalInfo(a);
    expect(c.grid).toMatchObject({ epsg: 32633, width: infoA.size[0], height: infoA.size[1], originX: infoA.geoTransform[0], originY: infoA.geoTransform[3], pixelSize: infoA.geoTransform[1] });
    const va = gdalValues(a, { a: 'B8', b: 'B4' });
    const vb = gdalValues(b, { a: 'B8', b: 'B4' }); // same grid: nearest is the same pixel
    const diff = va.map((x, i) => vb[i]! - x);
    const ref = referenceStats(diff);
    expect(c.stats.valid).toBe(ref.count);
    expect(c.stats.mean!).toBeCloseTo(ref.mean, 6); // float32 values
    expect(c.histogram.counts.reduce((s, n) => s + n, 0)).toBe(ref.count);
    expect(c.display.width).toBe(c.grid.width); // small: no decimation
    const shown = new Float32Array(Buffer.from(c.display.float32, 'base64').buffer.slice(0));
    expect(shown).toHaveLength(c.grid.width * c.grid.height);

    const saved = await service.saveChange(c.id, signal());
    expect(library.get(saved.entryId)!.path).toBe(saved.file);
    const info = gdalInfo(saved.file);
    expect(info.stac?.['proj:epsg']).toBe(32633);
    expect(info.geoTransform).toEqual(infoA.geoTransform);
    expect(info.bands).toHaveLength(1);
    expect(info.bands[0]).toMatchObject({ type: 'Float32', noDataValue: CHANGE_NODATA });
    // DEFLATE with the floating-point predictor, and still a COG by GDAL's validator.
    expect(execFileSync('gdalinfo', [saved.file], { encoding: 'utf8' })).toMatch(/COMPRESSION=DEFLATE[\s\S]*PREDICTOR=3/);
    const cog = cogReport(saved.file);
    expect(cog.valid, cog.output).toBe(true);
    const back = gdalBand(saved.file, 1);
    let compared = 0;
    back.values.forEach((v, i) => {
      if (Number.isNaN(diff[i]!)) expect(v).toBe(CHANGE_NODATA);
      else {
        expect(v).toBeCloseTo(diff[i]!, 5);
        compared++;
      }
    });
    expect(compared).toBe(ref.count);
  });

  it('samples B at the nearest pixel when the grids differ (40 m onto 20 m)', async () => {
    const c = await service.change({ expression: 'ndvi', fromId: ids['2026-06-15']!, toId: ids.index!, aoi: { geojson: TEST_AOI } }, signal());
    const infoB = gdalInfo(files.index!);
    const va = gdalValues(files['2026-06-15']!, { a: 'B8', b: 'B4' });
    const vb = gdalValues(files.index!, { band: '[B8_B4]' });
    const gA = gdalInfo(files['2026-06-15']!).geoTransform;
    const gB = infoB.geoTransform;
    const wA = gdalInfo(files['2026-06-15']!).size[0];
    const shown = new Float32Array(Buffer.from(c.display.float32, 'base64').buffer.slice(0));
    // Every pixel of the layer against the nearest 40 m pixel under its centre, computed from GDAL's numbers.
    let checked = 0;
    for (let r = 0; r < c.grid.height; r++) for (let col = 0; col < c.grid.width; col++) {
      const ax = Math.round((c.grid.originX - gA[0]!) / gA[1]!) + col;
      const ay = Math.round((gA[3]! - c.grid.originY) / gA[1]!) + r;
      const x = gA[0]! + (ax + 0.5) * gA[1]!;
      const y = gA[3]! + (ay + 0.5) * gA[5]!;
      const bc = Math.floor((x - gB[0]!) / gB[1]!);
      const br = Math.floor((y - gB[3]!) / gB[5]!);
      const inB = bc >= 0 && br >= 0 && bc < infoB.size[0] && br < infoB.size[1];
      const expected = inB ? vb[br * infoB.size[0] + bc]! - va[ay * wA + ax]! : NaN;
      const got = shown[r * c.grid.width + col]!;
      if (Number.isNaN(expected) || Number.isNaN(got)) continue;
      expect(got).toBeCloseTo(expected, 5);
      checked++;
    }
    expect(checked).toBeGreaterThan(1000);
  });
});

describe('change layer bounds', () => {
  it('refuses a second raster whose window under the area is past the pixel cap (much finer than the first), naming it', async () => {
    // A at 20 m (about 104 x 76 px); B over the same area at 2 m (about 1034 x 745 px).
    const fine = await writeTestRaster(dir, '2026-09-01', ['B4'], 'UINT8', 2);
    const spec = parseIndexExpression('B4');
    if ('error' in spec) throw new Error(spec.error);
    await expect(changeGrid(files['2026-06-15']!, fine, spec, null, signal(), 100_000)).rejects.toThrow(/second raster is read over \d+ of its pixels.*at most 100000/);
    // Under the cap, the same pair gives a layer on A's grid.
    const g = await changeGrid(files['2026-06-15']!, fine, spec, null, signal(), 1_000_000);
    expect(g.pixelSize).toBe(20);
    expect(g.values.some(Number.isFinite)).toBe(true);
  });
});
