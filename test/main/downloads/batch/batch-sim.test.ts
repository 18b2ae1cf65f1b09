import { execFileSync } from 'node:child_process';
import { cpSync, readdirSync, readFileSync } from 'node:fs';
import { fromFile } from 'geotiff';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { planComposite, type BatchPlan, type CompositeBody } from '../../../../main/batch-plan/index.js';
import { runBatch, type BatchProgress } from '../../../../main/downloads/batch/index.js';
import { estimateBatch } from '../../../../main/spend/batch-estimate.js';
import { demoDate, startTestSim, type TestSim } from '../../../simulator/helpers.js';
import { cogReport, gdalSamples } from '../../geotiff/cog-validator.js';
import {
  CONCAVE_AOI,
  HAS_GDAL,
  compositeBody,
  fetchDownloadPart,
  fetchEstimateOne,
  firstDifference,
  gdalEpsg,
  gdalPixel,
  gdalinfo,
  pixels,
  tempDir,
  removeTempDirs,
} from './helpers.js';

if (!HAS_GDAL) console.warn('gdalinfo not found on PATH: the GDAL cross-checks of the batch tests are skipped');

const SMALL_AOI = 'POLYGON((13.40 52.50, 13.43 52.50, 13.43 52.52, 13.40 52.52, 13.40 52.50))';

let t: TestSim;
let date: string;

beforeAll(async () => {
  t = await startTestSim();
  date = await demoDate(t, CONCAVE_AOI);
});
afterAll(async () => {
  await t?.close();
  removeTempDirs();
});

/** Downloads a body in one request, as the reference the batch must reproduce. */
async function direct(body: CompositeBody, dir: string): Promise<string> {
  const file = path.join(dir, 'direct.tif');
  await fetchDownloadPart(t.url)(body, file, AbortSignal.timeout(60_000), () => undefined);
  return file;
}

async function run(plan: BatchPlan, dir: string, parallelism = 3) {
  const progress: BatchProgress[] = [];
  const stats = { calls: 0 };
  const result = await runBatch(plan, { downloadPart: fetchDownloadPart(t.url, stats), parallelism }, dir, AbortSignal.timeout(120_000), (p) => progress.push(p));
  return { result, progress, stats };
}

/** The mosaic must be the direct download: same pixels, and GDAL sees the same grid, CRS, bands and tags. */
async function expectSameRaster(mosaic: string, reference: string): Promise<void> {
  const [a, b] = await Promise.all([pixels(mosaic), pixels(reference)]);
  expect(a.length).toBe(b.length);
  expect(firstDifference(a, b)).toBe(-1);
  if (!HAS_GDAL) return;
  const m = gdalinfo(mosaic);
  const r = gdalinfo(reference);
  expect(m.size).toEqual(r.size);
  expect(m.geoTransform).toEqual(r.geoTransform);
  expect(gdalEpsg(m)).toBe(gdalEpsg(r));
  expect(m.bands.map((x) => x.description)).toEqual(r.bands.map((x) => x.description));
  expect(m.bands.map((x) => [x.type, x.noDataValue, x.block])).toEqual(r.bands.map((x) => [x.type, x.noDataValue, x.block]));
  expect(m.bands.map((x) => x.overviews?.map((o) => o.size))).toEqual(r.bands.map((x) => x.overviews?.map((o) => o.size)));
  for (const key of ['IMAGE_DATE', 'MODEL_VERSION', 'CONSTELLATIONS', 'IMAGE_VERSION']) {
    expect(m.metadata['']?.[key]).toBe(r.metadata['']?.[key]);
  }
  await expectGdalReadsMosaic(mosaic, m);
}

/**
 * The mosaic as written (DEFLATE with predictor 2) is a COG by GDAL's validator, and GDAL decodes
 * every band of every level to the samples geotiff.js decodes, sample by sample.
 */
async function expectGdalReadsMosaic(mosaic: string, info: ReturnType<typeof gdalinfo>): Promise<void> {
  const report = cogReport(mosaic);
  expect(report.valid, report.output).toBe(true);
  expect(execFileSync('gdalinfo', [mosaic], { encoding: 'utf8' })).toMatch(/COMPRESSION=DEFLATE[\s\S]*PREDICTOR=2/);
  const type = info.bands[0]!.type as 'Int16' | 'Byte';
  const tiff = await fromFile(mosaic);
  try {
    const levels = await tiff.getImageCount();
    expect(levels).toBe(1 + (info.bands[0]!.overviews?.length ?? 0));
    for (let k = 0; k < levels; k++) {
      const img = await tiff.getImage(k);
      const bands = (await img.readRasters({ interleave: false })) as unknown as ArrayLike<number>[];
      const ours = bands.flatMap((b) => Array.from(b));
      const gdal = gdalSamples(mosaic, type, undefined, k === 0 ? undefined : k - 1);
      expect(gdal.length).toBe(img.getWidth() * img.getHeight() * bands.length);
      expect(firstDifference(gdal, ours), `level ${k}`).toBe(-1);
    }
  } finally {
    await tiff.close();
  }
}

describe('batch against the simulator (real HTTP on loopback)', () => {
  it('splits a concave AOI over a 100 km² limit, mosaics the parts, and equals a direct download pixel for pixel', async () => {
    const dir = await tempDir();
    // 20 m: about 800 px a side, so the parts and the mosaic are tiled COGs with overviews. The VRT test below asks for
    // the same parts and direct download, which the simulator then serves from its cache.
    const body = compositeBody({ Date: date, Wkt: CONCAVE_AOI, Resolution: 20 });
    const plan = planComposite(body, { maxCompositeAreaKm2: 100, maxTotalBands: 12 });
    expect(plan.kind).toBe('split');
    expect(plan.parts.length).toBeGreaterThanOrEqual(3);
    expect(plan.areaKm2).toBeGreaterThan(200);

    const { result, progress, stats } = await run(plan, dir);
    expect(result.kind).toBe('mosaic');
    expect(stats.calls).toBe(plan.parts.length);
    expect(path.basename(result.file)).toBe(`composite_${date.replaceAll('-', '')}_B4-B3-B2_Stratus2_32633_20m.tif`);
    // Only the mosaic is left: parts, manifest and temporary files are gone.
    expect(readdirSync(dir)).toEqual([path.basename(result.file)]);

    const last = progress[progress.length - 1]!;
    expect(last).toMatchObject({ phase: 'done', partsDone: plan.parts.length, partsTotal: plan.parts.length, fraction: 1 });
    expect(last.totalBytes).toBe(last.bytes);
    for (let i = 1; i < progress.length; i++) expect(progress[i]!.fraction).toBeGreaterThanOrEqual(progress[i - 1]!.fraction);

    const ref = await direct(body, await tempDir());
    await expectSameRaster(result.file, ref);
  });

  it('splits B4,B3,B2,ndvi under a 2-band limit and mosaics 4 bands in the requested order', async () => {
    const dir = await tempDir();
    const body = compositeBody({ Date: date, Wkt: SMALL_AOI, Resolution: 10, Bandnames: 'B4,B3,B2,ndvi' });
    const plan = planComposite(body, { maxCompositeAreaKm2: 2500, maxTotalBands: 2 });
    expect(plan.parts.map((p) => p.body.Bandnames)).toEqual(['B4,B3', 'B2,[B8_B4]']);
    const { result } = await run(plan, dir, 2);
    expect(result.kind).toBe('mosaic');
    const ref = await direct(body, await tempDir());
    await expectSameRaster(result.file, ref);
    if (HAS_GDAL) expect(gdalinfo(result.file).bands.map((b) => b.description)).toEqual(['B4', 'B3', 'B2', '[B8_B4]']);
  });

  it('mosaics an area and band split together (UINT8, 4326) into the direct download', async () => {
    const dir = await tempDir();
    const body = compositeBody({ Date: date, Wkt: CONCAVE_AOI, Resolution: 40, EpsgProjection: 4326, DataType: 'UINT8', Bandnames: 'ndvi,B8,B4', PixelSelectionMode: 'contained' });
    const plan = planComposite(body, { maxCompositeAreaKm2: 100, maxTotalBands: 2 });
    expect(plan.splitBy).toEqual({ area: true, bands: true });
    const { result } = await run(plan, dir, 4);
    expect(result.kind).toBe('mosaic');
    await expectSameRaster(result.file, await direct(body, await tempDir()));
  });

  it.skipIf(!HAS_GDAL)('keeps parts in different CRSs and writes a VRT that GDAL reads, with relative paths', async () => {
    const dir = await tempDir();
    const body = compositeBody({ Date: date, Wkt: CONCAVE_AOI, Resolution: 20 });
    const plan = planComposite(body, { maxCompositeAreaKm2: 100, maxTotalBands: 12 });
    expect(plan.blocks.length).toBeGreaterThanOrEqual(3);
    // Force one block into another CRS, as if the service had answered it in lon/lat.
    const forced: BatchPlan = { ...plan, parts: plan.parts.map((p) => (p.block === 1 ? { ...p, body: { ...p.body, EpsgProjection: 4326 } } : p)) };
    const { result } = await run(forced, dir);
    expect(result.kind).toBe('vrt');
    expect(result.reason).toMatch(/different CRSs/);
    expect(result.parts).toHaveLength(plan.parts.length);
    expect(result.parts.every((f) => path.dirname(f) === path.join(dir, `composite_${date.replaceAll('-', '')}_B4-B3-B2_Stratus2_32633_20m_parts`))).toBe(true);
    expect(result.warped).toHaveLength(1);
    expect(path.extname(result.file)).toBe('.vrt');

    const xml = readFileSync(result.file, 'utf8');
    expect(xml).not.toContain(dir);
    expect(xml).toMatch(/relativeToVRT="1"/);

    const info = gdalinfo(result.file);
    expect(gdalEpsg(info)).toBe(32633);
    expect(info.bands.map((b) => b.description)).toEqual(['B4', 'B3', 'B2']);
    expect(info.bands.every((b) => b.noDataValue === -32768)).toBe(true);
    expect(info.files?.length).toBeGreaterThan(plan.parts.length);

    // In the UTM parts the VRT shows exactly the direct download's pixels; the lon/lat part is reprojected into place.
    const ref = await direct(body, await tempDir());
    const r = gdalinfo(ref);
    const dx = Math.round((r.geoTransform[0]! - info.geoTransform[0]!) / 20);
    const dy = Math.round((info.geoTransform[3]! - r.geoTransform[3]!) / 20);
    const utmBlock = plan.blocks.find((b) => b.index !== 1)!.window!;
    const px = utmBlock.col + Math.floor(utmBlock.width / 2);
    const py = utmBlock.row + Math.floor(utmBlock.height / 2);
    expect(gdalPixel(result.file, px - dx, py - dy)).toEqual(gdalPixel(ref, px, py));
    const w = plan.blocks[1]!.window!;
    const inside = gdalPixel(result.file, w.col + Math.floor(w.width / 2) - dx, w.row + Math.floor(w.height / 2) - dy);
    expect(inside.every((v) => v !== -32768)).toBe(true);

    // Moving the folder keeps the VRT working, because every reference is relative.
    const moved = await tempDir();
    cpSync(dir, moved, { recursive: true });
    const again = path.join(moved, path.basename(result.file));
    expect(gdalinfo(again).size).toEqual(info.size);
    expect(gdalPixel(again, px - dx, py - dy)).toEqual(gdalPixel(ref, px, py));
  });

  it('estimates the batch as the sum of the per-part estimates of composite/estimate', async () => {
    const body = compositeBody({ Date: date, Wkt: CONCAVE_AOI, Resolution: 10, Bandnames: 'B4,B3,B2,B8,ndvi' });
    const plan = planComposite(body, { maxCompositeAreaKm2: 100, maxTotalBands: 3 });
    const estimateOne = fetchEstimateOne(t.url);
    let inFlight = 0;
    let peak = 0;
    const est = await estimateBatch(
      plan,
      async (b, signal) => {
        peak = Math.max(peak, ++inFlight);
        try {
          return await estimateOne(b, signal);
        } finally {
          inFlight--;
        }
      },
      { signal: AbortSignal.timeout(30_000), parallelism: 2 },
    );
    expect(peak).toBeLessThanOrEqual(2);
    expect(est.parts).toHaveLength(plan.parts.length);
    // Ask again, part by part, and add up by hand.
    let credit = 0;
    let billed = 0;
    let area = 0;
    for (const p of plan.parts) {
      const one = (await estimateOne(p.body, AbortSignal.timeout(10_000))) as { CreditEstimate: number; AreaEstimateKm2: number };
      credit += one.CreditEstimate;
      billed += one.AreaEstimateKm2;
      if (p.bandGroup === 0) area += one.AreaEstimateKm2;
      expect(est.parts[p.index]!.CreditEstimate).toBe(one.CreditEstimate);
    }
    expect(est.CreditEstimate).toBeCloseTo(credit, 2);
    expect(est.BilledAreaKm2).toBeCloseTo(billed, 6);
    expect(est.AreaEstimateKm2).toBeCloseTo(area, 6);
    expect(est.AreaEstimateKm2).toBeCloseTo(plan.areaKm2, 0);
    expect(est.CurrencyCode).toBe('EUR');
  });
});
