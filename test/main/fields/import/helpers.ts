import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { openDatabase, type OpenDatabase } from '../../../../main/shared/database.js';
import { ParcelStore } from '../../../../main/fields/parcels.js';
import { makeTempDir } from '../../../support/temp-dirs.js';

export const HAS_OGR = spawnSync('ogr2ogr', ['--version'], { encoding: 'utf8' }).status === 0;
if (!HAS_OGR) console.warn('ogr2ogr not found on PATH: the GDAL-written parcel files of the import tests are skipped');
export const HAS_PY_OGR = spawnSync('/usr/bin/python3', ['-c', 'from osgeo import ogr'], { encoding: 'utf8' }).status === 0;
if (!HAS_PY_OGR) console.warn('/usr/bin/python3 with osgeo.ogr not found: the GDAL reference reads of the import tests are skipped');

export type Ring = [number, number][];
export interface TestFeature { properties: Record<string, unknown>; geometry: { type: string; coordinates: unknown } | null }

export function featureCollection(features: TestFeature[]): string {
  return JSON.stringify({ type: 'FeatureCollection', features: features.map((f) => ({ type: 'Feature', ...f })) });
}

/** A square ring from (x, y) of side d, counter-clockwise, closed. */
export function square(x: number, y: number, d: number): Ring {
  return [[x, y], [x + d, y], [x + d, y + d], [x, y + d], [x, y]];
}

/** A fresh swath.db with its schema, and a ParcelStore over it. */
export async function openStore(prefix = 'swath-fields-'): Promise<{ dir: string; db: OpenDatabase; store: ParcelStore }> {
  const dir = makeTempDir(prefix);
  const db = await openDatabase({ dir });
  const store = new ParcelStore({ db: db.db, file: db.file });
  return { dir, db, store };
}

export function writeText(dir: string, name: string, text: string): string {
  const file = path.join(dir, name);
  writeFileSync(file, text);
  return file;
}

/** ogr2ogr: the GeoJSON at `src` (EPSG:4326) to `dst` in `format`, reprojected to `epsg`. */
export function ogr2ogr(dst: string, src: string, format: string, epsg: number, extra: string[] = []): void {
  const r = spawnSync('ogr2ogr', ['-f', format, '-t_srs', `EPSG:${epsg}`, ...extra, dst, src], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`ogr2ogr failed: ${r.stderr}`);
}

export interface OgrLayer {
  count: number;
  ids: (string | null)[];
  names: (string | null)[];
  /** Each feature's geometry as GDAL reads it (GeoJSON), and whether shapely finds it valid. */
  geometries: ({ type: string; coordinates: unknown } | null)[];
  valid: boolean[];
  epsg: number | null;
  layer: string;
}

/** GDAL's own read of a layer through /usr/bin/python3 + osgeo.ogr (and shapely's validity): count, ids, names, geometries, EPSG. */
export function ogrRead(file: string, idField: string, nameField: string): OgrLayer {
  const script = `
import json, sys
from osgeo import ogr, osr
from shapely.geometry import shape
ds = ogr.Open(sys.argv[1])
l = ds.GetLayer(0)
srs = l.GetSpatialRef()
epsg = None
if srs is not None:
    srs.AutoIdentifyEPSG()
    code = srs.GetAuthorityCode(None)
    epsg = int(code) if code else None
ids, names, geoms, valid = [], [], [], []
for f in l:
    v = f.GetField(sys.argv[2]); n = f.GetField(sys.argv[3])
    ids.append(None if v is None else str(v)); names.append(n)
    g = f.GetGeometryRef()
    j = None if g is None else json.loads(g.ExportToJson())
    geoms.append(j)
    valid.append(False if j is None else bool(shape(j).is_valid))
print(json.dumps({"count": l.GetFeatureCount(), "ids": ids, "names": names, "geometries": geoms, "valid": valid, "epsg": epsg, "layer": l.GetName()}))
`;
  const r = spawnSync('/usr/bin/python3', ['-c', script, file, idField, nameField], { encoding: 'utf8', maxBuffer: 256 * 2 ** 20 });
  if (r.status !== 0) throw new Error(`osgeo.ogr failed: ${r.stderr}`);
  return JSON.parse(r.stdout) as OgrLayer;
}

/** A GeoPackage geometry blob: the "GP" header (version 0, little-endian, envelope `envelope` 0 or 1) and the WKB. */
export function gpkgBlob(wkb: Buffer, srsId: number, envelope: [number, number, number, number] | null = null): Buffer {
  const head = Buffer.alloc(8 + (envelope ? 32 : 0));
  head.write('GP', 0, 'latin1');
  head[2] = 0;
  head[3] = 0x01 | (envelope ? 0x02 : 0);
  head.writeInt32LE(srsId, 4);
  if (envelope) envelope.forEach((v, i) => head.writeDoubleLE(v, 8 + i * 8));
  return Buffer.concat([head, wkb]);
}

/** Little-endian WKB of a polygon. */
export function wkbPolygon(rings: Ring[]): Buffer {
  const parts = [Buffer.from([1]), u32(3), u32(rings.length)];
  for (const ring of rings) {
    parts.push(u32(ring.length));
    for (const [x, y] of ring) {
      const b = Buffer.alloc(16);
      b.writeDoubleLE(x, 0);
      b.writeDoubleLE(y, 8);
      parts.push(b);
    }
  }
  return Buffer.concat(parts);
}

function u32(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(n >>> 0, 0);
  return b;
}

/**
 * A minimal GeoPackage (the tables the reader needs, as the GeoPackage standard defines them)
 * with one layer `fields` (fid, pid, label, geom) in `srsId`, written through node:sqlite.
 */
export function writeGpkg(file: string, rows: { pid: unknown; label: unknown; geom: Buffer | null }[], srs: { srsId: number; org: string; code: number; definition: string }): void {
  const db = new DatabaseSync(file);
  db.exec(`PRAGMA application_id = 1196444487;
    CREATE TABLE gpkg_spatial_ref_sys (srs_name TEXT NOT NULL, srs_id INTEGER PRIMARY KEY, organization TEXT NOT NULL, organization_coordsys_id INTEGER NOT NULL, definition TEXT NOT NULL, description TEXT);
    CREATE TABLE gpkg_contents (table_name TEXT PRIMARY KEY, data_type TEXT NOT NULL, identifier TEXT, description TEXT DEFAULT '', last_change DATETIME, min_x DOUBLE, min_y DOUBLE, max_x DOUBLE, max_y DOUBLE, srs_id INTEGER);
    CREATE TABLE gpkg_geometry_columns (table_name TEXT NOT NULL, column_name TEXT NOT NULL, geometry_type_name TEXT NOT NULL, srs_id INTEGER NOT NULL, z TINYINT NOT NULL, m TINYINT NOT NULL);
    CREATE TABLE fields (fid INTEGER PRIMARY KEY AUTOINCREMENT, geom POLYGON, pid TEXT, label TEXT);
    INSERT INTO gpkg_contents (table_name, data_type, identifier, srs_id) VALUES ('fields', 'features', 'fields', ${srs.srsId});
    INSERT INTO gpkg_geometry_columns VALUES ('fields', 'geom', 'POLYGON', ${srs.srsId}, 0, 0);`);
  db.prepare('INSERT INTO gpkg_spatial_ref_sys VALUES (?, ?, ?, ?, ?, NULL)').run('test', srs.srsId, srs.org, srs.code, srs.definition);
  const ins = db.prepare('INSERT INTO fields (pid, label, geom) VALUES (?, ?, ?)');
  db.exec('BEGIN');
  for (const r of rows) ins.run(r.pid as string, r.label as string, r.geom);
  db.exec('COMMIT');
  db.close();
}

export const WGS84_GPKG = { srsId: 4326, org: 'EPSG', code: 4326, definition: 'GEOGCS["WGS 84",DATUM["WGS_1984",SPHEROID["WGS 84",6378137,298.257223563]],PRIMEM["Greenwich",0],UNIT["degree",0.0174532925199433],AUTHORITY["EPSG","4326"]]' };
