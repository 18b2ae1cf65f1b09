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
    ws = await openWorkspace();
  });
  afterAll(async () => {
    await ws?.close();
  });

  async function mapPixels(): Promise<Pixels> {
    const box = (await ws.page.getByTestId('map').boundingBox())!;
    return decodePng(await ws.page.screenshot({ clip: box }));
  }

  it('imports a striped GeoTIFF, opens it through a quick look and an overview copy, and draws it over the basemap', async () => {
    const page = ws.page;
    await waitForMap(page);
    await openPanel(page, 'library');
    const file = path.join(ws.dir, 'striped-shell.tif');
    copyFileSync(fixturePath('utm33n-striped'), file);
    await page.getByTestId('import-path').fill(file);
    await page.getByTestId('import-button').click();
    const row = page.locator('article[data-file="striped-shell.tif"]');
    await row.waitFor({ timeout: 15_000 });
    const id = (await row.getAttribute('data-testid'))!.slice('entry-'.length);
    // Zoomed to its footprint first, so the comparison below is the same view with and without it.
    await row.getByRole('button', { name: 'Zoom to' }).click();
    await page.waitForTimeout(800);
    const before = await mapPixels();

    await page.getByTestId(`open-${id}`).click();
    const layer = page.getByTestId(`layer-${id}`);
    await expect.poll(() => layer.getAttribute('data-status'), { timeout: 30_000 }).toBe('ready');
    await expect.poll(() => layer.innerText()).toMatch(/overview copy/);
    await page.waitForTimeout(400);
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
