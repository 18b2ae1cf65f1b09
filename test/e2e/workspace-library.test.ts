import { copyFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixturePath } from '../fixtures/rasters';
import { chromiumAvailable } from './chromium';
import { decodePng, type Pixels } from './preview-pixels';
import { openPanel, openWorkspace, waitForMap, type Workspace } from './workspace-harness';

// The Library panel in the real shell (rail, basemap, tray), not the preview harness: a striped
// file imported through the panel opens with a quick look and an overview copy served by the same
// raster route the app uses, and the map shows it over the basemap.

const HAS_CHROMIUM = chromiumAvailable();

describe.skipIf(!HAS_CHROMIUM)('workspace e2e: library preview in the real shell', () => {
  let ws: Workspace;
  beforeAll(async () => {
    // The perf hook hands the test the map, to know when the view has arrived and been drawn.
    ws = await openWorkspace({ initScript: 'window.__SWATH_PERF__ = {};' });
  });
  afterAll(async () => {
    await ws?.close();
  });

  /**
   * Waits until the view's centre is inside `bounds` (lon/lat) and still, then for a complete frame of
   * it (every tile and source drawn).
   */
  async function drawnAt(bounds: [number, number, number, number]): Promise<void> {
    await ws.page.waitForFunction((b) => {
      const map = (window as unknown as { __SWATH_PERF__: { map: import('ol/Map').default } }).__SWATH_PERF__.map;
      const [x, y] = map.getView().getCenter() ?? [NaN, NaN];
      const R = 6378137;
      const lon = (x! / R) * (180 / Math.PI);
      const lat = (2 * Math.atan(Math.exp(y! / R)) - Math.PI / 2) * (180 / Math.PI);
      return !map.getView().getAnimating() && lon >= b[0] && lon <= b[2] && lat >= b[1] && lat <= b[3];
    }, bounds, { timeout: 15_000 });
    await ws.page.evaluate(() => new Promise<void>((resolve) => {
      const map = (window as unknown as { __SWATH_PERF__: { map: import('ol/Map').default } }).__SWATH_PERF__.map;
      map.once('rendercomplete', () => resolve());
      map.render();
    }));
  }

  async function mapPixels(): Promise<Pixels> {
    const box = (await ws.page.getByTestId('map').boundingBox())!;
    return decodePng(await ws.page.screenshot({ clip: box }));
  }

  it('imports a striped GeoTIFF, opens it through a quick look and an overview copy, and draws it over the basemap', async () => {
    const page = ws.page;
    await waitForMap(page);
    // The start view has moved the map (to the demo account's orders) before the test moves it.
    await expect.poll(() => page.getByTestId('map').getAttribute('data-start-view'), { timeout: 20_000 }).toBe('orders');
    await openPanel(page, 'library');
    const file = path.join(ws.dir, 'striped-shell.tif');
    copyFileSync(fixturePath('utm33n-striped'), file);
    await page.getByTestId('import-path').fill(file);
    await page.getByTestId('import-button').click();
    const row = page.locator('article[data-file="striped-shell.tif"]');
    await row.waitFor({ timeout: 15_000 });
    const id = (await row.getAttribute('data-testid'))!.slice('entry-'.length);
    // Zoomed to its footprint first, so the comparison below is the same view with and without it.
    const bounds = ws.app.library.findByPath(file)!.bounds4326!;
    expect(bounds).toHaveLength(4);
    await row.getByRole('button', { name: 'Zoom to' }).click();
    await drawnAt(bounds);
    const before = await mapPixels();

    await page.getByTestId(`open-${id}`).click();
    const layer = page.getByTestId(`layer-${id}`);
    await expect.poll(() => layer.getAttribute('data-status'), { timeout: 30_000 }).toBe('ready');
    await expect.poll(() => layer.innerText()).toMatch(/overview copy/);
    await drawnAt(bounds);
    const after = await mapPixels();
    await page.screenshot({ path: 'test-results/workspace-library-preview.png' });

    // The middle of the map now shows the raster instead of the basemap.
    let changed = 0;
    let n = 0;
    for (let y = Math.round(after.height * 0.35); y < after.height * 0.65; y += 2) {
      for (let x = Math.round(after.width * 0.35); x < after.width * 0.65; x += 2) {
        const i = (y * after.width + x) * 4;
        n++;
        if (Math.abs(after.rgba[i]! - before.rgba[i]!) + Math.abs(after.rgba[i + 1]! - before.rgba[i + 1]!) + Math.abs(after.rgba[i + 2]! - before.rgba[i + 2]!) > 30) changed++;
      }
    }
    expect(changed / n).toBeGreaterThan(0.8);
    expect(ws.pageErrors).toEqual([]);
  });
});
