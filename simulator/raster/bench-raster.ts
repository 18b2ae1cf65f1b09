/**
 * Throughput bench for the GeoTIFF synthesis: a ~40 km x 40 km UTM AOI at 10 m, 4 INT16 bands
 * (4000 x 4000 px, 128 MB at full resolution plus overviews). Run directly with tsx to print the figures.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import proj4 from 'proj4';
import { parseBandnames, type BandSpec } from './bands.js';
import type { RasterRequest } from './types.js';
import { writeGeoTiff } from './write.js';

/** The bench request: a 40 km square in UTM zone 33N (central Europe, summer), B4,B3,B2,B8 as INT16. */
export function benchRequest(): RasterRequest {
  const conv = proj4('EPSG:4326', '+proj=utm +zone=33 +datum=WGS84 +units=m +no_defs');
  const x0 = 480000;
  const y0 = 5520000;
  const side = 40000;
  // Edges are sampled every 400 m so the lon/lat polygon stays a square once projected back.
  const ring: [number, number][] = [];
  const corners: [number, number][] = [
    [x0, y0],
    [x0 + side, y0],
    [x0 + side, y0 + side],
    [x0, y0 + side],
  ];
  for (let c = 0; c < 4; c++) {
    const [ax, ay] = corners[c]!;
    const [bx, by] = corners[(c + 1) % 4]!;
    for (let k = 0; k < 100; k++) {
      ring.push(conv.inverse([ax + ((bx - ax) * k) / 100, ay + ((by - ay) * k) / 100]) as [number, number]);
    }
  }
  ring.push(ring[0]!);
  const bands = (parseBandnames('B4,B3,B2,B8') as { ok: true; bands: BandSpec[] }).bands;
  return {
    aoi: { type: 'Polygon', coordinates: [ring] },
    date: '2024-07-15',
    epsg: 32633,
    resolution: 10,
    bands,
    dataType: 'INT16',
    pixelSelection: 'intersect',
    tags: { IMAGE_DATE: '20240715', MODEL_VERSION: 'bench', IMAGE_VERSION: '1', CONSTELLATIONS: 'Sentinel2' },
  };
}

/** Writes the bench file into dir and reports throughput (file bytes / wall time, MB = 1e6 bytes) and peak RSS. */
export async function benchGenerate(dir: string): Promise<{ mbps: number; bytes: number; peakRssMb: number }> {
  const req = benchRequest();
  const out = join(dir, `bench-${process.pid}-${Date.now()}.tif`);
  let peak = process.memoryUsage().rss;
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 20);
  try {
    const t0 = process.hrtime.bigint();
    const { bytes } = await writeGeoTiff(req, out);
    const secs = Number(process.hrtime.bigint() - t0) / 1e9;
    peak = Math.max(peak, process.memoryUsage().rss, process.resourceUsage().maxRSS * 1024);
    return { mbps: bytes / 1e6 / secs, bytes, peakRssMb: peak / (1024 * 1024) };
  } finally {
    clearInterval(timer);
    await rm(out, { force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const dir = await mkdtemp(join(tmpdir(), 'swath-bench-'));
  try {
    for (let i = 0; i < 3; i++) console.log(await benchGenerate(dir));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
