import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumAvailable } from './chromium';
import { BERLIN_WKT, importAoi, openPanel, openWorkspace, waitForMap, type Workspace } from './workspace-harness';

const HAS_CHROMIUM = chromiumAvailable();

describe.skipIf(!HAS_CHROMIUM)('workspace e2e: first run on the demo service', () => {
  let ws: Workspace;
  beforeAll(async () => {
    // The perf hook hands the test the map, to look at the basemap where it must show coasts and borders.
    ws = await openWorkspace({ initScript: 'window.__SWATH_PERF__ = {};' });
  });
  afterAll(async () => {
    await ws?.close();
  });

  it('starts on the demo service with an offline basemap, the rail, the tray and the status bar', async () => {
    const page = ws.page;
    await waitForMap(page);
    await expect.poll(() => page.getByTestId('service-label').innerText(), { timeout: 15_000 }).toBe('Demo service (offline)');
    await expect.poll(() => page.getByTestId('connection-state').innerText(), { timeout: 15_000 }).toContain('Connected');
    const rail = await page.locator('nav[aria-label="Panels"] [data-panel]').allInnerTexts();
    expect(rail.map((t) => t.trim())).toEqual(['Imagery', 'Tasking', 'Library', 'Products', 'Billing', 'Account', 'Settings', 'Watches', 'Fields']);
    expect(await page.getByTestId('downloads-tray').innerText()).toContain('Downloads');
    expect(await page.getByTestId('map-scale').innerText()).toMatch(/^1:[\d,]+$/);

    // On a first start the map moves to the demo account's orders (Berlin: all land). Once it has, the
    // view is set to Denmark (10° E 56° N, z5: sea, land and the German border), drawn, then sampled.
    await expect.poll(() => page.getByTestId('map').getAttribute('data-start-view'), { timeout: 20_000 }).toBe('orders');
    // The basemap is drawn from bundled data: land and water pixels differ, no tile requests needed.
    const colours = await page.evaluate(async () => {
      const map = (window as unknown as { __SWATH_PERF__: { map: import('ol/Map').default } }).__SWATH_PERF__.map;
      const rendered = new Promise((r) => map.once('rendercomplete', r));
      map.getView().setCenter([1113194.9, 7558415.7]);
      map.getView().setZoom(5);
      map.render();
      await rendered;
      const canvases = [...document.querySelectorAll<HTMLCanvasElement>('[data-testid="map"] canvas')];
      const seen = new Set<string>();
      for (const c of canvases) {
        const ctx = c.getContext('2d');
        if (!ctx || !c.width) continue;
        const data = ctx.getImageData(0, 0, c.width, c.height).data;
        for (let i = 0; i < data.length; i += 4 * 997) if (data[i + 3]! > 0) seen.add(`${data[i]},${data[i + 1]},${data[i + 2]}`);
      }
      return seen.size;
    });
    expect(colours).toBeGreaterThan(2);

    // The pointer's lon/lat shows in the status bar.
    const box = (await page.getByTestId('map').boundingBox())!;
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await expect.poll(() => page.getByTestId('pointer').innerText()).toMatch(/\d+\.\d{5}° [EW]\s+\d+\.\d{5}° [NS]/);
    await page.screenshot({ path: 'test-results/workspace-first-run.png' });
    expect(ws.pageErrors).toEqual([]);
  });

  it('shows each panel (screenshots under test-results/)', async () => {
    const page = ws.page;
    await importAoi(page, BERLIN_WKT);
    for (const id of ['imagery', 'tasking', 'library', 'products', 'billing', 'account', 'settings', 'watches']) {
      await openPanel(page, id);
      await expect.poll(() => page.locator('main.side h1').innerText()).toBe(id.charAt(0).toUpperCase() + id.slice(1));
      await page.waitForTimeout(600);
      await page.screenshot({ path: `test-results/workspace-panel-${id}.png` });
    }
    // Account limits, products and acquisition plans: workspace-products.test.ts, in both answer styles.
    expect(ws.pageErrors).toEqual([]);
  });

  it('has a shortcuts overlay and a dark theme', async () => {
    const page = ws.page;
    await page.locator('body').click({ position: { x: 5, y: 5 } });
    await page.keyboard.press('Shift+?');
    await page.getByTestId('help-overlay').waitFor();
    expect(await page.getByTestId('help-overlay').innerText()).toContain('Draw a polygon AOI');
    await page.screenshot({ path: 'test-results/workspace-shortcuts.png' });
    await page.keyboard.press('Escape');
    await expect.poll(() => page.getByTestId('help-overlay').count()).toBe(0);

    const dark = await ws.newPage({ colorScheme: 'dark' });
    await waitForMap(dark);
    await importAoi(dark, BERLIN_WKT);
    await dark.getByTestId('search-dates').click();
    await dark.getByTestId('date-calendar').waitFor({ timeout: 20_000 });
    const bg = await dark.evaluate(() => getComputedStyle(document.body).backgroundColor);
    expect(bg).toBe('rgb(22, 24, 29)');
    await dark.screenshot({ path: 'test-results/workspace-dark.png' });
  });
});
