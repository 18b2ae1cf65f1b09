import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fromFile } from 'geotiff';
import proj4 from 'proj4';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SMALL_AOI, demoDate, startTestSim, type TestSim } from './helpers.js';

// Reads every kind of simulator output back with geotiff.js and with GDAL, the
// independent reader, and checks what the contract promises about the file.

function gdalAvailable(): boolean {
  try {
    execFileSync('gdalinfo', ['--version'], { stdio: 'pipe' });
    return true;
  } catch {
    return false;
  }
}
const HAS_GDAL = gdalAvailable();
if (!HAS_GDAL) console.warn('gdalinfo not found: GDAL conformance checks skipped (install gdal-bin; .ci/run does).');

// About 6.8 km x 6.7 km inside the seeded demo order: at 10 m past the 512 px above which the output is a COG.
const LARGE_AOI = 'POLYGON((13.30 52.42, 13.40 52.42, 13.40 52.48, 13.30 52.48, 13.30 52.42))';

const utm = (zone: number) => `+proj=utm +zone=${zone} +datum=WGS84 +units=m +no_defs`;
const CRS: Record<number, string> = { 4326: 'EPSG:4326', 3857: 'EPSG:3857', 32633: utm(33), 32632: utm(32) };

function envelope(wkt: string, epsg: number): [number, number, number, number] {
  const pts = [...wkt.matchAll(/(-?[\d.]+) (-?[\d.]+)/g)].map((m) => [Number(m[1]), Number(m[2])]);
  const proj = pts.map((p) => proj4('EPSG:4326', CRS[epsg]!, p));
  const xs = proj.map((p) => p[0]!);
  const ys = proj.map((p) => p[1]!);
  return [Math.min(...xs), Math.min(...ys), Math.max(...xs), Math.max(...ys)];
}

/** Walks a classic little-endian TIFF's IFD chain: where the IFDs end and where each level's tiles start. */
function cogLayout(buf: Buffer): { lastIfdEnd: number; firstTileOffset: number; firstTileOfLevel: number[] } {
  expect(buf.toString('latin1', 0, 2)).toBe('II');
  expect(buf.readUInt16LE(2)).toBe(42);
  let ifd = buf.readUInt32LE(4);
  let lastIfdEnd = 0;
  const firstTileOfLevel: number[] = [];
  while (ifd !== 0) {
    const n = buf.readUInt16LE(ifd);
    lastIfdEnd = Math.max(lastIfdEnd, ifd + 2 + n * 12 + 4);
    for (let i = 0; i < n; i++) {
      const e = ifd + 2 + i * 12;
      if (buf.readUInt16LE(e) === 324) {
        const count = buf.readUInt32LE(e + 4);
        const at = count === 1 ? e + 8 : buf.readUInt32LE(e + 8);
        firstTileOfLevel.push(buf.readUInt32LE(at));
      }
    }
    ifd = buf.readUInt32LE(ifd + 2 + n * 12);
  }
  return { lastIfdEnd, firstTileOffset: Math.min(...firstTileOfLevel), firstTileOfLevel };
}

interface Case {
  name: string;
  body: Record<string, unknown>;
  epsg: number;
  bands: string[];
  type: 'Int16' | 'Byte';
  pixel: number;
  cog: boolean;
}

const CASES: Case[] = [
  { name: 'UTM 10 m rgb INT16, COG', body: { Wkt: LARGE_AOI, Resolution: 10, EpsgProjection: 32633, Bandnames: 'rgb' }, epsg: 32633, bands: ['B4', 'B3', 'B2'], type: 'Int16', pixel: 10, cog: true },
  { name: '47000 picks the UTM zone; ndvi and bands in the order given', body: { Wkt: SMALL_AOI, Resolution: 20, EpsgProjection: 47000, Bandnames: 'B8,ndvi,B11' }, epsg: 32633, bands: ['B8', '[B8_B4]', 'B11'], type: 'Int16', pixel: 20, cog: false },
  { name: 'EPSG:3857 UINT8', body: { Wkt: SMALL_AOI, Resolution: 20, EpsgProjection: 3857, Bandnames: 'rgb', DataType: 'UINT8' }, epsg: 3857, bands: ['B4', 'B3', 'B2'], type: 'Byte', pixel: 20, cog: false },
  { name: 'EPSG:4326 contained', body: { Wkt: SMALL_AOI, Resolution: 40, EpsgProjection: 4326, Bandnames: 'ndvi', PixelSelectionMode: 'contained' }, epsg: 4326, bands: ['[B8_B4]'], type: 'Int16', pixel: 40 / 111320, cog: false },
  { name: 'a neighbouring UTM zone (combined_utm)', body: { Wkt: SMALL_AOI, Resolution: 40, EpsgProjection: 32632, Bandnames: 'all' }, epsg: 32632, bands: ['B2', 'B3', 'B4', 'B5', 'B6', 'B7', 'B8', 'B8A', 'B11', 'B12'], type: 'Int16', pixel: 40, cog: false },
];

describe('GeoTIFF conformance of composite output', () => {
  let t: TestSim;
  let date: string;
  beforeAll(async () => {
    t = await startTestSim();
    date = await demoDate(t);
  });
  afterAll(() => t.close());

  for (const c of CASES) {
    it(c.name, async () => {
      const res = await fetch(`${t.url}/api/satelliteimages/process/composite`, {
        method: 'POST', headers: { 'x-api-key': 'demo-key', 'content-type': 'application/json' },
        body: JSON.stringify({ Date: date, Model: 'Stratus2', ...c.body }),
      });
      expect(res.status, await res.clone().text().catch(() => '')).toBe(200);
      const file = path.join(t.dir, `${c.name.replace(/\W+/g, '_')}.tif`);
      writeFileSync(file, Buffer.from(await res.arrayBuffer()));

      const tiff = await fromFile(file);
      const img = await tiff.getImage();
      const keys = img.getGeoKeys()!;
      expect(c.epsg === 4326 ? keys.GeographicTypeGeoKey : keys.ProjectedCSTypeGeoKey).toBe(c.epsg);
      expect(img.getResolution()[0]).toBeCloseTo(c.pixel, 9);
      expect(img.getSamplesPerPixel()).toBe(c.bands.length);
      expect(img.getGDALNoData()).toBe(c.type === 'Int16' ? -32768 : 0);
      const meta = (await img.getGDALMetadata())!;
      expect(meta).toMatchObject({ IMAGE_DATE: date.replaceAll('-', ''), CONSTELLATIONS: 'Sentinel1,Sentinel2' });
      expect(meta.MODEL_VERSION).toMatch(/^Stratus2/);
      const [minX, minY, maxX, maxY] = img.getBoundingBox();
      const [eMinX, eMinY, eMaxX, eMaxY] = envelope(String(c.body.Wkt), c.epsg);
      // Bounds hug the AOI envelope: inside it, give or take the one pixel of outward snapping.
      const tol = c.pixel * 1.01;
      expect(minX).toBeGreaterThan(eMinX - tol);
      expect(minY).toBeGreaterThan(eMinY - tol);
      expect(maxX).toBeLessThan(eMaxX + tol);
      expect(maxY).toBeLessThan(eMaxY + tol);
      const count = await tiff.getImageCount();
      expect(count > 1).toBe(c.cog);
      if (c.cog) {
        const layout = cogLayout(readFileSync(file));
        // Cloud Optimized: every IFD before the first pixel, smallest overview's data first.
        expect(layout.lastIfdEnd).toBeLessThan(layout.firstTileOffset);
        expect(layout.firstTileOfLevel.slice().sort((a, b) => b - a)).toEqual(layout.firstTileOfLevel);
      }

      if (!HAS_GDAL) return;
      const info = JSON.parse(execFileSync('gdalinfo', ['-json', file], { encoding: 'utf8' }));
      expect(Number(info.stac['proj:epsg'])).toBe(c.epsg);
      expect(info.geoTransform[1]).toBeCloseTo(c.pixel, 9);
      expect(info.geoTransform[5]).toBeCloseTo(-c.pixel, 9);
      expect(info.bands).toHaveLength(c.bands.length);
      expect(info.bands.map((b: any) => b.description)).toEqual(c.bands);
      for (const b of info.bands) {
        expect(b.type).toBe(c.type);
        expect(b.noDataValue).toBe(c.type === 'Int16' ? -32768 : 0);
      }
      expect(info.metadata[''].IMAGE_DATE).toBe(date.replaceAll('-', ''));
      expect(info.metadata[''].CONSTELLATIONS).toBe('Sentinel1,Sentinel2');
      expect(info.size).toEqual([img.getWidth(), img.getHeight()]);
      if (c.cog) {
        expect(info.bands[0].block).toEqual([512, 512]);
        expect(info.bands[0].overviews.length).toBe(count - 1);
        expect(info.bands[0].overviews[0].size[0]).toBe(Math.ceil(img.getWidth() / 2));
      }
      // A pixel in the middle is valid data and reads the same in GDAL and geotiff.js.
      const px = Math.floor(img.getWidth() / 2);
      const py = Math.floor(img.getHeight() / 2);
      const gdal = execFileSync('gdallocationinfo', ['-valonly', file, String(px), String(py)], { encoding: 'utf8' }).trim().split(/\s+/).map(Number);
      const ours = await img.readRasters({ window: [px, py, px + 1, py + 1], interleave: true });
      expect(Array.from(ours as ArrayLike<number>)).toEqual(gdal);
      expect(gdal[0]).not.toBe(c.type === 'Int16' ? -32768 : 0);
    });
  }

  it('contained selects fewer valid pixels than intersect', async () => {
    const count = async (mode: string) => {
      const res = await fetch(`${t.url}/api/satelliteimages/process/composite`, {
        method: 'POST', headers: { 'x-api-key': 'demo-key', 'content-type': 'application/json' },
        body: JSON.stringify({ Wkt: 'POLYGON((13.40 52.50, 13.43 52.505, 13.41 52.52, 13.40 52.50))', Date: date, Model: 'Stratus2', Resolution: 80, EpsgProjection: 32633, Bandnames: 'B4', PixelSelectionMode: mode }),
      });
      const img = await (await (await import('geotiff')).fromArrayBuffer(await res.arrayBuffer())).getImage();
      const data = (await img.readRasters())[0] as Int16Array;
      return data.filter((v) => v !== -32768).length;
    };
    const inter = await count('intersect');
    const cont = await count('contained');
    expect(cont).toBeGreaterThan(0);
    expect(cont).toBeLessThan(inter);
  });
});
