import { execFileSync, spawnSync } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { open, rename, unlink } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { fromFile } from 'geotiff';
import type { CompositeBody } from '../../../../main/batch-plan/index.js';
import type { DownloadPart } from '../../../../main/downloads/batch/index.js';
import type { AreaCreditEstimate } from '../../../../main/spend/batch-estimate.js';
import { makeTempDir } from '../../../support/temp-dirs.js';

/** True when the GDAL command line tools can be run. */
export const HAS_GDAL = spawnSync('gdalinfo', ['--version'], { encoding: 'utf8' }).status === 0;

export { removeTempDirs } from '../../../support/temp-dirs.js';

/** A fresh temp folder, removed by `removeTempDirs` (each test file's afterAll). */
export async function tempDir(prefix = 'swath-batch-'): Promise<string> {
  return makeTempDir(prefix);
}

/** The demo order's area (seeded for demo-key), where every date of the order has imagery. */
export const DEMO_ORDER_WKT = 'POLYGON((13.25 52.40, 13.60 52.40, 13.60 52.60, 13.25 52.60, 13.25 52.40))';
/** A concave AOI inside the demo order, about 208 km². */
export const CONCAVE_AOI = 'POLYGON((13.28 52.42, 13.52 52.42, 13.52 52.57, 13.40 52.50, 13.28 52.57, 13.28 52.42))';

/** A composite body for the demo order with the given overrides. */
export function compositeBody(over: Partial<CompositeBody> & { Date: string }): CompositeBody {
  return {
    Wkt: CONCAVE_AOI,
    Resolution: 20,
    EpsgProjection: 47000,
    FileType: 'tif',
    PixelSelectionMode: 'intersect',
    DataType: 'INT16',
    UtmDataSelectionMode: 'combined_utm',
    Model: 'Stratus2',
    SatelliteConstellations: ['Sentinel1', 'Sentinel2'],
    Bandnames: 'B4,B3,B2',
    ...over,
  };
}

/** Posts JSON to the simulator with the demo key. */
export function post(baseUrl: string, pathname: string, body: unknown, signal?: AbortSignal): Promise<Response> {
  return fetch(baseUrl + pathname, {
    method: 'POST',
    headers: { 'x-api-key': 'demo-key', 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal,
  });
}

/**
 * A downloadPart over plain fetch, standing in for the service client: streams the composite to
 * `<target>.part`, fsyncs and renames it; a refusal becomes an error with the contract's kind.
 */
export function fetchDownloadPart(baseUrl: string, stats: { calls: number } = { calls: 0 }): DownloadPart {
  return async (body, target, signal, onProgress) => {
    stats.calls++;
    const res = await post(baseUrl, '/api/satelliteimages/process/composite', body, signal);
    if (res.status !== 200 || !res.body) {
      const text = await res.text();
      const err = new Error(`composite answered ${res.status}: ${text}`) as Error & { kind: string };
      err.kind = res.status === 429 || res.status >= 500 ? 'transient' : 'validation';
      throw err;
    }
    const total = Number(res.headers.get('content-length')) || null;
    const part = `${target}.part`;
    let bytes = 0;
    try {
      const counted = Readable.fromWeb(res.body as import('node:stream/web').ReadableStream<Uint8Array>, { signal });
      counted.on('data', (c: Buffer) => {
        bytes += c.length;
        onProgress(bytes, total);
      });
      await pipeline(counted, createWriteStream(part), { signal });
      const fh = await open(part, 'r+');
      await fh.sync();
      await fh.close();
      await rename(part, target);
    } catch (e) {
      await unlink(part).catch(() => undefined);
      throw e;
    }
  };
}

/** An estimateOne over plain fetch: composite/estimate with the part's whole body. */
export function fetchEstimateOne(baseUrl: string): (body: CompositeBody, signal: AbortSignal) => Promise<AreaCreditEstimate> {
  return async (body, signal) => {
    const res = await post(baseUrl, '/api/satelliteimages/process/composite/estimate', body, signal);
    const json = (await res.json()) as { Succeeded: boolean; Data: AreaCreditEstimate };
    if (!json.Succeeded) throw new Error(`estimate failed: ${JSON.stringify(json)}`);
    return json.Data;
  };
}

/** All pixels of the first image, interleaved. */
export async function pixels(file: string): Promise<ArrayLike<number> & { length: number }> {
  const tiff = await fromFile(file);
  try {
    const img = await tiff.getImage(0);
    return (await img.readRasters({ interleave: true })) as unknown as ArrayLike<number> & { length: number };
  } finally {
    await tiff.close();
  }
}

/** Index of the first differing sample, or -1 when equal (a full comparison without a huge assertion diff). */
export function firstDifference(a: ArrayLike<number>, b: ArrayLike<number>): number {
  if (a.length !== b.length) return Math.min(a.length, b.length);
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return i;
  return -1;
}

/** The parts of `gdalinfo -json` the tests compare. */
export interface GdalInfo {
  size: [number, number];
  geoTransform: number[];
  metadata: Record<string, Record<string, string>>;
  bands: { band: number; block: [number, number]; type: string; description?: string; noDataValue?: number; overviews?: { size: [number, number] }[] }[];
  stac?: { 'proj:epsg'?: number };
  coordinateSystem?: { wkt: string };
  files?: string[];
}

/** `gdalinfo -json` of a file. */
export function gdalinfo(file: string): GdalInfo {
  return JSON.parse(execFileSync('gdalinfo', ['-json', file], { encoding: 'utf8' })) as GdalInfo;
}

/** Values of all bands at pixel (x, y), read by GDAL. */
export function gdalPixel(file: string, x: number, y: number): number[] {
  return execFileSync('gdallocationinfo', ['-valonly', file, String(x), String(y)], { encoding: 'utf8' })
    .trim()
    .split('\n')
    .map(Number);
}

/** EPSG code gdalinfo reports. */
export function gdalEpsg(info: GdalInfo): number | undefined {
  const fromStac = info.stac?.['proj:epsg'];
  if (fromStac) return fromStac;
  const m = /ID\["EPSG",(\d+)\]\]\s*$/.exec(info.coordinateSystem?.wkt ?? '');
  return m ? Number(m[1]) : undefined;
}
