import { createHash } from 'node:crypto';
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { planRaster, writeGeoTiff, type RasterRequest } from '../../../simulator/raster/index.js';
import { getProjection } from '../../../common/grid/projection.js';
import { writeGeoTiff as writeInternal } from '../../../simulator/raster/write.js';
import { HAS_GDAL, bands, gdalinfo, gdalPixel, readStructure, readWindow, rect, request, tempDir } from './helpers.js';

let dir = '';
beforeAll(async () => {
  dir = await tempDir();
});
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

async function render(name: string, req: RasterRequest): Promise<{ file: string; r: Awaited<ReturnType<typeof readWindow>> }> {
  const file = join(dir, `${name}.tif`);
  await writeGeoTiff(req, file);
  return { file, r: await readWindow(file) };
}

function planOf(req: RasterRequest): Exclude<ReturnType<typeof planRaster>, { error: string }> {
  const p = planRaster(req);
  if ('error' in p) throw new Error(p.error);
  return p;
}

function meanNdvi(r: Awaited<ReturnType<typeof readWindow>>, band: number): number {
  let s = 0;
  let n = 0;
  for (let i = 0; i < r.width * r.height; i++) {
    const v = r.data[i * r.samples + band]!;
    if (v === -32768) continue;
    s += v / 32767;
    n++;
  }
  return s / n;
}

describe('synthetic landscape', () => {
  it('looks like land: plausible reflectances, vegetation and water signatures, consistent NDVI', async () => {
    // 160 m: about 450 x 420 px over 70 x 67 km, enough land for the statistics (at 80 m, four times the pixels, the
    // fractions below agree to within 0.2 %).
    const req = request({ aoi: rect(14.5, 49.7, 15.5, 50.3), epsg: 32633, resolution: 160, bands: bands('B2,B3,B4,B8,ndvi') });
    const { r } = await render('land', req);
    const n = r.width * r.height;
    let veg = 0;
    let vegGreenPeak = 0;
    let water = 0;
    let waterDarkNir = 0;
    let ndviBad = 0;
    let outOfRange = 0;
    let nodata = 0;
    const b4: number[] = [];
    const b8: number[] = [];
    for (let i = 0; i < n; i++) {
      const [B2, B3, B4, B8, nd] = [0, 1, 2, 3, 4].map((k) => r.data[i * 5 + k]!) as [number, number, number, number, number];
      if (B2 === -32768) {
        nodata++;
        continue;
      }
      if (nd < -32767 || nd > 32767 || B4 < 1 || B8 < 1) outOfRange++;
      b4.push(B4);
      b8.push(B8);
      const expected = ((B8 - B4) / (B8 + B4)) * 32767;
      if (Math.abs(nd - expected) > 0.01 * 32767) ndviBad++;
      if (nd > 0.6 * 32767) {
        veg++;
        if (B3 > B4 && B3 > B2) vegGreenPeak++;
      }
      if (nd < 0) {
        water++;
        if (B8 < 600) waterDarkNir++;
      }
    }
    const valid = n - nodata;
    expect(valid).toBeGreaterThan(0.95 * n);
    expect(outOfRange).toBe(0);
    expect(ndviBad).toBe(0);
    expect(veg / valid).toBeGreaterThan(0.1); // summer in central Europe: plenty of green
    expect(vegGreenPeak / veg).toBeGreaterThan(0.95);
    expect(water).toBeGreaterThan(0.001 * valid); // some lakes or rivers
    expect(water / valid).toBeLessThan(0.3);
    expect(waterDarkNir / water).toBeGreaterThan(0.95);
    const median = (a: number[]): number => a.sort((x, y) => x - y)[a.length >> 1]!;
    expect(median(b4)).toBeGreaterThan(200);
    expect(median(b4)).toBeLessThan(2000);
    expect(median(b8)).toBeGreaterThan(1500);
    expect(median(b8)).toBeLessThan(4500);
  });

  it('follows the seasons of each hemisphere', async () => {
    const north = { aoi: rect(14.8, 49.9, 15.1, 50.1), epsg: 32633, resolution: 160, bands: bands('ndvi') };
    const south = { aoi: rect(145, -36.2, 145.3, -36), epsg: 32755, resolution: 160, bands: bands('ndvi') };
    const nJan = meanNdvi((await render('nj', request({ ...north, date: '2024-01-15' }))).r, 0);
    const nJul = meanNdvi((await render('nv', request({ ...north, date: '2024-07-15' }))).r, 0);
    const sJan = meanNdvi((await render('sj', request({ ...south, date: '2024-01-15' }))).r, 0);
    const sJul = meanNdvi((await render('sv', request({ ...south, date: '2024-07-15' }))).r, 0);
    expect(nJul).toBeGreaterThan(nJan + 0.1);
    expect(sJan).toBeGreaterThan(sJul + 0.1);
  });

  it('is defined in lon/lat: different projections of the same place agree', async () => {
    const aoi = rect(15, 50, 15.05, 50.03);
    const a = request({ aoi, epsg: 4326, resolution: 20, bands: bands('B8') });
    const b = request({ aoi, epsg: 32633, resolution: 20, bands: bands('B8') });
    const ra = (await render('pa', a)).r;
    const rb = (await render('pb', b)).r;
    const pa = planOf(a);
    const pb = planOf(b);
    const utm = getProjection(32633)!;
    let close = 0;
    const N = 400;
    for (let k = 0; k < N; k++) {
      // Deterministic quasi-random points well inside the AOI.
      const lon = 15.002 + 0.046 * ((k * 0.618034) % 1);
      const lat = 50.002 + 0.026 * ((k * 0.414214) % 1);
      const ax = Math.floor((lon - pa.bounds.minX) / pa.pixelSize);
      const ay = Math.floor((pa.bounds.maxY - lat) / pa.pixelSize);
      const [x, y] = utm.forward(lon, lat);
      const bx = Math.floor((x - pb.bounds.minX) / pb.pixelSize);
      const by = Math.floor((pb.bounds.maxY - y) / pb.pixelSize);
      const va = ra.data[ay * ra.width + ax]!;
      const vb = rb.data[by * rb.width + bx]!;
      if (Math.abs(va - vb) <= 0.1 * Math.max(va, vb)) close++;
    }
    // Pixel centres differ by up to a pixel, so field edges may disagree; most points must not.
    expect(close / N).toBeGreaterThan(0.8);
  });

  it('overlapping requests on the global grid produce the same pixels', async () => {
    const a = request({ aoi: rect(15, 50, 15.06, 50.04), epsg: 32633, resolution: 20 });
    const b = request({ aoi: rect(15.03, 50.02, 15.09, 50.06), epsg: 32633, resolution: 20 });
    const ra = (await render('oa', a)).r;
    const rb = (await render('ob', b)).r;
    const pa = planOf(a);
    const pb = planOf(b);
    const dx = Math.round((pb.bounds.minX - pa.bounds.minX) / 20);
    const dy = Math.round((pa.bounds.maxY - pb.bounds.maxY) / 20);
    expect(Math.abs((pb.bounds.minX - pa.bounds.minX) / 20 - dx)).toBeLessThan(1e-9);
    let both = 0;
    let same = 0;
    for (let y = 0; y < rb.height; y++) {
      for (let x = 0; x < rb.width; x++) {
        const ax = x + dx;
        const ay = y + dy;
        if (ax < 0 || ay < 0 || ax >= ra.width || ay >= ra.height) continue;
        const ia = (ay * ra.width + ax) * 4;
        const ib = (y * rb.width + x) * 4;
        if (ra.data[ia] === -32768 || rb.data[ib] === -32768) continue;
        both++;
        if ([0, 1, 2, 3].every((k) => ra.data[ia + k] === rb.data[ib + k])) same++;
      }
    }
    expect(both).toBeGreaterThan(10000);
    expect(same).toBe(both);
  });

  it('is deterministic: the same request gives byte-identical files', async () => {
    const req = request({ aoi: rect(15, 50, 15.02, 50.01), epsg: 32633, resolution: 10 });
    const f1 = join(dir, 'd1.tif');
    const f2 = join(dir, 'd2.tif');
    await writeGeoTiff(req, f1);
    await writeGeoTiff(req, f2);
    const h = async (f: string): Promise<string> => createHash('sha256').update(await readFile(f)).digest('hex');
    expect(await h(f1)).toBe(await h(f2));
  });
});

describe('BigTIFF container', () => {
  it('holds the same pixels as the classic file and is readable by geotiff.js', async () => {
    const req = request({ aoi: rect(15, 50, 15.08, 50.05), epsg: 32633, resolution: 10, bands: bands('B4,ndvi') });
    const classic = join(dir, 'classic.tif');
    const big = join(dir, 'big.tif');
    await writeInternal(req, classic);
    const res = await writeInternal(req, big, { bigTiff: true });
    expect(readStructure(classic).bigTiff).toBe(false);
    const s = readStructure(big);
    expect(s.bigTiff).toBe(true);
    expect(s.ifds).toHaveLength(2);
    expect(res.bytes).toBe(s.size);
    const a = await readWindow(classic);
    const b = await readWindow(big);
    expect(Buffer.from(new Int16Array(Array.from(b.data)).buffer).equals(Buffer.from(new Int16Array(Array.from(a.data)).buffer))).toBe(true);
    const ovA = await readWindow(classic, undefined, 1);
    const ovB = await readWindow(big, undefined, 1);
    expect(Array.from(ovB.data)).toEqual(Array.from(ovA.data));
  });

  it.skipIf(!HAS_GDAL)('is readable by GDAL', async () => {
    const big = join(dir, 'big.tif');
    const info = gdalinfo(big);
    expect(info.stac?.['proj:epsg']).toBe(32633);
    expect(info.bands.map((b) => b.description)).toEqual(['B4', '[B8_B4]']);
    expect(info.bands[0]!.overviews).toHaveLength(1);
    const a = await readWindow(big);
    const x = Math.floor(a.width / 2);
    const y = Math.floor(a.height / 2);
    expect(gdalPixel(big, x, y)).toEqual([a.data[(y * a.width + x) * 2], a.data[(y * a.width + x) * 2 + 1]]);
  });
});
