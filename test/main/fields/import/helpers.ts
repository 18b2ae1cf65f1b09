import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
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
