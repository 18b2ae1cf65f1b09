import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterAll, describe, expect, it } from 'vitest';
import { writeLongCsv } from '../../../../main/fields/export/csv';
import { writeGeoPackage } from '../../../../main/fields/export/gpkg';
import { plainDecimal, type ExportSource } from '../../../../main/fields/export/rows';
import { writeNumberedFile } from '../../../../main/shared/files';
import type { FieldStatistic, Parcel, ParcelSet } from '../../../../main/fields/ports';

const PYTHON = '/usr/bin/python3';
const HAS_PANDAS = spawnSync(PYTHON, ['-c', 'import pandas'], { encoding: 'utf8' }).status === 0;
const HAS_OGRINFO = spawnSync('ogrinfo', ['--version'], { encoding: 'utf8' }).status === 0;
if (!HAS_PANDAS) console.warn('export.test: /usr/bin/python3 with pandas is missing; the pandas checks are skipped.');
if (!HAS_OGRINFO) console.warn('export.test: ogrinfo (gdal-bin) is missing; the GeoPackage checks are skipped.');

const dir = mkdtempSync(path.join(os.tmpdir(), 'swath-fields-export-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const set: ParcelSet = {
  id: 'set-1', name: 'Farms, "north"', sourceFile: '/x/farms.gpkg', format: 'gpkg', layer: 'farms',
  crs: { epsg: 32633, proj4: '+proj=utm +zone=33 +datum=WGS84 +units=m +no_defs', wkt: null },
  idColumn: 'fid', nameColumn: 'name', count: 3, skipped: 0, bbox4326: [15, 50, 15.1, 50.1], createdAt: '2026-01-01T00:00:00.000Z',
};
const square = (x: number, y: number, s: number): [number, number][] => [[x, y], [x + s, y], [x + s, y + s], [x, y + s], [x, y]];
const parcels: Parcel[] = [
  { setId: 'set-1', index: 0, id: 'A-1', name: 'Field, one', geometry: { type: 'Polygon', coordinates: [square(500000, 5540000, 100)] }, bbox4326: [15, 50, 15, 50] },
  { setId: 'set-1', index: 1, id: 'B-2', name: 'Feld "zwei" é', geometry: { type: 'Polygon', coordinates: [square(500200, 5540000, 100), square(500220, 5540020, 20)] }, bbox4326: [15, 50, 15, 50] },
  { setId: 'set-1', index: 2, id: 'C-3', name: null, geometry: { type: 'MultiPolygon', coordinates: [[square(500400, 5540000, 50)], [square(500500, 5540000, 50)]] }, bbox4326: [15, 50, 15, 50] },
];
const dates = ['2026-05-01', '2026-05-11'];
const stats: FieldStatistic[] = parcels.flatMap((p) => dates.map((date, d) => ({
  setId: 'set-1', parcelIndex: p.index, rasterId: `r-${d}`, date, index: 'ndvi', rule: 'exact' as const,
  mean: p.index === 2 && d === 1 ? null : 0.5 + p.index / 10 - d * 0.2, min: 1e-7, max: 0.9, std: 0.012345678901, median: 0.5, p10: 0.1, p90: 0.9,
  validPixels: 100.25, coveredShare: 1, validShare: p.index === 2 && d === 1 ? 0.1 : 0.95, belowThreshold: p.index === 2 && d === 1,
})));
const source: ExportSource = {
  set,
  parcels: () => [parcels.slice(0, 2), parcels.slice(2)],
  results: (after, limit) => {
    const start = after ? stats.findIndex((s) => s.parcelIndex === after.parcelIndex && s.date === after.date && s.rasterId === after.rasterId) + 1 : 0;
    return stats.slice(start, start + limit);
  },
  rasterName: (id) => `${id}, composite.tif`,
};

describe('plain decimal numbers', () => {
  it('never writes an exponent and reads back as the same double', () => {
    for (const n of [1e-7, -2.5e-12, 1.2345e21, 0.1, 123.456, -0, 5e-324, 1.7976931348623157e308]) {
      const text = plainDecimal(n);
      expect(text).not.toMatch(/e/i);
      expect(Number(text)).toBe(n === 0 ? 0 : n);
    }
    expect(plainDecimal(null)).toBe('');
    expect(plainDecimal(Number.NaN)).toBe('');
  });
});

describe('long CSV', () => {
  it('is read by pandas and csv as is: one row per parcel and date, the right types', async () => {
    const file = await writeNumberedFile(path.join(dir, 'fields-farms-ndvi-exact.csv'), async (part) => {
      expect(await writeLongCsv(part, source)).toBe(6);
    });
    expect(path.basename(file)).toBe('fields-farms-ndvi-exact.csv');
    if (!HAS_PANDAS) return;
    const script = `
import csv, json, sys, pandas as pd
df = pd.read_csv(sys.argv[1], dtype={'parcel_id': str})
rows = list(csv.DictReader(open(sys.argv[1], newline='', encoding='utf-8')))
print(json.dumps({'columns': list(df.columns), 'rows': len(df), 'dtypes': {c: str(t) for c, t in df.dtypes.items()},
  'names': [None if pd.isna(v) else v for v in df['name']], 'ids': list(df['parcel_id']), 'raster': rows[0]['raster'],
  'mean_null': int(df['mean'].isna().sum()), 'min': float(df['min'][0]), 'csv_rows': len(rows), 'below': int(df['below_threshold'].sum())}))
`;
    const out = spawnSync(PYTHON, ['-c', script, file], { encoding: 'utf8' });
    expect(out.stderr).toBe('');
    const r = JSON.parse(out.stdout) as Record<string, any>;
    expect(r.columns).toEqual(['parcel_id', 'name', 'date', 'raster_id', 'raster', 'index', 'rule', 'mean', 'min', 'max', 'std', 'median', 'p10', 'p90', 'valid_pixels', 'covered_share', 'valid_share', 'below_threshold']);
    expect(r.rows).toBe(6);
    expect(r.csv_rows).toBe(6);
    expect(r.ids).toEqual(['A-1', 'A-1', 'B-2', 'B-2', 'C-3', 'C-3']);
    expect(r.names).toEqual(['Field, one', 'Field, one', 'Feld "zwei" é', 'Feld "zwei" é', null, null]);
    expect(r.raster).toBe('r-0, composite.tif');
    expect(r.dtypes.mean).toBe('float64');
    expect(r.dtypes.valid_share).toBe('float64');
    expect(r.dtypes.below_threshold).toBe('bool');
    expect(r.mean_null).toBe(1);
    expect(r.min).toBe(1e-7);
    expect(r.below).toBe(1);
  });

  it('publishes under a new name, never over an earlier export', async () => {
    const a = await writeNumberedFile(path.join(dir, 'same.csv'), async (part) => void (await writeLongCsv(part, source)));
    const b = await writeNumberedFile(path.join(dir, 'same.csv'), async (part) => void (await writeLongCsv(part, source)));
    expect(path.basename(a)).toBe('same.csv');
    expect(path.basename(b)).toBe('same-2.csv');
  });
});

describe('GeoPackage', () => {
  it('opens in ogrinfo with the parcels layer and the statistics table, the rows and geometries in the set\'s CRS', async () => {
    let counts = { parcels: 0, statistics: 0 };
    const file = await writeNumberedFile(path.join(dir, 'fields-farms.gpkg'), async (part) => {
      counts = await writeGeoPackage(part, source);
    });
    expect(counts).toEqual({ parcels: 3, statistics: 6 });
    // The GPKG binary header: "GP", version 0, little-endian with an XY envelope, the set's srs_id, then WKB.
    const db = new DatabaseSync(file, { readOnly: true });
    const blob = Buffer.from((db.prepare("SELECT geom FROM parcels WHERE parcel_id = 'A-1'").get() as { geom: Uint8Array }).geom);
    const pragma = db.prepare('PRAGMA application_id').get() as { application_id: number };
    db.close();
    expect(blob.subarray(0, 2).toString('latin1')).toBe('GP');
    expect([blob[2], blob[3], blob.readInt32LE(4)]).toEqual([0, 0b11, 32633]);
    expect([blob.readDoubleLE(8), blob.readDoubleLE(16), blob.readDoubleLE(24), blob.readDoubleLE(32)]).toEqual([500000, 500100, 5540000, 5540100]);
    expect(pragma.application_id).toBe(0x47504b47);
    if (!HAS_OGRINFO) return;
    const summary = spawnSync('ogrinfo', ['-al', '-so', file], { encoding: 'utf8' });
    expect(summary.status, summary.stderr).toBe(0);
    expect(summary.stderr).not.toMatch(/ERROR|Warning/i);
    expect(summary.stdout).toMatch(/Layer name: parcels\s+(Metadata:\s+DESCRIPTION=[^\n]*\s+)?Geometry: Multi Polygon\s+Feature Count: 3/);
    expect(summary.stdout).toMatch(/Layer name: statistics\s+(Metadata:\s+DESCRIPTION=[^\n]*\s+)?Geometry: None\s+Feature Count: 6/);
    expect(summary.stdout).toMatch(/UTM zone 33N/);
    expect(summary.stdout).toMatch(/Extent: \(500000\.000000, 5540000\.000000\) - \(500550\.000000, 5540100\.000000\)/);
    const feature = spawnSync('ogrinfo', [file, 'parcels', '-where', "parcel_id = 'B-2'"], { encoding: 'utf8' });
    expect(feature.status, feature.stderr).toBe(0);
    expect(feature.stdout).toContain('MULTIPOLYGON (((500200 5540000,500300 5540000,500300 5540100,500200 5540100,500200 5540000),(500220 5540020,500240 5540020,500240 5540040,500220 5540040,500220 5540020)))');
    expect(feature.stdout).toContain('name (String) = Feld "zwei" é');
    const join = spawnSync('ogrinfo', [file, '-sql', "SELECT s.parcel_id, s.date, s.mean FROM statistics s JOIN parcels p ON p.parcel_id = s.parcel_id WHERE p.parcel_id = 'C-3' AND s.below_threshold = 1", '-dialect', 'SQLITE'], { encoding: 'utf8' });
    expect(join.status, join.stderr).toBe(0);
    expect(join.stdout).toContain('Feature Count: 1');
    expect(join.stdout).toContain('date (Date) = 2026/05/11');
  });
});
