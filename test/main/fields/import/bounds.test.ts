import { closeSync, openSync, readFileSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterAll, describe, expect, it } from 'vitest';
import { IMPORT_LIMITS, ImportError, ParcelStore } from '../../../../main/fields/parcels.js';
import { openDatabase } from '../../../../main/shared/database.js';
import { makeTempDir, removeTempDirs } from '../../../support/temp-dirs.js';
import { featureCollection, gpkgBlob, HAS_OGR, ogr2ogr, square, WGS84_GPKG, wkbPolygon, writeGpkg, writeText, type Ring } from './helpers.js';

// Hostile parcel files past the bounds of an import: each ends in an error (or a skipped parcel) that
// names the field and the reason, before the reader allocates for what the file declares.

afterAll(() => removeTempDirs());

async function withStore<T>(fn: (store: ParcelStore, dir: string, db: DatabaseSync) => Promise<T>, limits = IMPORT_LIMITS): Promise<T> {
  const dir = makeTempDir('swath-fields-bounds-');
  const db = await openDatabase({ dir });
  const store = new ParcelStore({ db: db.db, file: db.file, limits });
  try {
    return await fn(store, dir, db.db);
  } finally {
    await store.close();
    await db.close();
  }
}

const rowsOf = (n: number) => Array.from({ length: n }, (_, i) => ({ pid: `P${i}`, label: `L${i}`, geom: gpkgBlob(wkbPolygon([square(15 + (i % 300) * 0.001, 50 + Math.floor(i / 300) * 0.001, 0.0005)]), 4326) }));

/** A closed ring of `n` points on a circle around (15, 50). */
function circle(n: number): Ring {
  const ring: Ring = Array.from({ length: n - 1 }, (_, k) => [15 + 0.01 * Math.cos((k / (n - 1)) * 2 * Math.PI), 50 + 0.01 * Math.sin((k / (n - 1)) * 2 * Math.PI)]);
  ring.push(ring[0]!);
  return ring;
}

describe('GeoPackages whose tables lie or are missing', () => {
  it('refuses a GeoPackage without its gpkg_ tables, naming the one missing', async () => {
    await withStore(async (store, dir) => {
      for (const table of ['gpkg_spatial_ref_sys', 'gpkg_geometry_columns', 'gpkg_contents']) {
        const file = path.join(dir, `no-${table}.gpkg`);
        writeGpkg(file, rowsOf(3), WGS84_GPKG);
        const db = new DatabaseSync(file);
        db.exec(`DROP TABLE ${table}`);
        db.close();
        await expect(store.inspect(file)).rejects.toThrow(`the file is not a GeoPackage: it has no ${table} table`);
      }
    });
  });

  it('refuses a layer whose gpkg_geometry_columns names a column the table does not have, naming column_name', async () => {
    await withStore(async (store, dir) => {
      const file = path.join(dir, 'lying-column.gpkg');
      writeGpkg(file, rowsOf(3), WGS84_GPKG);
      const db = new DatabaseSync(file);
      db.exec("UPDATE gpkg_geometry_columns SET column_name = 'shape' WHERE table_name = 'fields'");
      db.close();
      const seen = await store.inspect(file);
      // The real geometry column is one of the table's columns now: the analyst sees what the file says.
      expect(seen.layers[0]!.columns.map((c) => c.name)).toEqual(['fid', 'geom', 'pid', 'label']);
      await expect(store.import(file, { idColumn: 'pid' })).rejects.toThrow(
        'column_name: gpkg_geometry_columns names "shape" as the geometry column of layer fields, and the table has no such column',
      );
      expect(store.sets()).toEqual([]);
    });
  });

  it('refuses a layer whose srs_id has no gpkg_spatial_ref_sys row, or names a table that is not there', async () => {
    await withStore(async (store, dir) => {
      const file = path.join(dir, 'lying-srs.gpkg');
      writeGpkg(file, rowsOf(3), WGS84_GPKG);
      const db = new DatabaseSync(file);
      db.exec("UPDATE gpkg_geometry_columns SET srs_id = 999999 WHERE table_name = 'fields'");
      db.close();
      expect((await store.inspect(file)).layers[0]).toMatchObject({ crs: null, crsProblem: "the layer's srs_id 999999 has no row in gpkg_spatial_ref_sys" });
      await expect(store.import(file, { idColumn: 'pid' })).rejects.toThrow("the layer's srs_id 999999 has no row in gpkg_spatial_ref_sys");

      const gone = path.join(dir, 'lying-table.gpkg');
      writeGpkg(gone, rowsOf(3), WGS84_GPKG);
      const db2 = new DatabaseSync(gone);
      db2.exec("UPDATE gpkg_contents SET table_name = 'elsewhere'; UPDATE gpkg_geometry_columns SET table_name = 'elsewhere'");
      db2.close();
      expect((await store.inspect(gone)).layers).toEqual([]);
      await expect(store.import(gone, { idColumn: 'pid' })).rejects.toThrow('the file has no layer of features');
    });
  });

  it('skips, unread, a geometry blob of 10 million points (160 MB), naming its size', async () => {
    await withStore(async (store, dir) => {
      const file = path.join(dir, 'huge-blob.gpkg');
      const points = 10_000_000;
      const wkb = Buffer.alloc(1 + 4 + 4 + 4 + 16 * points);
      wkb[0] = 1;
      wkb.writeUInt32LE(3, 1);
      wkb.writeUInt32LE(1, 5);
      wkb.writeUInt32LE(points, 9);
      writeGpkg(file, [...rowsOf(2), { pid: 'huge', label: null, geom: gpkgBlob(wkb, 4326) }], WGS84_GPKG);
      const { set, skipped } = await store.import(file, { idColumn: 'pid' });
      expect(set.count).toBe(2);
      expect(skipped).toEqual([{ row: 3, id: 'huge', reason: `the geometry is ${8 + wkb.length} bytes, more than a parcel of 100000 points takes` }]);
    });
  });

  it('refuses a layer of more than 100,000 polygons, naming the limit, and leaves nothing behind', async () => {
    await withStore(async (store, dir, db) => {
      const file = path.join(dir, 'many.gpkg');
      writeGpkg(file, rowsOf(100_001), WGS84_GPKG);
      await expect(store.inspect(file)).resolves.toMatchObject({ layers: [{ count: 100_001 }] });
      const refused = store.import(file, { idColumn: 'pid' });
      await expect(refused).rejects.toBeInstanceOf(ImportError);
      await expect(refused).rejects.toThrow('layer fields has 100001 features, more than the limit of 100000 parcels per set');
      expect(store.sets()).toEqual([]);
      expect(db.prepare('SELECT COUNT(*) AS n FROM parcel').get()).toEqual({ n: 0 });
    });
  });
});

describe('GeoJSON past its bounds', () => {
  it('refuses a 500 MB GeoJSON by its size before reading it', async () => {
    await withStore(async (store, dir) => {
      const file = writeText(dir, 'big.geojson', '{"type":"FeatureCollection","features":[');
      // A sparse file: its size is what the reader checks first.
      const fd = openSync(file, 'r+');
      writeSync(fd, ']}', 500 * 2 ** 20 - 2);
      closeSync(fd);
      await expect(store.inspect(file)).rejects.toThrow('the GeoJSON file is 524288000 bytes, more than the limit of 256 MiB');
    });
  });

  it('refuses a FeatureCollection of more than 100,000 polygons, naming the limit', async () => {
    await withStore(async (store, dir) => {
      const feature = (i: number) => `{"type":"Feature","properties":{"pid":${i}},"geometry":{"type":"Polygon","coordinates":[[[15,50],[15.001,50],[15.001,50.001],[15,50]]]}}`;
      const file = writeText(dir, 'many.geojson', `{"type":"FeatureCollection","features":[${Array.from({ length: 100_001 }, (_, i) => feature(i)).join(',')}]}`);
      await expect(store.import(file, { idColumn: 'pid' })).rejects.toThrow('the GeoJSON FeatureCollection has 100001 features, more than the limit of 100000 parcels per set');
    });
  });
});

describe.skipIf(!HAS_OGR)('Shapefiles and FlatGeobufs past their bounds (written by GDAL, then changed)', () => {
  function source(dir: string, rings: Ring[]): string {
    return writeText(dir, 'src.geojson', featureCollection(rings.map((ring, i) => ({ properties: { pid: i, label: `f${i}` }, geometry: { type: 'Polygon', coordinates: [ring] } }))));
  }

  it('skips, unparsed, a .shp record of 10 million points, naming its numPoints', async () => {
    await withStore(async (store, dir) => {
      const file = path.join(dir, 'f.shp');
      ogr2ogr(file, source(dir, [0, 1, 2].map((i) => square(15 + i * 0.01, 50, 0.005))), 'ESRI Shapefile', 4326);
      const shp = readFileSync(file);
      // Record 2 becomes a polygon of 10 million points (160 MB), every length consistent with the file.
      const points = 10_000_000;
      const first = 100 + 8 + shp.readInt32BE(104) * 2;
      const second = first + 8 + shp.readInt32BE(first + 4) * 2;
      const content = Buffer.alloc(44 + 4 + 16 * points);
      content.writeInt32LE(5, 0);
      [14.99, 49.99, 15.01, 50.01].forEach((v, i) => content.writeDoubleLE(v, 4 + 8 * i));
      content.writeInt32LE(1, 36);
      content.writeInt32LE(points, 40);
      const ring = circle(1000);
      for (let k = 0; k < points; k++) {
        const [x, y] = k === points - 1 ? ring[0]! : ring[k % 999]!;
        content.writeDoubleLE(x, 48 + 16 * k);
        content.writeDoubleLE(y, 56 + 16 * k);
      }
      const head = Buffer.alloc(8);
      head.writeInt32BE(2, 0);
      head.writeInt32BE(content.length / 2, 4);
      const out = Buffer.concat([shp.subarray(0, first), head, content, shp.subarray(second)]);
      out.writeInt32BE(out.length / 2, 24);
      writeFileSync(file, out);
      rmSync(file.replace(/\.shp$/, '.shx'));
      const { set, skipped } = await store.import(file, { idColumn: 'pid' });
      expect(set.count).toBe(2);
      expect(skipped).toEqual([{ row: 2, id: '1', reason: 'numPoints 10000000 of its .shp record, more than the limit of 100000 points per parcel' }]);
    });
  });

  it('reads the records from the .shp whatever its .shx says, and refuses a .dbf whose record length lies, naming it', async () => {
    await withStore(async (store, dir) => {
      const file = path.join(dir, 'f.shp');
      ogr2ogr(file, source(dir, [0, 1, 2, 3, 4].map((i) => square(15 + i * 0.01, 50, 0.005))), 'ESRI Shapefile', 4326);
      const shx = file.replace(/\.shp$/, '.shx');
      const index = readFileSync(shx);
      for (let at = 100; at + 8 <= index.length; at += 8) index.writeInt32BE(0x3fffffff, at); // every offset past the end
      writeFileSync(shx, index.subarray(0, 116));
      expect((await store.import(file, { idColumn: 'pid' })).set.count).toBe(5);

      const dbfFile = file.replace(/\.shp$/, '.dbf');
      const dbf = readFileSync(dbfFile);
      const huge = Buffer.from(dbf);
      huge.writeUInt16LE(65_535, 10);
      writeFileSync(dbfFile, huge);
      await expect(store.inspect(file)).rejects.toThrow(/^the \.dbf header declares 5 records of 65535 bytes, more than the file holds \(\d+ bytes after its header\)$/);

      const short = Buffer.from(dbf);
      short.writeUInt16LE(dbf.readUInt16LE(10) - 4, 10);
      writeFileSync(dbfFile, short);
      await expect(store.inspect(file)).rejects.toThrow(/^the \.dbf's fields take \d+ bytes a record and its header says \d+$/);
    });
  });

  it('skips, undecoded, a FlatGeobuf feature past the points of a parcel, and refuses a features_count that lies low', async () => {
    await withStore(async (store, dir) => {
      const file = path.join(dir, 'f.fgb');
      ogr2ogr(file, source(dir, [square(15, 50, 0.005), circle(40), square(15.02, 50, 0.005)]), 'FlatGeobuf', 4326, ['-lco', 'SPATIAL_INDEX=NO']);
      const { set, skipped } = await store.import(file, { idColumn: 'pid' });
      expect(set.count).toBe(2);
      expect(skipped).toEqual([{ row: 2, id: '1', reason: 'its FlatGeobuf geometry has more than 20 points (the limit of points per parcel)' }]);

      const good = readFileSync(file);
      const headerEnd = 12 + good.readUInt32LE(8);
      const at = [...Array(headerEnd - 8).keys()].filter((i) => i >= 12 && good.readBigUInt64LE(i) === 3n);
      expect(at).toHaveLength(1);
      const low = Buffer.from(good);
      low.writeBigUInt64LE(2n, at[0]!);
      writeFileSync(file, low);
      await expect(store.inspect(file)).rejects.toThrow("the FlatGeobuf header's features_count is 2 and the file holds 3 features");
    }, { ...IMPORT_LIMITS, maxVerticesPerParcel: 20 });
  });
});
