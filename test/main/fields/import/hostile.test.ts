import { readFileSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterAll, describe, expect, it } from 'vitest';
import { IMPORT_LIMITS, ImportError, ParcelStore } from '../../../../main/fields/parcels.js';
import { openDatabase } from '../../../../main/shared/database.js';
import { makeTempDir, removeTempDirs } from '../../../support/temp-dirs.js';
import { featureCollection, gpkgBlob, HAS_OGR, ogr2ogr, openStore, square, WGS84_GPKG, wkbPolygon, writeGpkg, writeText } from './helpers.js';

afterAll(() => removeTempDirs());

/** Runs `fn` with a store whose limits are `limits` over a fresh swath.db. */
async function withStore<T>(fn: (store: ParcelStore, dir: string) => Promise<T>, limits = IMPORT_LIMITS): Promise<T> {
  const dir = makeTempDir('swath-fields-hostile-');
  const db = await openDatabase({ dir });
  const store = new ParcelStore({ db: db.db, file: db.file, limits });
  try {
    return await fn(store, dir);
  } finally {
    await store.close();
    await db.close();
  }
}

const rowsOf = (n: number, at = 0) => Array.from({ length: n }, (_, i) => ({ pid: `P${at + i}`, label: `L${i}`, geom: gpkgBlob(wkbPolygon([square(15 + (i % 100) * 0.001, 50 + Math.floor(i / 100) * 0.001, 0.0005)]), 4326) }));

describe('hostile GeoPackages', () => {
  it('reads the GeoPackage header with and without an envelope, and refuses a layer without a usable CRS, naming srs_id', async () => {
    await withStore(async (store, dir) => {
      const file = path.join(dir, 'a.gpkg');
      writeGpkg(file, [
        { pid: 'a', label: 'plain', geom: gpkgBlob(wkbPolygon([square(15, 50, 0.01)]), 4326) },
        { pid: 'b', label: 'envelope', geom: gpkgBlob(wkbPolygon([square(16, 50, 0.01)]), 4326, [16, 16.01, 50, 50.01]) },
        { pid: 'c', label: 'no gp', geom: Buffer.from('not a geometry at all') },
        { pid: 'd', label: 'lying ring count', geom: gpkgBlob(Buffer.concat([Buffer.from([1, 3, 0, 0, 0]), Buffer.from([0xff, 0xff, 0xff, 0x7f]), Buffer.alloc(12)]), 4326) },
        { pid: 'e', label: 'no geometry', geom: null },
      ], WGS84_GPKG);
      const { set, skipped } = await store.import(file, { idColumn: 'pid', nameColumn: 'label' });
      expect(set.count).toBe(2);
      expect(set.bbox4326).toEqual([15, 50, 16.01, 50.01]);
      expect(skipped.map((s) => [s.id, s.reason.replace(/\(.*$/, '').trim()])).toEqual([
        ['c', 'not a GeoPackage geometry'],
        ['d', 'malformed WKB'],
        ['e', 'no geometry'],
      ]);

      const undefinedSrs = path.join(dir, 'b.gpkg');
      writeGpkg(undefinedSrs, rowsOf(3), { srsId: -1, org: 'NONE', code: -1, definition: 'undefined' });
      const seen = await store.inspect(undefinedSrs);
      expect(seen.layers[0]).toMatchObject({ count: 3, crs: null, crsProblem: expect.stringMatching(/srs_id -1 is an undefined CRS/) });
      await expect(store.import(undefinedSrs, { idColumn: 'pid' })).rejects.toThrow(/srs_id -1 is an undefined CRS/);
    });
  });

  it('lists every feature layer of gpkg_contents with its own columns and CRS, and imports the one chosen', async () => {
    await withStore(async (store, dir) => {
      const file = path.join(dir, 'layers.gpkg');
      writeGpkg(file, rowsOf(4), WGS84_GPKG);
      const db = new DatabaseSync(file);
      db.exec(`CREATE TABLE "other layer" (fid INTEGER PRIMARY KEY, shape BLOB, code INTEGER, owner TEXT);
        INSERT INTO gpkg_contents (table_name, data_type, identifier, srs_id) VALUES ('other layer', 'features', 'other', 4326);
        INSERT INTO gpkg_geometry_columns VALUES ('other layer', 'shape', 'MULTIPOLYGON', 4326, 0, 0);
        CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT);
        INSERT INTO gpkg_contents (table_name, data_type, identifier) VALUES ('notes', 'attributes', 'notes');`);
      const ins = db.prepare('INSERT INTO "other layer" (shape, code, owner) VALUES (?, ?, ?)');
      ins.run(gpkgBlob(wkbPolygon([square(20, 40, 0.01)]), 4326), 9007199254740993n, 'me');
      ins.run(gpkgBlob(wkbPolygon([square(21, 40, 0.01)]), 4326), 12, 'you');
      db.close();
      const seen = await store.inspect(file);
      expect(seen.layers.map((l) => [l.name, l.count, l.columns, l.crs?.epsg])).toEqual([
        ['fields', 4, [{ name: 'fid', type: 'integer' }, { name: 'pid', type: 'text' }, { name: 'label', type: 'text' }], 4326],
        ['other layer', 2, [{ name: 'fid', type: 'integer' }, { name: 'code', type: 'integer' }, { name: 'owner', type: 'text' }], 4326],
      ]);
      await expect(store.import(file, { idColumn: 'pid' })).rejects.toThrow(/the file has 2 layers \(fields, other layer\): choose one/);
      await expect(store.import(file, { layer: 'nope', idColumn: 'pid' })).rejects.toThrow(/^layer: the file has no layer named "nope"/);
      await expect(store.import(file, { layer: 'other layer', idColumn: 'pid' })).rejects.toThrow(/^idColumn: the layer has no column named "pid"/);
      const { set } = await store.import(file, { layer: 'other layer', idColumn: 'code', nameColumn: 'owner' });
      expect(set).toMatchObject({ layer: 'other layer', name: 'layers (other layer)', count: 2 });
      // A 64-bit integer id stays whole as text.
      expect(store.parcels(set.id).map((p) => [p.id, p.name])).toEqual([['9007199254740993', 'me'], ['12', 'you']]);
    });
  });

  it('counts the rows themselves, never a declared count, and refuses a layer past the feature limit naming it', async () => {
    await withStore(async (store, dir) => {
      const file = path.join(dir, 'declared.gpkg');
      writeGpkg(file, rowsOf(30), WGS84_GPKG);
      const db = new DatabaseSync(file);
      db.exec("CREATE TABLE gpkg_ogr_contents (table_name TEXT PRIMARY KEY, feature_count INTEGER); INSERT INTO gpkg_ogr_contents VALUES ('fields', 1000000000000000)");
      db.close();
      expect((await store.inspect(file)).layers[0]!.count).toBe(30);
      expect((await store.import(file, { idColumn: 'pid' })).set.count).toBe(30);

      const over = path.join(dir, 'over.gpkg');
      writeGpkg(over, rowsOf(51), WGS84_GPKG);
      const refused = store.import(over, { idColumn: 'pid' });
      await expect(refused).rejects.toBeInstanceOf(ImportError);
      await expect(refused).rejects.toThrow(/more than the limit of 50 parcels per set/);
      expect(store.sets()).toHaveLength(1);
    }, { ...IMPORT_LIMITS, maxFeatures: 50 });
  });

  it('refuses a truncated GeoPackage with an error saying so, and leaves nothing behind', async () => {
    await withStore(async (store, dir) => {
      const file = path.join(dir, 'cut.gpkg');
      writeGpkg(file, rowsOf(3000), WGS84_GPKG);
      truncateSync(file, Math.floor(statSync(file).size * 0.6));
      await expect(store.import(file, { idColumn: 'pid' })).rejects.toThrow(/GeoPackage cannot be read.*; is it truncated or damaged\?/);
      expect(store.sets()).toEqual([]);
    });
  });

  it('skips a parcel past the points limit, and refuses a set past the total points limit, naming each', async () => {
    await withStore(async (store, dir) => {
      const file = path.join(dir, 'points.gpkg');
      const big: [number, number][] = Array.from({ length: 30 }, (_, k) => [15 + 0.01 * Math.cos((k / 30) * 2 * Math.PI), 50 + 0.01 * Math.sin((k / 30) * 2 * Math.PI)]);
      big.push(big[0]!);
      writeGpkg(file, [...rowsOf(2), { pid: 'big', label: null, geom: gpkgBlob(wkbPolygon([big]), 4326) }], WGS84_GPKG);
      const { skipped } = await store.import(file, { idColumn: 'pid' });
      expect(skipped).toEqual([{ row: 3, id: 'big', reason: 'more than 20 points (the limit of points per parcel)' }]);
      const many = path.join(dir, 'many.gpkg');
      writeGpkg(many, rowsOf(8), WGS84_GPKG);
      await expect(store.import(many, { idColumn: 'pid' })).rejects.toThrow(/more than 30 points in all, past the limit of points per set/);
    }, { ...IMPORT_LIMITS, maxVerticesPerParcel: 20, maxTotalVertices: 30 });
  });
});

describe('hostile GeoJSON', () => {
  it('refuses JSON nested past the depth limit before parsing it, naming the limit', async () => {
    await withStore(async (store, dir) => {
      const deep = '['.repeat(200_000) + ']'.repeat(200_000);
      const file = writeText(dir, 'deep.geojson', `{"type":"FeatureCollection","features":[{"type":"Feature","properties":{"pid":1},"geometry":{"type":"Polygon","coordinates":${deep}}}]}`);
      await expect(store.inspect(file)).rejects.toThrow(/nests arrays and objects more than 64 deep .* past the limit of 64/);
      await expect(store.import(file, { idColumn: 'pid' })).rejects.toThrow(/more than 64 deep/);
    });
  });

  it('refuses a truncated GeoJSON and one in another CRS, naming why', async () => {
    await withStore(async (store, dir) => {
      const text = featureCollection([{ properties: { pid: 1 }, geometry: { type: 'Polygon', coordinates: [square(15, 50, 0.01)] } }]);
      const cut = writeText(dir, 'cut.geojson', text.slice(0, text.length - 20));
      await expect(store.inspect(cut)).rejects.toThrow(/not valid JSON/);
      const utm = writeText(dir, 'utm.geojson', text.replace('{"type":"FeatureCollection",', '{"type":"FeatureCollection","crs":{"type":"name","properties":{"name":"urn:ogc:def:crs:EPSG::32633"}},'));
      await expect(store.inspect(utm)).rejects.toThrow(/"crs" member names urn:ogc:def:crs:EPSG::32633; GeoJSON is read as EPSG:4326/);
    });
  });

  it('refuses a file of no format it reads, naming the formats', async () => {
    await withStore(async (store, dir) => {
      await expect(store.inspect(writeText(dir, 'x.kml', '<kml/>'))).rejects.toThrow(/not a parcel file Swath reads \(GeoPackage .gpkg, Shapefile .shp, GeoJSON .geojson or .json, FlatGeobuf .fgb\)/);
    });
  });
});

describe.skipIf(!HAS_OGR)('hostile Shapefiles and FlatGeobufs (written by GDAL, then damaged)', () => {
  async function written(dir: string, driver: string, name: string): Promise<string> {
    const src = writeText(dir, 'src.geojson', featureCollection(Array.from({ length: 5 }, (_, i) => ({ properties: { pid: i, label: `f${i}` }, geometry: { type: 'Polygon', coordinates: [square(15 + i * 0.01, 50, 0.005)] } }))));
    const file = path.join(dir, name);
    ogr2ogr(file, src, driver, 4326);
    return file;
  }

  it('refuses a .shp whose record length runs past the file, one whose point count lies, a truncated one, and a .dbf whose record count lies', async () => {
    await withStore(async (store, dir) => {
      const file = await written(dir, 'ESRI Shapefile', 'f.shp');
      const good = readFileSync(file);
      expect((await store.inspect(file)).layers[0]!.count).toBe(5);

      const longRecord = Buffer.from(good);
      longRecord.writeInt32BE(0x3fffffff, 100 + 4); // record 1's content length, in 16-bit words
      writeFileSync(file, longRecord);
      await expect(store.inspect(file)).rejects.toThrow(/record 1 of the .shp: its content length \(2147483646 bytes\) runs past the end of the file/);

      const manyPoints = Buffer.from(good);
      manyPoints.writeInt32LE(2_000_000_000, 100 + 8 + 40); // record 1's numPoints
      writeFileSync(file, manyPoints);
      await expect(store.inspect(file)).rejects.toThrow(/record 1 of the .shp: numParts 1 and numPoints 2000000000 need/);

      writeFileSync(file, good.subarray(0, good.length - 30));
      await expect(store.inspect(file)).rejects.toThrow(/the .shp header's file length \(\d+ bytes\) is not the file's size/);

      writeFileSync(file, good);
      const dbfFile = file.replace(/\.shp$/, '.dbf');
      const dbf = readFileSync(dbfFile);
      const lying = Buffer.from(dbf);
      lying.writeUInt32LE(4_000_000_000, 4);
      writeFileSync(dbfFile, lying);
      await expect(store.inspect(file)).rejects.toThrow(/the .dbf \(its header's record count\) has 4000000000 features, more than the limit of 100000 parcels per set/);
      lying.writeUInt32LE(90_000, 4);
      writeFileSync(dbfFile, lying);
      await expect(store.inspect(file)).rejects.toThrow(/the .dbf header declares 90000 records of \d+ bytes, more than the file holds/);

      writeFileSync(dbfFile, dbf);
      const prj = file.replace(/\.shp$/, '.prj');
      writeFileSync(prj, '');
      writeFileSync(prj, 'PROJCS["nonsense"]');
      await expect(store.import(file, { idColumn: 'pid' })).rejects.toThrow(/the .prj file/);
      expect(store.sets()).toEqual([]);
    });
  });

  it('refuses a shapefile without its .prj, naming it', async () => {
    await withStore(async (store, dir) => {
      const file = await written(dir, 'ESRI Shapefile', 'f.shp');
      const { rmSync } = await import('node:fs');
      rmSync(file.replace(/\.shp$/, '.prj'));
      await expect(store.import(file, { idColumn: 'pid' })).rejects.toThrow(/the .prj next to f.shp is missing/);
    });
  });

  it('refuses a truncated FlatGeobuf and one whose header declares a huge feature count, naming each', async () => {
    await withStore(async (store, dir) => {
      const file = await written(dir, 'FlatGeobuf', 'f.fgb');
      const good = readFileSync(file);
      expect((await store.inspect(file)).layers[0]!.count).toBe(5);
      writeFileSync(file, good.subarray(0, good.length - 10));
      await expect(store.inspect(file)).rejects.toThrow(/feature 5 of the FlatGeobuf: its length \(\d+ bytes\) runs past the end of the file .*truncated/);

      // features_count is a uint64 in the header table: the one 8-byte run equal to 5 there.
      const headerEnd = 12 + good.readUInt32LE(8);
      const at = [...Array(headerEnd - 8).keys()].filter((i) => i >= 12 && good.readBigUInt64LE(i) === 5n);
      expect(at).toHaveLength(1);
      const huge = Buffer.from(good);
      huge.writeBigUInt64LE(2n ** 40n, at[0]!);
      writeFileSync(file, huge);
      await expect(store.inspect(file)).rejects.toThrow(/the FlatGeobuf header \(features_count\) has 1099511627776 features, more than the limit of 100000 parcels per set/);
    });
  });
});

describe('cancelling an import', () => {
  it('reports progress, and a cancel ends the import with an AbortError leaving no set and no parcel behind', async () => {
    const { dir, db, store } = await openStore();
    try {
      const features = Array.from({ length: 9000 }, (_, i) => ({ properties: { pid: i }, geometry: { type: 'Polygon', coordinates: [square(15 + (i % 100) * 0.001, 50 + Math.floor(i / 100) * 0.001, 0.0005)] } }));
      const file = writeText(dir, 'many.geojson', featureCollection(features));
      const stop = new AbortController();
      const seen: [number, number][] = [];
      const run = store.import(file, { idColumn: 'pid' }, { signal: stop.signal, onProgress: (done, total) => { seen.push([done, total]); stop.abort(); } });
      await expect(run).rejects.toMatchObject({ name: 'AbortError' });
      expect(seen[0]).toEqual([500, 9000]);
      expect(store.sets()).toEqual([]);
      expect(db.db.prepare('SELECT (SELECT COUNT(*) FROM parcel) + (SELECT COUNT(*) FROM parcel_box) + (SELECT COUNT(*) FROM parcel_set) AS n').get()).toEqual({ n: 0 });

      const done: number[] = [];
      const { set } = await store.import(file, { idColumn: 'pid' }, { onProgress: (d) => done.push(d) });
      expect(set.count).toBe(9000);
      expect(done).toEqual([...Array.from({ length: 18 }, (_, k) => (k + 1) * 500), 9000]);
    } finally {
      await store.close();
      await db.close();
    }
  });
});
