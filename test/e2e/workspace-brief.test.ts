import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { briefSheetMm } from '../../preload/contract';
import { briefLayout } from '../../renderer/src/features/brief/model/print-page';
import { gdalInfo } from '../main/analysis/gdal-reference';
import { writeTestRaster } from '../main/analysis/rasters';
import { chromiumAvailable } from './chromium';
import { decodePng, pixelAt, type Pixels } from './preview-pixels';
import { importAoi, openRasterOnMap, openWorkspace, waitForMap, type Workspace } from './workspace-harness';

// The brief through the browser host: a raster opened on the map, the dialog opened from its layer
// card's block, a PDF printed by Chromium's print to PDF (the printer the harness hands main) into the
// download folder's exports/, read back by poppler: one A4 landscape page, fonts embedded, the map
// as an image at >= 200 dpi, the title, date, scale label, EPSG and sources as text, and the page's
// pixels at the centres of known raster pixels equal to the screen's map there. Then a PNG at 150 dpi.

const TOOLS = ['pdfinfo', 'pdffonts', 'pdfimages', 'pdftotext', 'pdftoppm', 'gdalinfo', 'gdaltransform'];
const hasTools = TOOLS.every((t) => { try { execFileSync('which', [t]); return true; } catch { return false; } });
if (!hasTools) console.warn(`Missing one of ${TOOLS.join(', ')}: brief e2e skipped (apt-get install poppler-utils gdal-bin).`);
const HAS = chromiumAvailable() && hasTools;
const SHOTS = process.env.SWATH_SHOTS;
const AREA = 'POLYGON((13.405 52.503, 13.425 52.503, 13.425 52.511, 13.405 52.511, 13.405 52.503))';
type MapHook = { __SWATH_PERF__: { map: import('ol/Map').default } };

describe.skipIf(!HAS)('workspace e2e: the one-page brief', () => {
  let ws: Workspace;
  let file: string;
  beforeAll(async () => {
    ws = await openWorkspace({ initScript: 'window.__SWATH_PERF__ = {};' });
    mkdirSync(ws.downloadsDir, { recursive: true });
    file = await writeTestRaster(ws.downloadsDir, '2026-06-15', ['B4', 'B8']);
  });
  afterAll(async () => {
    await ws?.close();
  });

  /** The map drawn completely (every tile and source in). */
  async function drawn(): Promise<void> {
    await ws.page.waitForFunction(() => !(window as unknown as MapHook).__SWATH_PERF__.map.getView().getAnimating(), undefined, { timeout: 15_000 });
    await ws.page.evaluate(() => new Promise<void>((resolve) => {
      const map = (window as unknown as MapHook).__SWATH_PERF__.map;
      map.once('rendercomplete', () => resolve());
      map.render();
    }));
  }

  it('prints the map with a raster as one A4 landscape page that poppler reads back, matching the screen at known pixels', async () => {
    const page = ws.page;
    await waitForMap(page);
    await importAoi(page, AREA);
    await openRasterOnMap(page, file);
    await drawn();

    // Four raster pixels' centres (GDAL's geotransform, to lon/lat by gdaltransform), away from the AOI's outline.
    const gt = gdalInfo(file).geoTransform;
    const [cols, rows] = gdalInfo(file).size;
    const picks = [[0.15, 0.2], [0.85, 0.2], [0.15, 0.85], [0.85, 0.85]].map(([fx, fy]) => [Math.floor(fx! * cols), Math.floor(fy! * rows)]);
    const xy = picks.map(([c, r]) => `${gt[0]! + (c! + 0.5) * gt[1]!} ${gt[3]! + (r! + 0.5) * gt[5]!}`).join('\n') + '\n';
    const lonLats = execFileSync('gdaltransform', ['-s_srs', 'EPSG:32633', '-t_srs', 'EPSG:4326', '-output_xy'], { input: xy, encoding: 'utf8' })
      .trim().split('\n').map((l) => l.trim().split(/\s+/).map(Number) as [number, number]);

    // The screen: each point's pixel in a screenshot of the map, and the view the print will be drawn from.
    const mapBox = (await page.getByTestId('map').boundingBox())!;
    const screen = decodePng(await page.screenshot({ clip: mapBox }));
    const view = await page.evaluate((points) => {
      const map = (window as unknown as MapHook).__SWATH_PERF__.map;
      const R = 6378137;
      const merc = ([lon, lat]: number[]) => [R * lon! * Math.PI / 180, R * Math.log(Math.tan(Math.PI / 4 + lat! * Math.PI / 360))];
      return {
        size: map.getSize()!, resolution: map.getView().getResolution()!, center: map.getView().getCenter()!, dpr: window.devicePixelRatio,
        points: points.map((p) => ({ merc: merc(p), pixel: map.getPixelFromCoordinate(merc(p)) })),
      };
    }, lonLats);
    const screenColours = view.points.map((p) => pixelAt(screen, p.pixel[0]!, p.pixel[1]!));

    // The dialog from the button under the layers on the map (keyboard: Enter on the focused button).
    await page.getByTestId('library-brief').focus();
    await page.keyboard.press('Enter');
    const dialog = page.getByTestId('brief-dialog');
    await dialog.waitFor();
    await page.getByTestId('brief-title').fill('Field 7 in June');
    await page.getByTestId('brief-text').fill('NDVI after the rains.');
    if (SHOTS) await page.screenshot({ path: path.join(SHOTS, 'brief-dialog.png') });
    await page.getByTestId('brief-export').click();
    const progress = page.getByTestId('brief-progress');
    await expect.poll(() => progress.getAttribute('data-step'), { timeout: 60_000 }).toMatch(/done|failed/);
    expect(await page.getByTestId('brief-error').count()).toBe(0);
    const pdf = (await page.getByTestId('brief-file').innerText()).trim();
    const scale = (await page.getByTestId('brief-scale').innerText()).trim();
    expect(path.dirname(pdf)).toBe(path.join(ws.downloadsDir, 'exports'));
    expect(path.basename(pdf)).toBe('brief-field-7-in-june-2026-06-15.pdf');
    expect(statSync(pdf).size).toBeLessThan(5 * 1024 * 1024);

    const run = (tool: string, ...args: string[]) => execFileSync(tool, [...args, pdf], { encoding: 'utf8' });
    const info = run('pdfinfo');
    expect(info).toMatch(/^Pages:\s+1$/m);
    const [w, h] = /Page size:\s+([\d.]+) x ([\d.]+) pts/.exec(info)!.slice(1).map(Number);
    expect(Math.abs(w! - 841.89)).toBeLessThan(1);
    expect(Math.abs(h! - 595.28)).toBeLessThan(1);
    expect(info).toMatch(/^Title:\s+Field 7 in June$/m);
    const fonts = run('pdffonts').trim().split('\n').slice(2);
    expect(fonts.length).toBeGreaterThan(0);
    for (const line of fonts) expect(line.trim().split(/\s+/).at(-5), line).toBe('yes');
    const images = run('pdfimages', '-list').trim().split('\n').slice(2).map((l) => l.trim().split(/\s+/));
    const map = images.find((c) => Number(c[3]) > 1000);
    expect(map, images.join('\n')).toBeDefined();
    expect(Number(map![12])).toBeGreaterThanOrEqual(200);
    expect(Number(map![13])).toBeGreaterThanOrEqual(200);
    const text = execFileSync('pdftotext', [pdf, '-'], { encoding: 'utf8' });
    expect(scale).toMatch(/^\d+(\.\d+)? k?m$/);
    for (const needle of ['Field 7 in June', '2026-06-15', scale, 'EPSG:32633', 'Imagery:', 'Natural Earth', 'GeoNames', 'CC BY 4.0', 'NDVI after the rains.']) expect(text, needle).toContain(needle);

    // The page at 100 dpi against the screen: the print shows the window's view, scaled to fill the map box.
    const sheet = briefSheetMm('a4', 'landscape');
    const box = briefLayout(sheet).map;
    const target = [Math.ceil(box.width / 25.4 * 220) / view.dpr, Math.ceil(box.height / 25.4 * 220) / view.dpr];
    const res = view.resolution / Math.min(target[0]! / view.size[0]!, target[1]! / view.size[1]!);
    const minX = view.center[0]! - (target[0]! / 2) * res;
    const maxY = view.center[1]! + (target[1]! / 2) * res;
    const stem = path.join(ws.dir, 'brief-page');
    execFileSync('pdftoppm', ['-r', '100', '-png', '-singlefile', pdf, stem]);
    const printed: Pixels = decodePng(readFileSync(`${stem}.png`));
    if (SHOTS) execFileSync('cp', [`${stem}.png`, path.join(SHOTS, 'brief-page.png')]);
    view.points.forEach((p, i) => {
      const xMm = box.x + ((p.merc[0]! - minX) / (target[0]! * res)) * box.width;
      const yMm = box.y + ((maxY - p.merc[1]!) / (target[1]! * res)) * box.height;
      const got = pixelAt(printed, (xMm / 25.4) * 100, (yMm / 25.4) * 100);
      // Tolerance 10 per channel: the same raster pixel, resampled by the print and by pdftoppm.
      for (let k = 0; k < 3; k++) expect(Math.abs(got[k]! - screenColours[i]![k]!), `point ${i}: print ${got} vs screen ${screenColours[i]}`).toBeLessThanOrEqual(10);
    });

    // The same page as a PNG at 150 dpi.
    await page.getByTestId('brief-png').check();
    await page.getByTestId('brief-export').click();
    await expect.poll(() => progress.getAttribute('data-step'), { timeout: 60_000 }).toMatch(/done|failed/);
    await expect.poll(() => page.getByTestId('brief-file').innerText()).toMatch(/150dpi\.png$/);
    const png = decodePng(readFileSync((await page.getByTestId('brief-file').innerText()).trim()));
    expect(Math.abs(png.width - 1754)).toBeLessThanOrEqual(1);
    expect(Math.abs(png.height - 1240)).toBeLessThanOrEqual(1);

    // Escape closes the dialog; B opens it again from the keyboard.
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    await page.keyboard.press('b');
    await dialog.waitFor();
    // The layer card's own button (the brief's fill of the Library's `layer` slot), by keyboard too.
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    // The card's buttons are icons (inline SVG, no glyph a font may lack), each named by its label or title.
    const card = page.locator('[data-testid^="layer-"]').first();
    const buttons = await card.locator('.btns button').evaluateAll((els) => els.map((b) => ({ text: b.textContent!.trim(), svg: !!b.querySelector('svg[aria-hidden="true"]'), name: b.getAttribute('aria-label') ?? b.getAttribute('title') })));
    expect(buttons.length).toBeGreaterThanOrEqual(6);
    for (const b of buttons) expect(b, JSON.stringify(b)).toMatchObject({ text: '', svg: true, name: expect.stringMatching(/\w/) });
    if (SHOTS) await card.screenshot({ path: path.join(SHOTS, 'layer-card-icons.png') });
    const cardButton = page.locator('[data-testid^="layer-"] [data-testid^="brief-"]').first();
    await cardButton.focus();
    await page.keyboard.press('Enter');
    await dialog.waitFor();
    expect(ws.pageErrors).toEqual([]);
  });
});
