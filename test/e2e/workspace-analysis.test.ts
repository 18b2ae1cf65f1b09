import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gdalBand, gdalInfo, gdalLocation, gdalValues, referenceStats } from '../main/analysis/gdal-reference';
import { writeTestRaster } from '../main/analysis/rasters';
import { chromiumAvailable } from './chromium';
import { importAoi, openPanel, openWorkspace, waitForMap, type Workspace } from './workspace-harness';

// Monitoring through the browser host: three dates imported into the Library, an NDVI time series over
// the AOI and at a point whose figures equal what GDAL's tools read from the same files, and a change
// layer shown on the map, saved as a GeoTIFF and read back by GDAL.

const HAS_CHROMIUM = chromiumAvailable();
const DATES = ['2026-04-10', '2026-06-15', '2026-08-20'];
/** Larger than the rasters: every pixel of each file is in the area. */
const AREA = 'POLYGON((13.35 52.45, 13.5 52.45, 13.5 52.56, 13.35 52.56, 13.35 52.45))';

describe.skipIf(!HAS_CHROMIUM)('workspace e2e: time series and change', () => {
  let ws: Workspace;
  const files: string[] = [];
  beforeAll(async () => {
    ws = await openWorkspace();
    mkdirSync(ws.downloadsDir, { recursive: true });
    for (const d of DATES) files.push(await writeTestRaster(ws.downloadsDir, d, ['B4', 'B8']));
  });
  afterAll(async () => {
    await ws?.close();
  });

  it('charts NDVI over the AOI with GDAL\'s figures, at a point with gdallocationinfo\'s pixel, and shows a date on click', async () => {
    const page = ws.page;
    await waitForMap(page);
    await importAoi(page, AREA);
    await openPanel(page, 'library');
    await page.getByTestId('import-path').fill(files.join('\n'));
    await page.getByTestId('import-button').click();
    // Same model and area on three dates: the Library groups them as one time series.
    await expect.poll(() => ws.app.library.list().length, { timeout: 15_000 }).toBe(3);
    await page.getByTestId('time-series').first().waitFor({ timeout: 15_000 });

    const block = page.getByTestId('analysis');
    await block.waitFor({ timeout: 15_000 });
    await page.getByTestId('series-expression').fill('ndvi');
    await page.getByTestId('series-target-area').check();
    await page.getByTestId('series-compute').click();
    const rows = page.locator('[data-testid="series-table"] tbody tr');
    await expect.poll(() => rows.count(), { timeout: 30_000 }).toBe(3);
    await page.getByTestId('series-chart').locator('canvas').first().waitFor({ timeout: 15_000 });

    for (let i = 0; i < 3; i++) {
      const row = rows.nth(i);
      expect(await row.getAttribute('data-date')).toBe(DATES[i]);
      const file = ws.app.library.get((await row.getAttribute('data-id'))!)!.path;
      expect(path.basename(file)).toBe(path.basename(files[i]!));
      const ref = referenceStats(gdalValues(file, { a: 'B8', b: 'B4' }));
      expect(Number(await row.getAttribute('data-valid'))).toBe(ref.count);
      for (const k of ['mean', 'median', 'p10', 'p90'] as const) expect(Number(await row.getAttribute(`data-${k}`))).toBeCloseTo(ref[k], 9);
    }

    // Hovering the chart shows a date's values; clicking it opens that raster on the map.
    const over = page.locator('[data-testid="series-chart"] .u-over');
    const box = (await over.boundingBox())!;
    await page.mouse.move(box.x + box.width - 2, box.y + box.height / 2);
    await expect.poll(() => page.getByTestId('series-readout').innerText()).toContain(DATES[2]!);
    expect(await page.getByTestId('series-readout').innerText()).toMatch(/mean -?\d/);
    await page.screenshot({ path: 'test-results/analysis-series-area.png' });
    await page.mouse.click(box.x + box.width - 2, box.y + box.height / 2);
    const lastId = (await rows.nth(2).getAttribute('data-id'))!;
    await expect.poll(() => page.getByTestId(`layer-${lastId}`).getAttribute('data-status'), { timeout: 30_000 }).toBe('ready');

    // A point: the centre of pixel (21, 13) of the first file, located by GDAL.
    const gt = gdalInfo(files[0]!).geoTransform;
    const xy = `${gt[0]! + 21.5 * gt[1]!} ${gt[3]! + 13.5 * gt[5]!}\n`;
    const [lon, lat] = execFileSync('gdaltransform', ['-s_srs', 'EPSG:32633', '-t_srs', 'EPSG:4326', '-output_xy'], { input: xy, encoding: 'utf8' }).trim().split(/\s+/).map(Number);
    await page.getByTestId('series-target-point').check();
    await page.getByTestId('series-lon').fill(String(lon));
    await page.getByTestId('series-lat').fill(String(lat));
    await page.getByTestId('series-compute').click();
    await expect.poll(async () => rows.first().getAttribute('data-col'), { timeout: 30_000 }).not.toBe('');
    expect(await rows.count()).toBe(3);
    for (let i = 0; i < 3; i++) {
      const row = rows.nth(i);
      const file = ws.app.library.get((await row.getAttribute('data-id'))!)!.path;
      const info = gdalInfo(file);
      const b8 = info.bands.find((b) => b.description === 'B8')!;
      const b4 = info.bands.find((b) => b.description === 'B4')!;
      const loc = gdalLocation(file, lon!, lat!, [b8.band, b4.band]);
      expect([Number(await row.getAttribute('data-col')), Number(await row.getAttribute('data-row'))]).toEqual([loc.col, loc.row]);
      const [v8, v4] = [loc.values[0]! * b8.scale!, loc.values[1]! * b4.scale!];
      expect(Number(await row.getAttribute('data-value'))).toBeCloseTo((v8 - v4) / (v8 + v4), 12);
    }
    await page.screenshot({ path: 'test-results/analysis-series-point.png' });
    // "Pick point" takes the next click on the map as the point.
    await page.getByTestId('series-pick').click();
    const map = (await page.getByTestId('map').boundingBox())!;
    await page.mouse.click(map.x + map.width * 0.6, map.y + map.height * 0.55);
    await expect.poll(async () => Number(await page.getByTestId('series-lon').inputValue()), { timeout: 10_000 }).not.toBe(lon);
    const picked = [Number(await page.getByTestId('series-lon').inputValue()), Number(await page.getByTestId('series-lat').inputValue())];
    expect(picked[0]).toBeGreaterThan(13.3);
    expect(picked[0]).toBeLessThan(13.6);
    expect(picked[1]).toBeGreaterThan(52.4);
    expect(picked[1]).toBeLessThan(52.6);
    expect(ws.pageErrors).toEqual([]);
  });

  it('shows the change between two dates with a legend and histogram, and saves it as a GeoTIFF GDAL reads', async () => {
    const page = ws.page;
    await page.getByTestId('series-target-area').check();
    const idOf = (f: string) => ws.app.library.findByPath(f)!.id;
    const details = page.locator('[data-testid="analysis"] details.change');
    if ((await details.getAttribute('open')) === null) await details.locator('summary').click();
    await page.getByTestId('change-from').selectOption(idOf(files[0]!));
    await page.getByTestId('change-to').selectOption(idOf(files[2]!));
    await page.getByTestId('change-compute').click();
    const result = page.getByTestId('change-result');
    await result.waitFor({ timeout: 30_000 });
    await page.getByTestId('change-legend').waitFor();
    expect(await page.getByTestId('change-histogram').locator('rect').count()).toBe(64);
    const a = gdalValues(files[0]!, { a: 'B8', b: 'B4' });
    const b = gdalValues(files[2]!, { a: 'B8', b: 'B4' });
    const diff = a.map((v, i) => b[i]! - v);
    const ref = referenceStats(diff);
    expect(Number(await result.getAttribute('data-valid'))).toBe(ref.count);
    expect(Number(await result.getAttribute('data-mean'))).toBeCloseTo(ref.mean, 6);
    await page.waitForTimeout(800);
    await page.screenshot({ path: 'test-results/analysis-change.png' });

    await page.getByTestId('change-save').click();
    const saved = page.getByTestId('change-saved');
    await saved.waitFor({ timeout: 30_000 });
    const file = (await saved.locator('.path').innerText()).trim();
    expect(file.startsWith(path.join(ws.downloadsDir, 'analysis'))).toBe(true);
    expect(ws.app.library.findByPath(file)).toBeDefined();
    const info = gdalInfo(file);
    const infoA = gdalInfo(files[0]!);
    expect(info.stac?.['proj:epsg']).toBe(32633);
    expect(info.geoTransform).toEqual(infoA.geoTransform);
    expect(info.size).toEqual(infoA.size);
    expect(info.bands[0]).toMatchObject({ type: 'Float32', noDataValue: -9999 });
    const back = gdalBand(file, 1).values;
    expect(back).toHaveLength(diff.length);
    back.forEach((v, i) => {
      if (Number.isNaN(diff[i]!)) expect(v).toBe(-9999);
      else expect(v).toBeCloseTo(diff[i]!, 5);
    });
    expect(ws.pageErrors).toEqual([]);
  });
});
