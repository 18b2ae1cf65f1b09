/**
 * What the field statistics tests share: INT16 rasters written with main's GeoTIFF writer (bands B8
 * and B4, reflectance DN / 10000, GDAL_NODATA), a library and parcel sets over them, and the
 * Python reference (reference.py: rasterio, shapely, numpy).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gdalMetadataXml, writePyramid } from '../../../../main/geotiff';
import { packFlat, type PackedParcels } from '../../../../main/fields/stats/packed';
import type { LibraryEntry } from '../../../../main/library';
import type { ParcelSource, RasterSource } from '../../../../main/fields/stats';

export const NODATA = -9999;

/** A raster's grid: UTM corner, pixel size, size in pixels. */
export interface TestGrid {
  epsg: number;
  originX: number;
  originY: number;
  pixelSize: number;
  width: number;
  height: number;
}

/** Writes a two-band INT16 raster (B8, B4); `dn(band, row, col)` gives each pixel's number. */
export async function writeBands(file: string, g: TestGrid, date: string, dn: (band: number, row: number, col: number) => number, opts: { deflate?: boolean; tile?: number } = {}): Promise<string> {
  const metadataXml = gdalMetadataXml([
    { name: 'IMAGE_DATE', value: date.replace(/-/g, ''), sample: null, role: null },
    { name: 'DESCRIPTION', value: 'B8', sample: 0, role: 'description' },
    { name: 'DESCRIPTION', value: 'B4', sample: 1, role: 'description' },
  ]);
  await writePyramid(
    file,
    { width: g.width, height: g.height, bands: 2, dataType: 'INT16', nodata: NODATA, metadataXml, ...(opts.tile ? { tile: opts.tile } : {}), compress: opts.deflate !== false,
      geo: { epsg: g.epsg, geographic: false, originX: g.originX, originY: g.originY, pixelSize: g.pixelSize } },
    async (rect, out, _signal, rowStride) => {
      for (let y = 0; y < rect.height; y++) {
        for (let x = 0; x < rect.width; x++) {
          for (let b = 0; b < 2; b++) out[y * rowStride + x * 2 + b] = dn(b, rect.y + y, rect.x + x);
        }
      }
    },
    { signal: new AbortController().signal, fullSources: true, durable: false },
  );
  return file;
}

/** A library entry for a test raster (what FieldStatistics reads of one). */
export function entryFor(id: string, file: string, date: string, g: TestGrid, bounds4326: [number, number, number, number]): LibraryEntry {
  return {
    id, path: file, size: 0, sha256: null, request: null, kind: null, createdAt: `${date}T00:00:00.000Z`, source: 'import',
    date, model: null, constellations: [], bands: ['B8', 'B4'], epsg: g.epsg, resolution: g.pixelSize, width: g.width, height: g.height, bounds4326,
  };
}

/** A library of the given entries: by id, and those whose footprint meets a box. */
export function libraryOf(entries: LibraryEntry[]): RasterSource {
  return {
    get: (id) => entries.find((e) => e.id === id),
    covering: (b) => entries.filter((e) => e.bounds4326 && e.bounds4326[0] <= b[2] && b[0] <= e.bounds4326[2] && e.bounds4326[1] <= b[3] && b[1] <= e.bounds4326[3]),
  };
}

export type Parts = number[][][][];

/** Parcels' polygon parts packed as a statistics task carries them (through the store's packFlat). */
export function packParcels(parcels: { index: number; parts: Parts }[]): PackedParcels {
  return packFlat(Int32Array.from(parcels, (p) => p.index), parcels.map(({ parts }) => ({
    type: parts.length === 1 ? 'Polygon' : 'MultiPolygon',
    partRings: parts.map((rings) => rings.length),
    ringPoints: parts.flatMap((rings) => rings.map((ring) => ring.length)),
    coords: Float64Array.from(parts.flat(2).flat()),
  })));
}

/** Parcel sets held in memory, each its CRS and parcels (bbox in lon/lat from `toLonLat`). */
export function parcelSetsOf(sets: Record<string, { epsg: number; proj4: string; parcels: Parts[]; toLonLat: (x: number, y: number) => [number, number] }>): ParcelSource {
  const bboxOf = (parts: Parts, f: (x: number, y: number) => [number, number]): [number, number, number, number] => {
    let w = Infinity, s = Infinity, e = -Infinity, n = -Infinity;
    for (const poly of parts) for (const ring of poly) for (const [x, y] of ring) {
      const [lon, lat] = f(x!, y!);
      w = Math.min(w, lon); e = Math.max(e, lon); s = Math.min(s, lat); n = Math.max(n, lat);
    }
    return [w, s, e, n];
  };
  return {
    set(id) {
      const s = sets[id];
      if (!s) return null;
      const boxes = s.parcels.map((p) => bboxOf(p, s.toLonLat));
      const all: [number, number, number, number] = [Math.min(...boxes.map((b) => b[0])), Math.min(...boxes.map((b) => b[1])), Math.max(...boxes.map((b) => b[2])), Math.max(...boxes.map((b) => b[3]))];
      return { id, crs: { epsg: s.epsg, proj4: s.proj4 }, count: s.parcels.length, bbox4326: all };
    },
    *eachBox(setId, pageSize = 1000) {
      const s = sets[setId]!;
      for (let i = 0; i < s.parcels.length; i += pageSize) {
        yield s.parcels.slice(i, i + pageSize).map((parts, k) => ({ index: i + k, bbox4326: bboxOf(parts, s.toLonLat) }));
      }
    },
    async packed(setId, indices) {
      const s = sets[setId]!;
      return packParcels(Array.from(indices, (index) => ({ index, parts: s.parcels[index]! })));
    },
  };
}

const PY = '/usr/bin/python3';

/** Why the Python reference cannot run here (a printed skip reason), or null. */
export function pythonMissing(): string | null {
  const r = spawnSync(PY, ['-c', 'import numpy, rasterio, shapely; from osgeo import osr'], { encoding: 'utf8' });
  if (r.status === 0) return null;
  return `${PY} lacks numpy, rasterio, shapely or osgeo (apt-get install python3-numpy python3-rasterio python3-shapely python3-gdal): ${(r.stderr || String(r.error)).trim().split('\n').pop()}`;
}

interface RefStats { mean: number; min: number; max: number; std: number; median: number; p10: number; p90: number; weight: number }
/** reference.py's answer for one parcel. */
export interface Reference {
  index: number;
  centre: { stats: RefStats | null; covered: number; coveredShare: number; validShare: number; cells: [number, number][] };
  touched: { stats: RefStats | null; covered: number; coveredShare: number; validShare: number; cells: [number, number][] };
  exact: { stats: RefStats | null; covered: number; coveredShare: number; validShare: number; weights: Record<string, number> };
}

/** reference.py over a raster for parcels in its CRS. */
export function pythonReference(raster: string, index: { band: string } | { a: string; b: string }, parcels: { index: number; parts: Parts }[]): Reference[] {
  const script = path.join(path.dirname(fileURLToPath(import.meta.url)), 'reference.py');
  const out = execFileSync(PY, [script], { input: JSON.stringify({ raster, index, parcels }), encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
  return JSON.parse(out) as Reference[];
}

/** Vertices projected by PROJ (osgeo.osr, traditional x/y order) from EPSG:`from` to EPSG:`to`. */
export function projWithGdal(points: [number, number][], from: number, to: number): [number, number][] {
  const code = `
import json, sys
from osgeo import osr
a, b = osr.SpatialReference(), osr.SpatialReference()
a.ImportFromEPSG(${from}); b.ImportFromEPSG(${to})
for s in (a, b): s.SetAxisMappingStrategy(osr.OAMS_TRADITIONAL_GIS_ORDER)
t = osr.CoordinateTransformation(a, b)
print(json.dumps([list(t.TransformPoint(x, y)[:2]) for x, y in json.load(sys.stdin)]))
`;
  return JSON.parse(execFileSync(PY, ['-c', code], { input: JSON.stringify(points), encoding: 'utf8' })) as [number, number][];
}
