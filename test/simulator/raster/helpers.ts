import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { MultiPolygon, Polygon } from 'geojson';
import { fromFile } from 'geotiff';
import { parseBandnames, type BandSpec, type RasterRequest } from '../../../simulator/raster/index.js';

/** True when the GDAL command line tools can be run. */
export const HAS_GDAL = spawnSync('gdalinfo', ['--version'], { encoding: 'utf8' }).status === 0;
if (!HAS_GDAL) console.warn('gdalinfo not found on PATH: GDAL cross-checks of the raster tests are skipped');

export async function tempDir(prefix = 'swath-raster-'): Promise<string> {
  return mkdtemp(join(tmpdir(), prefix));
}

export function bands(expr: string): BandSpec[] {
  const r = parseBandnames(expr);
  if (!r.ok) throw new Error(r.reason);
  return r.bands;
}

export function rect(lon0: number, lat0: number, lon1: number, lat1: number): Polygon {
  return {
    type: 'Polygon',
    coordinates: [
      [
        [lon0, lat0],
        [lon1, lat0],
        [lon1, lat1],
        [lon0, lat1],
        [lon0, lat0],
      ],
    ],
  };
}

export function request(over: Partial<RasterRequest> & { aoi: Polygon | MultiPolygon }): RasterRequest {
  return {
    date: '2024-07-01',
    epsg: 4326,
    resolution: 10,
    bands: bands('B4,B3,B2,B8'),
    dataType: 'INT16',
    pixelSelection: 'intersect',
    tags: { IMAGE_DATE: '20240701', MODEL_VERSION: 'model-7', IMAGE_VERSION: 'img-3', CONSTELLATIONS: 'Sentinel2,Landsat89' },
    ...over,
  };
}

export interface GdalBand {
  band: number;
  block: [number, number];
  type: string;
  description?: string;
  noDataValue?: number;
  scale?: number;
  offset?: number;
  overviews?: { size: [number, number] }[];
}

export interface GdalInfo {
  size: [number, number];
  geoTransform: number[];
  metadata: Record<string, Record<string, string>>;
  bands: GdalBand[];
  stac?: { 'proj:epsg'?: number };
  coordinateSystem?: { wkt: string };
}

export function gdalinfo(file: string): GdalInfo {
  return JSON.parse(execFileSync('gdalinfo', ['-json', file], { encoding: 'utf8' })) as GdalInfo;
}

/** Values of all bands at pixel (x, y), read by GDAL. */
export function gdalPixel(file: string, x: number, y: number): number[] {
  const out = execFileSync('gdallocationinfo', ['-valonly', file, String(x), String(y)], { encoding: 'utf8' });
  return out
    .trim()
    .split(/\s+/)
    .map((s) => Number(s));
}

/** gdalPixel for many pixels in one gdallocationinfo run (it reads "x y" lines from stdin): one list of band values per pixel. */
export function gdalPixels(file: string, pts: readonly (readonly [number, number])[]): number[][] {
  const out = execFileSync('gdallocationinfo', ['-valonly', file], { input: pts.map(([x, y]) => `${x} ${y}\n`).join(''), encoding: 'utf8' });
  const values = out.trim().split(/\s+/).map((s) => Number(s));
  const bands = values.length / pts.length;
  if (!Number.isInteger(bands)) throw new Error(`gdallocationinfo answered ${values.length} values for ${pts.length} pixels`);
  return pts.map((_, i) => values.slice(i * bands, (i + 1) * bands));
}

/** Reads a window (all bands, pixel-interleaved) with geotiff.js. */
export async function readWindow(
  file: string,
  win?: [number, number, number, number],
  imageIndex = 0,
): Promise<{ data: ArrayLike<number>; width: number; height: number; samples: number }> {
  const tiff = await fromFile(file);
  try {
    const img = await tiff.getImage(imageIndex);
    const r = await img.readRasters({ interleave: true, ...(win ? { window: win } : {}) });
    return { data: r as unknown as ArrayLike<number>, width: r.width, height: r.height, samples: img.getSamplesPerPixel() };
  } finally {
    await tiff.close();
  }
}

export interface IfdInfo {
  tags: Map<number, number[] | string>;
}

/** Minimal independent TIFF structure reader (classic and BigTIFF) for layout checks. */
export function readStructure(file: string): { bigTiff: boolean; ifds: IfdInfo[]; ifdOffsets: number[]; size: number } {
  const buf = readFileSync(file);
  const dv = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  if (buf.toString('latin1', 0, 2) !== 'II') throw new Error('not little-endian TIFF');
  const magic = dv.getUint16(2, true);
  const big = magic === 43;
  if (!big && magic !== 42) throw new Error(`bad magic ${magic}`);
  const u = (at: number, size: number): number =>
    size === 1 ? dv.getUint8(at) : size === 2 ? dv.getUint16(at, true) : size === 4 ? dv.getUint32(at, true) : Number(dv.getBigUint64(at, true));
  const typeSize: Record<number, number> = { 1: 1, 2: 1, 3: 2, 4: 4, 12: 8, 16: 8 };
  let off = big ? Number(dv.getBigUint64(8, true)) : dv.getUint32(4, true);
  const ifds: IfdInfo[] = [];
  const ifdOffsets: number[] = [];
  while (off !== 0) {
    ifdOffsets.push(off);
    const n = big ? Number(dv.getBigUint64(off, true)) : dv.getUint16(off, true);
    const tags = new Map<number, number[] | string>();
    let at = off + (big ? 8 : 2);
    for (let i = 0; i < n; i++, at += big ? 20 : 12) {
      const tag = dv.getUint16(at, true);
      const type = dv.getUint16(at + 2, true);
      const count = big ? Number(dv.getBigUint64(at + 4, true)) : dv.getUint32(at + 4, true);
      const ts = typeSize[type];
      if (!ts) throw new Error(`unexpected type ${type} for tag ${tag}`);
      const inline = ts * count <= (big ? 8 : 4);
      const valAt = inline ? at + (big ? 12 : 8) : u(at + (big ? 12 : 8), big ? 8 : 4);
      if (type === 2) {
        tags.set(tag, buf.toString('latin1', valAt, valAt + count).replace(/\0$/, ''));
      } else if (type === 12) {
        tags.set(tag, Array.from({ length: count }, (_, k) => dv.getFloat64(valAt + 8 * k, true)));
      } else {
        tags.set(tag, Array.from({ length: count }, (_, k) => u(valAt + ts * k, ts)));
      }
    }
    ifds.push({ tags });
    off = u(at, big ? 8 : 4);
  }
  return { bigTiff: big, ifds, ifdOffsets, size: buf.length };
}
