import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { projStringFor } from '../../../../main/fields/import/crs.js';
import type { Parcel } from '../../../../main/fields/parcels.js';
import { removeTempDirs } from '../../../support/temp-dirs.js';
import { featureCollection, HAS_OGR, HAS_PY_OGR, ogr2ogr, ogrRead, openStore, square, writeText, type Ring, type TestFeature } from './helpers.js';

afterAll(() => removeTempDirs());

/** Fields near 15°E 50°N (UTM zone 33N): plain squares, a multipolygon, a polygon with a hole, a bow tie, names with accents. */
function fields(): TestFeature[] {
  const out: TestFeature[] = [];
  for (let i = 0; i < 6; i++) out.push({ properties: { pid: 100 + i, label: `Feld ${i} – Über` }, geometry: { type: 'Polygon', coordinates: [square(15 + i * 0.01, 50, 0.005)] } });
  out.push({ properties: { pid: 200, label: 'two parts' }, geometry: { type: 'MultiPolygon', coordinates: [[square(15, 50.02, 0.004)], [square(15.01, 50.02, 0.004)]] } });
  const hole: Ring = [[15.0321, 50.0221], [15.0321, 50.0239], [15.0339, 50.0239], [15.0339, 50.0221], [15.0321, 50.0221]];
  out.push({ properties: { pid: 201, label: 'with a hole' }, geometry: { type: 'Polygon', coordinates: [square(15.03, 50.02, 0.004), hole] } });
  out.push({ properties: { pid: 202, label: 'bow tie' }, geometry: { type: 'Polygon', coordinates: [[[15.05, 50.02], [15.054, 50.024], [15.054, 50.02], [15.05, 50.024], [15.05, 50.02]]] } });
  out.push({ properties: { pid: 203, label: 'last' }, geometry: { type: 'Polygon', coordinates: [square(15.06, 50.02, 0.004)] } });
  return out;
}

/** Ours against GDAL's read of the same file: ids, names, the one invalid geometry skipped for its self-intersection, coordinates. */
async function expectSameAsGdal(file: string, epsg: number, format: string, layer: string | null): Promise<void> {
  const { db, store } = await openStore();
  try {
    const gdal = ogrRead(file, 'pid', 'label');
    expect(gdal.epsg).toBe(epsg);
    const seen = await store.inspect(file);
    expect(seen.format).toBe(format);
    expect(seen.layers.map((l) => [l.count, l.crs?.epsg])).toEqual([[gdal.count, epsg]]);
    expect(seen.layers[0]!.columns.map((c) => c.name)).toEqual(expect.arrayContaining(['pid', 'label']));

    const { set, skipped } = await store.import(file, { idColumn: 'pid', nameColumn: 'label', ...(layer ? { layer } : {}) });
    const invalid = gdal.valid.flatMap((v, i) => (v ? [] : [i]));
    expect(invalid.map((i) => gdal.ids[i])).toEqual(['202']); // shapely: only the bow tie
    expect(skipped).toEqual([{ row: invalid[0]! + 1, id: '202', reason: expect.stringMatching(/^self-intersection/) }]);
    expect(set).toMatchObject({ format, count: gdal.count - 1, skipped: 1, crs: { epsg } });
    // A code without a PROJ string of Swath's own is read through the file's WKT, which proj4 takes as its definition.
    if (projStringFor(epsg) === null) expect(set.crs.proj4).toMatch(/^PROJCS\[/);
    else expect(set.crs.proj4).toBe(projStringFor(epsg));
    const parcels: Parcel[] = [...store.eachParcel(set.id)].flat();
    const kept = gdal.ids.flatMap((id, i) => (gdal.valid[i] ? [i] : []));
    expect(parcels.map((p) => p.id)).toEqual(kept.map((i) => gdal.ids[i]));
    expect(parcels.map((p) => p.name)).toEqual(kept.map((i) => gdal.names[i]));
    expect(parcels.find((p) => p.id === '200')!.geometry.type).toBe('MultiPolygon');
    expect(parcels.find((p) => p.id === '201')!.geometry.coordinates).toHaveLength(2);
    parcels.forEach((p, k) => {
      const g = gdal.geometries[kept[k]!]!;
      expect(p.geometry.type).toBe(g.type);
      const ours = (p.geometry.coordinates as unknown[]).flat(3) as number[];
      const theirs = ((g.coordinates as unknown[]).flat(3) as number[]);
      expect(ours.length).toBe(theirs.length);
      for (let i = 0; i < ours.length; i++) expect(Math.abs(ours[i]! - theirs[i]!)).toBeLessThanOrEqual(1e-9);
    });
    // The WGS 84 boxes hold the source's own lon/lat (the GeoJSON the files were written from).
    expect(set.bbox4326[0]).toBeCloseTo(15, 6);
    expect(set.bbox4326[1]).toBeCloseTo(50, 6);
    expect(set.bbox4326[2]).toBeCloseTo(15.064, 6);
    expect(set.bbox4326[3]).toBeCloseTo(50.024, 6);
    expect(store.parcels(set.id, { bbox4326: [15.0305, 50.0205, 15.0315, 50.0215] }).map((p) => p.id)).toEqual(['201']);
  } finally {
    await store.close();
    await db.close();
  }
}

/** Each file GDAL writes from the same GeoJSON: driver, name, EPSG, our format, layer name to pick, creation options. */
const WRITTEN: [string, string, string, number, string, string | null, string[]][] = [
  ['a GeoPackage in EPSG:32633', 'GPKG', 'fields.gpkg', 32633, 'gpkg', 'parcels', ['-nln', 'parcels']],
  ['a GeoPackage in EPSG:4326', 'GPKG', 'fields.gpkg', 4326, 'gpkg', null, []],
  ['a GeoPackage in EPSG:3416 (ETRS89 / Austria Lambert: read through its WKT definition)', 'GPKG', 'fields.gpkg', 3416, 'gpkg', null, []],
  ['a Shapefile in EPSG:4326 (.shp, .dbf, .prj; no .cpg: the .dbf\'s language driver says ISO-8859-1)', 'ESRI Shapefile', 'fields.shp', 4326, 'shp', null, []],
  ['a Shapefile in EPSG:32633 (with a .cpg saying UTF-8)', 'ESRI Shapefile', 'fields.shp', 32633, 'shp', null, ['-lco', 'ENCODING=UTF-8']],
  ['a FlatGeobuf in EPSG:32633', 'FlatGeobuf', 'fields.fgb', 32633, 'fgb', null, []],
  ['a FlatGeobuf in EPSG:4326', 'FlatGeobuf', 'fields.fgb', 4326, 'fgb', null, []],
];

describe.skipIf(!HAS_OGR || !HAS_PY_OGR)('parcel files written by GDAL import with the count, ids, names, geometries and CRS GDAL reads', () => {
  it.each(WRITTEN)('%s', async (_title, driver, name, epsg, format, layer, options) => {
    const { dir } = await openStore('swath-fields-src-');
    const src = writeText(dir, 'src.geojson', featureCollection(fields()));
    const file = path.join(dir, name);
    ogr2ogr(file, src, driver, epsg, options);
    if (options.includes('ENCODING=UTF-8')) expect(existsSync(path.join(dir, 'fields.cpg'))).toBe(true);
    await expectSameAsGdal(file, epsg, format, layer);
  });
});
