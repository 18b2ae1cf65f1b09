import { copyFileSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { writeTestRaster } from '../main/analysis/rasters';
import { axeSerious, formatFindings } from './axe';
import { chromiumAvailable } from './chromium';
import { decodePng } from './preview-pixels';
import { BERLIN_WKT, downloadComposite, importAoi, openPanel, openWorkspace, waitForMap, waitForMapStill, type Workspace } from './workspace-harness';

// An analyst's day walked again in the real shell: what they drew stays above the rasters they open,
// the panels hold their shape, a cancelled dialog leaves nothing, the toolbar's icons say what they
// do, one size format and one vertex count, the AOI and the series files are kept (never written
// over unasked), and the Library's counts and the created order's status agree with what they count.
// Screenshots of the map over a raster, the docked tray, the change pickers and the AOI after a
// reload go to SWATH_SHOTS (when set) for a person to look at.

const HAS_CHROMIUM = chromiumAvailable();
const SHOTS = process.env.SWATH_SHOTS ?? '';
const DATES = ['2026-04-10', '2026-06-15', '2026-08-20'];
/** A triangle inside the test rasters' footprint (13.40-13.43 E, 52.500-52.513 N). */
const TRIANGLE = 'POLYGON((13.405 52.5015, 13.425 52.5015, 13.415 52.5115, 13.405 52.5015))';
/** A file name longer than the panel is wide, as analysts' composites are named. */
const longName = (date: string) => `Sentinel-2_L2A_cloud-free-composite_Berlin-Tempelhof-Neukoelln-Kreuzberg-Friedrichshain_monitoring-${date}_B4-B8_20m_EPSG32633_v1.tif`;

type Hooked = { __SWATH_PERF__: { map: import('ol/Map').default } };

async function shot(page: Page, name: string): Promise<void> {
  if (!SHOTS) return;
  mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: path.join(SHOTS, `${name}.png`) });
}

/** Moves the keyboard focus out of any text field, so a one-key shortcut reaches the app. */
async function blur(page: Page): Promise<void> {
  await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
}

/** The ink of an element (pixels far from its top-left corner's colour) as a mask, by a screenshot of it. */
async function inkMask(page: Page, selector: string): Promise<{ w: number; h: number; on: Uint8Array }> {
  const px = decodePng(await page.locator(selector).screenshot());
  const bg = [px.rgba[0]!, px.rgba[1]!, px.rgba[2]!];
  const on = new Uint8Array(px.width * px.height);
  for (let i = 0; i < on.length; i++) {
    const d = Math.abs(px.rgba[4 * i]! - bg[0]!) + Math.abs(px.rgba[4 * i + 1]! - bg[1]!) + Math.abs(px.rgba[4 * i + 2]! - bg[2]!);
    on[i] = d > 90 ? 1 : 0;
  }
  return { w: px.width, h: px.height, on };
}

/** The best overlap (intersection over union) of two masks shifted by up to 3 px either way. */
function bestOverlap(a: { w: number; h: number; on: Uint8Array }, b: { w: number; h: number; on: Uint8Array }): number {
  let best = 0;
  for (let dy = -3; dy <= 3; dy++) {
    for (let dx = -3; dx <= 3; dx++) {
      let both = 0;
      let either = 0;
      for (let y = 0; y < a.h; y++) {
        for (let x = 0; x < a.w; x++) {
          const av = a.on[y * a.w + x]!;
          const bx = x + dx;
          const by = y + dy;
          const bv = bx >= 0 && by >= 0 && bx < b.w && by < b.h ? b.on[by * b.w + bx]! : 0;
          both += av & bv;
          either += av | bv;
        }
      }
      if (either) best = Math.max(best, both / either);
    }
  }
  return best;
}

describe.skipIf(!HAS_CHROMIUM)('workspace e2e: the analyst\'s day, round 2', () => {
  let ws: Workspace;
  const files: string[] = [];
  let oneBand = '';
  /** Where a long test is, for its failure message. */
  let step = '';
  beforeAll(async () => {
    ws = await openWorkspace();
    await waitForMap(ws.page);
    const dir = path.join(ws.dir, 'rasters');
    mkdirSync(dir, { recursive: true });
    for (const d of DATES) {
      const written = await writeTestRaster(dir, d, ['B4', 'B8']);
      const named = path.join(dir, longName(d));
      copyFileSync(written, named);
      rmSync(written);
      files.push(named);
    }
    oneBand = await writeTestRaster(dir, '2026-05-01', ['B4']);
  });
  afterAll(async () => {
    await ws?.close();
  });
  // Each test starts from the shell as a person finds it: no dialog open, the side panel shown.
  beforeEach(async () => {
    const page = ws.page;
    step = '';
    if (await page.getByTestId('import-dialog').isVisible()) {
      await page.keyboard.press('Escape');
      await page.getByTestId('import-dialog').waitFor({ state: 'detached' });
    }
    if (!(await page.locator('main.side').isVisible())) {
      await blur(page);
      await page.keyboard.press('Backslash');
      await page.locator('main.side').waitFor();
    }
  });
  afterEach((ctx) => {
    if (ctx.task.result?.state === 'fail') console.log(`Failed at: ${step}`);
  });

  it('a cancelled AOI dialog leaves no trace; Enter imports a bounding box typed on one line', async () => {
    const page = ws.page;
    await importAoi(page, BERLIN_WKT);
    await expect.poll(() => page.getByTestId('aoi-vertices').innerText()).toBe('4');
    await page.getByTestId('import-aoi').click();
    await page.getByTestId('import-text').fill('13.5, 52.45, 13.3, 52.55');
    await page.getByTestId('import-text').press('Control+Enter');
    const error = page.getByTestId('import-error');
    await expect.poll(() => error.innerText()).toMatch(/west \(13\.5\) must be less than east/);
    // The dialog says it; nothing behind it says it again.
    expect(await page.getByTestId('aoi-summary').locator('.field-error').count()).toBe(0);
    await page.keyboard.press('Escape');
    await page.getByTestId('import-dialog').waitFor({ state: 'detached' });
    // Cancelled: the earlier AOI stands, valid, and no word of the refused text stays anywhere.
    expect(await page.getByTestId('aoi-summary').innerText()).toMatch(/Valid Polygon/);
    expect(await page.locator('body').innerText()).not.toMatch(/must be less than east/);
    expect(await page.locator('[role="alert"]').allInnerTexts()).not.toContainEqual(expect.stringMatching(/bounding box/i));

    await page.getByTestId('import-aoi').click();
    await page.getByTestId('import-text').fill('13.3, 52.45, 13.5, 52.55');
    await page.getByTestId('import-text').press('Enter');
    await page.getByTestId('import-dialog').waitFor({ state: 'detached' });
    await expect.poll(() => page.getByTestId('aoi-area').innerText()).toMatch(/km²/);
    expect(await page.getByTestId('aoi-vertices').innerText()).toBe('4');
    // The send-as choice is written as the formats are named.
    expect(await page.locator('[role="radiogroup"][aria-label="Send the AOI as"] [role="radio"]').allInnerTexts()).toEqual(['WKT', 'GeoJSON']);
    expect(ws.pageErrors).toEqual([]);
  });

  it('gives "type or paste an AOI" and "export the AOI as GeoJSON" icons that do not look alike', async () => {
    const page = ws.page;
    await expect.poll(() => page.getByTestId('export-aoi-geojson').isEnabled()).toBe(true);
    const paste = await inkMask(page, '[data-testid="import-aoi"] svg');
    const exp = await inkMask(page, '[data-testid="export-aoi-geojson"] svg');
    expect(paste.on.reduce((s, v) => s + v, 0)).toBeGreaterThan(20);
    expect(exp.on.reduce((s, v) => s + v, 0)).toBeGreaterThan(20);
    expect(bestOverlap(paste, exp)).toBeLessThan(0.5);
  });

  it('counts sizes one way in Downloads and the Library (SI, the exact bytes on hover)', async () => {
    const page = ws.page;
    await openPanel(page, 'imagery');
    const job = await downloadComposite(page);
    const fileName = await job.getByTestId('job-file').innerText();
    const bytes = statSync(path.join(ws.downloadsDir, fileName)).size;
    const inTray = await job.getByTestId('job-size').innerText();
    expect(await job.getByTestId('job-size').getAttribute('title')).toBe(`${bytes.toLocaleString('en-US')} bytes (SI: 1 kB = 1,000 bytes)`);

    await openPanel(page, 'library');
    const row = page.locator(`article[data-file="${fileName}"]`);
    await row.waitFor({ timeout: 20_000 });
    expect(await row.getByTestId('entry-size').innerText()).toBe(inTray);
    expect(await row.getByTestId('entry-size').getAttribute('title')).toBe(`${bytes.toLocaleString('en-US')} bytes (SI: 1 kB = 1,000 bytes)`);
    const si = bytes >= 1e6 ? / MB$/ : / kB$/;
    expect(inTray).toMatch(si);
    await page.getByTestId('tray-toggle').click();
  });

  it('draws the AOI above a raster opened from the Library, and every overlay above every raster', async () => {
    const page = ws.page;
    step = 'import the triangle';
    await importAoi(page, TRIANGLE);
    await expect.poll(() => page.getByTestId('aoi-card').innerText()).toMatch(/^0\.7\d+ km²/);
    step = 'import the rasters';
    await openPanel(page, 'library');
    await page.getByTestId('import-path').fill([...files, oneBand].join('\n'));
    await page.getByTestId('import-button').click();
    await expect.poll(() => [...files, oneBand].every((f) => ws.app.library.findByPath(f)), { timeout: 20_000 }).toBe(true);
    const single = page.locator(`article[data-file="${path.basename(oneBand)}"]`);
    await single.waitFor({ timeout: 15_000 });

    step = 'open the one-band raster';
    const id = ws.app.library.findByPath(oneBand)!.id;
    await single.getByRole('button', { name: 'Zoom to' }).click();
    await page.getByTestId(`open-${id}`).click();
    await expect.poll(() => page.getByTestId(`layer-${id}`).getAttribute('data-status'), { timeout: 30_000 }).toBe('ready');
    await waitForMapStill(page);

    step = 'the stack';
    // The stack: every vector overlay (AOI, footprints, orders and their labels, place names) above every preview.
    const stack = await page.evaluate(() => {
      const map = (window as unknown as Hooked).__SWATH_PERF__.map;
      const previews: number[] = [];
      const overlays: { what: string; z: number }[] = [];
      for (const l of map.getAllLayers()) {
        const z = l.getZIndex() ?? 0;
        if (l.get('swathPreview')) previews.push(z);
        else if (typeof (l.getSource() as { getFeatures?: unknown } | null)?.getFeatures === 'function' && !l.get('swathBasemap') && l.get('swathContext') !== 'water') {
          overlays.push({ what: String(l.get('swathKey') ?? l.get('swathContext') ?? (l.get('swathAoi') ? 'aoi' : 'overlay')), z });
        }
      }
      return { previews, overlays };
    });
    expect(stack.previews.length).toBeGreaterThan(0);
    expect(stack.overlays.map((o) => o.what)).toContain('aoi');
    const top = Math.max(...stack.previews);
    expect(stack.overlays.filter((o) => o.z <= top)).toEqual([]);

    // And on screen: the AOI's amber outline is drawn over the raster, inside the triangle's box.
    const box = await page.evaluate(() => {
      const map = (window as unknown as Hooked).__SWATH_PERF__.map;
      const R = 6378137;
      const merc = (lon: number, lat: number) => [(lon * Math.PI / 180) * R, Math.log(Math.tan(Math.PI / 4 + (lat * Math.PI / 180) / 2)) * R];
      const a = map.getPixelFromCoordinate(merc(13.405, 52.5015))!;
      const b = map.getPixelFromCoordinate(merc(13.425, 52.5115))!;
      return { x0: Math.min(a[0]!, b[0]!), x1: Math.max(a[0]!, b[0]!), y0: Math.min(a[1]!, b[1]!), y1: Math.max(a[1]!, b[1]!) };
    });
    const mapBox = (await page.getByTestId('map').boundingBox())!;
    const px = decodePng(await page.screenshot({ clip: mapBox }));
    let amber = 0;
    for (let y = Math.max(0, Math.floor(box.y0) - 3); y < Math.min(px.height, box.y1 + 3); y++) {
      for (let x = Math.max(0, Math.floor(box.x0) - 3); x < Math.min(px.width, box.x1 + 3); x++) {
        const i = (y * px.width + x) * 4;
        const [r, g, b] = [px.rgba[i]!, px.rgba[i + 1]!, px.rgba[i + 2]!];
        if (r > 200 && g > 110 && g < 200 && b < 90) amber++;
      }
    }
    expect(amber).toBeGreaterThan(40);
    await shot(page, 'item1-aoi-over-raster');
    // A raster of one band says so in the singular.
    expect(await single.locator('.meta.bands').innerText()).toBe('1 band: B4');
    // One count of vertices: the map's card (and Tasking's area line, below) say 3 for a triangle, in the format's own name.
    expect(await page.getByTestId('aoi-card').innerText()).toMatch(/0\.7\d+ km²\s+3 vertices · WKT/);
    expect(ws.pageErrors).toEqual([]);
  }, 150_000);

  it('keeps the change pickers inside the panel, their full names on hover and for screen readers; the caption reads once', async () => {
    const page = ws.page;
    const block = page.getByTestId('analysis');
    await block.waitFor({ timeout: 15_000 });
    await page.getByTestId('series-expression').fill('ndvi');
    await page.getByTestId('series-target-area').check();
    await page.getByTestId('series-compute').click();
    await expect.poll(() => page.locator('[data-testid="series-table"] tbody tr').count(), { timeout: 30_000 }).toBe(3);

    const details = block.locator('details.change');
    if ((await details.getAttribute('open')) === null) await details.locator('summary').click();
    const from = page.getByTestId('change-from');
    await from.scrollIntoViewIfNeeded();
    const [panel, card, picker, to] = await Promise.all([
      page.locator('main.side').boundingBox(), block.boundingBox(), from.boundingBox(), page.getByTestId('change-to').boundingBox(),
    ]);
    for (const b of [picker!, to!]) {
      expect(b.x + b.width).toBeLessThanOrEqual(card!.x + card!.width + 0.5);
      expect(b.x + b.width).toBeLessThanOrEqual(panel!.x + panel!.width + 0.5);
    }
    // The panel never scrolls sideways into the map.
    expect(await page.locator('main.side .side-body').evaluate((e) => e.scrollWidth <= e.clientWidth)).toBe(true);
    const first = `${DATES[0]} · ${longName(DATES[0]!)}`;
    expect(await from.getAttribute('title')).toBe(first);
    expect(await from.locator('option:checked').innerText()).toBe(first);
    // What a screen reader reads: the picker's label and its whole value.
    const snapshot = await page.locator('main.side').ariaSnapshot();
    expect(snapshot).toContain(longName(DATES[0]!));
    expect(formatFindings(await axeSerious(page, 'change pickers'))).toBe('');
    await shot(page, 'item5-change-pickers');
    // "NDVI [B8_B4] · index (unitless, -1..1) · over the AOI", not brackets in brackets.
    const caption = await page.getByTestId('series-summary').innerText();
    expect(caption).toMatch(/^NDVI \[B8_B4\] · index \(unitless, -1\.\.1\) · over the AOI: 3 dates/);
    expect(caption).not.toMatch(/\([^)]*\(/);
  });

  it('names a series CSV by its area and dates, and never writes over one unasked', async () => {
    const page = ws.page;
    await page.getByTestId('series-csv').click();
    const saved = page.getByTestId('series-csv-saved');
    await saved.waitFor({ timeout: 15_000 });
    const file = (await saved.locator('.path').innerText()).trim();
    expect(path.dirname(file)).toBe(path.join(ws.downloadsDir, 'exports'));
    expect(path.basename(file)).toMatch(/^swath-series-ndvi-aoi-13\.415E52\.50\dN-[\d.]+km2-2026-04-10_2026-08-20\.csv$/);
    expect(readFileSync(file, 'utf8')).toMatch(/^date_utc,file,epsg,mean_ndvi/);

    // The analyst's edit of the file is theirs: a second export asks instead of writing over it.
    writeFileSync(file, 'kept by the analyst\n');
    await page.getByTestId('series-csv').click();
    const ask = page.getByTestId('series-csv-exists');
    await ask.waitFor({ timeout: 15_000 });
    expect(await ask.innerText()).toContain(file);
    expect(readFileSync(file, 'utf8')).toBe('kept by the analyst\n');
    expect(formatFindings(await axeSerious(page, 'series csv exists'))).toBe('');
    await page.getByTestId('series-csv-rename').click();
    await saved.waitFor({ timeout: 15_000 });
    const second = (await saved.locator('.path').innerText()).trim();
    expect(second).toBe(file.replace(/\.csv$/, '-2.csv'));
    expect(readFileSync(file, 'utf8')).toBe('kept by the analyst\n');
    expect(readFileSync(second, 'utf8')).toMatch(/^date_utc,/);
    // Replace is the analyst's word only.
    await page.getByTestId('series-csv').click();
    await ask.waitFor({ timeout: 15_000 });
    await page.getByTestId('series-csv-replace').click();
    await saved.waitFor({ timeout: 15_000 });
    expect(readFileSync(file, 'utf8')).toMatch(/^date_utc,/);
    expect(readdirSync(path.dirname(file)).filter((f) => f.endsWith('.csv'))).toHaveLength(2);
  });

  it('says how many of a time series\' dates a search matches, agreeing with the list\'s count', async () => {
    const page = ws.page;
    await page.getByTestId('library-search').fill(DATES[1]!);
    const count = page.locator('[data-testid="library-panel"] .count, .count.muted').first();
    await expect.poll(() => count.innerText(), { timeout: 15_000 }).toMatch(/^1 of \d+ rasters$/);
    const series = page.getByTestId('time-series').first();
    await expect.poll(() => series.getByTestId('series-matched').innerText().catch(() => ''), { timeout: 15_000 }).toBe('· 1 of them matches the search');
    expect(await series.getAttribute('aria-label')).toBe('Time series of 3 dates, 1 of them matches the search');
    await page.getByTestId('library-search').fill('');
    await expect.poll(() => series.getByTestId('series-matched').count()).toBe(0);
  });

  it('keeps the downloads tray usable when the side panel is hidden', async () => {
    const page = ws.page;
    await page.getByTestId('tray-toggle').click();
    await blur(page);
    await page.keyboard.press('Backslash');
    await page.locator('main.side').waitFor({ state: 'hidden' });
    const tray = page.getByTestId('downloads-tray');
    await expect.poll(async () => (await tray.boundingBox())?.width ?? 0).toBeGreaterThan(400);
    const head = page.getByTestId('tray-toggle');
    // Its head and rows hold their text: nothing cut off in a narrow column.
    expect(await head.evaluate((e) => e.scrollWidth <= e.clientWidth + 1)).toBe(true);
    const job = page.getByTestId('download-job').first();
    expect((await job.boundingBox())!.width).toBeGreaterThan(400);
    expect(await job.getByTestId('job-file').isVisible()).toBe(true);
    const map = (await page.getByTestId('map').boundingBox())!;
    const trayBox = (await tray.boundingBox())!;
    // Docked under the map, at its width.
    expect(trayBox.y).toBeGreaterThanOrEqual(map.y + map.height - 1);
    expect(Math.abs(trayBox.width - map.width)).toBeLessThan(2);
    await shot(page, 'item2-tray-panel-hidden');
    await blur(page);
    await page.keyboard.press('Backslash');
    await page.locator('main.side').waitFor();
    await page.getByTestId('tray-toggle').click();
  });

  it('keeps the AOI through a reload, as the map view is', async () => {
    const page = ws.page;
    await page.reload();
    await waitForMap(page);
    await expect.poll(() => page.getByTestId('aoi-card').count(), { timeout: 20_000 }).toBe(1);
    expect(await page.getByTestId('aoi-card').innerText()).toMatch(/3 vertices · WKT/);
    await waitForMapStill(page);
    await shot(page, 'item7-aoi-after-reload');
  });

  it('shows the created order\'s status with when it was read, and lets it be put away; Billing shows the billed area', async () => {
    const page = ws.page;
    await openPanel(page, 'tasking');
    // Tasking counts the triangle's vertices as the map does.
    await expect.poll(() => page.locator('.aoi-line').innerText(), { timeout: 15_000 }).toMatch(/Polygon · 3 vertices/);
    await page.getByTestId('estimate-button').click();
    await page.getByTestId('estimate-summary').waitFor({ timeout: 20_000 });
    // Each list of the estimate's dates says what its number counts ("9 dates"; a list whose days
    // are all coloured by the lists above says so).
    const legend = await page.locator('[data-testid="estimate-calendar"] .legend li').allInnerTexts();
    expect(legend.length).toBeGreaterThan(0);
    for (const item of legend) expect(item).toMatch(/\(\d+ dates?(, (all )?also in a list above)?\)$/);
    await page.getByTestId('place-button').click();
    const dialog = page.getByTestId('confirm-place-dialog');
    await dialog.waitFor();
    await expect.poll(() => dialog.getByTestId('confirm-cost').innerText()).toMatch(/\d+\.\d\d EUR/);
    await dialog.getByTestId('confirm-place').click();
    const done = page.getByTestId('create-done');
    await done.waitFor({ timeout: 20_000 });
    const id = (await page.getByTestId('created-id').innerText()).trim();
    // Its status is the orders list's, with the time the list was read.
    await expect.poll(() => done.getByTestId('created-status-at').innerText(), { timeout: 30_000 }).toMatch(/^in the orders list at \d{4}-\d\d-\d\d \d\d:\d\d UTC$/);
    expect(await done.getByTestId('created-status').innerText()).toBeTruthy();
    await done.getByTestId('create-dismiss').click();
    await expect.poll(() => page.getByTestId('create-done').count()).toBe(0);
    await page.getByTestId('tab-orders').click();
    await page.locator(`[data-testid="order-row"][data-order="${id}"]`).waitFor({ timeout: 15_000 });

    await openPanel(page, 'billing');
    const table = page.getByTestId('billing-orders-table');
    await table.waitFor({ timeout: 20_000 });
    const header = table.locator('[data-col="BilledAreaKm2"]');
    await header.waitFor();
    expect((await header.innerText()).trim()).toMatch(/^Billed area km²/);
    const cols = await table.locator('thead th').evaluateAll((ths) => ths.map((t) => t.getAttribute('title')));
    const billedAt = cols.indexOf('BilledAreaKm2');
    const areaAt = cols.findIndex((c) => /^area(km2)?$/i.test(c ?? ''));
    expect(areaAt).toBeGreaterThanOrEqual(0);
    expect(billedAt).toBe(areaAt + 1);
    const cells = await table.locator('tbody tr').evaluateAll((trs, [a, b]) => trs.map((tr) => [tr.children[a!]?.textContent ?? '', tr.children[b!]?.textContent ?? '']), [areaAt, billedAt]);
    const num = (s: string) => Number(s.replace(/[^\d.]/g, ''));
    const filled = cells.filter(([, billed]) => /\d/.test(billed!));
    expect(filled.length).toBeGreaterThan(0);
    // A triangle is billed by its bounding box: more than its own area.
    expect(filled.some(([area, billed]) => num(billed!) > num(area!))).toBe(true);
    expect(ws.pageErrors).toEqual([]);
  }, 150_000);
});
