import { copyFileSync, existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixturePath } from '../fixtures/rasters';
import { validateCatalogFolder } from '../main/exports/stac-validator';
import { chromiumAvailable } from './chromium';
import { openPanel, openWorkspace, waitForMap, type Workspace } from './workspace-harness';

// Sharing results through the browser host: rasters imported in the Library panel are exported
// with "Export STAC…" (all, then the ones the filters show); the catalog main wrote under the
// download folder validates against the vendored STAC schemas and its hrefs reach the files.

const HAS_CHROMIUM = chromiumAvailable();

describe.skipIf(!HAS_CHROMIUM)('workspace e2e: STAC export', () => {
  let ws: Workspace;
  beforeAll(async () => {
    ws = await openWorkspace();
  });
  afterAll(async () => {
    await ws?.close();
  });

  it('exports the library as a STAC catalog that validates, then only the rasters shown', async () => {
    const page = ws.page;
    await waitForMap(page);
    await openPanel(page, 'library');
    mkdirSync(ws.downloadsDir, { recursive: true });
    const files = ['utm33n-cog', 'lambert93-2154', 'wgs84-ndvi-index'].map((name) => {
      const file = path.join(ws.downloadsDir, `${name}.tif`);
      copyFileSync(fixturePath(name), file);
      return file;
    });
    await page.getByTestId('import-path').fill(files.join('\n'));
    await page.getByTestId('import-button').click();
    for (const f of files) await page.locator(`article[data-file="${path.basename(f)}"]`).waitFor({ timeout: 15_000 });

    await page.getByTestId('stac-export-button').click();
    const result = page.getByTestId('stac-export-result');
    await result.waitFor({ timeout: 15_000 });
    expect(await result.innerText()).toContain('3 items');
    const catalogFile = (await result.locator('.path').innerText()).trim();
    expect(catalogFile.startsWith(path.join(ws.downloadsDir, 'exports', 'stac-'))).toBe(true);
    await page.screenshot({ path: 'test-results/workspace-stac-export.png' });

    const dir = path.dirname(catalogFile);
    const { items, errors } = validateCatalogFolder(dir);
    expect(errors).toEqual([]);
    expect(items).toHaveLength(3);
    for (const { file, json } of items) {
      const target = path.resolve(path.dirname(file), json.assets.data.href);
      expect(files).toContain(target);
      expect(existsSync(target)).toBe(true);
    }

    // The filters narrow the list: "the N shown" exports only those.
    await page.getByTestId('library-search').fill('lambert');
    await page.getByTestId('stac-scope').selectOption('shown');
    await page.getByTestId('stac-export-button').click();
    await expect.poll(async () => (await result.locator('.path').innerText().catch(() => '')).trim(), { timeout: 15_000 }).not.toBe(catalogFile);
    expect(await result.innerText()).toContain('1 item');
    const second = validateCatalogFolder(path.dirname((await result.locator('.path').innerText()).trim()));
    expect(second.errors).toEqual([]);
    expect(second.items.map((i) => path.basename(i.json.assets.data.href))).toEqual(['lambert93-2154.tif']);
  });
});

describe.skipIf(!HAS_CHROMIUM)('workspace e2e: basemap across the antimeridian', () => {
  it('draws the Arctic and the Pacific without polygons across the world (1:50m, screenshot)', async () => {
    const ws = await openWorkspace({ noPage: true });
    try {
      const page = await ws.newPage({ initScript: 'window.__SWATH_PERF__ = {};' });
      await waitForMap(page);
      // The start view may move to the account's orders: the view is set once the map is up, then the
      // 1:50m countries are awaited. EPSG:3857 centre of 170° E, 60° N at z2.3: Chukotka, Wrangel Island
      // and the Arctic coast in view.
      const widest = async () =>
        page.evaluate(async () => {
          const map = (window as unknown as { __SWATH_PERF__: { map: import('ol/Map').default } }).__SWATH_PERF__.map;
          map.getView().setCenter([18924313.4, 8399737.9]);
          map.getView().setZoom(2.3);
          // A view that is already there does not render again by itself.
          map.render();
          await new Promise((r) => map.once('rendercomplete', r));
          const layer = map.getLayers().getArray().find((l) => l.get('swathBasemap') === true) as unknown as { getSource(): import('ol/source/Vector').default<import('ol/Feature').default<import('ol/geom/MultiPolygon').default>> };
          const features = layer.getSource().getFeatures();
          const world = 2 * 20037508.342789244;
          // A ring left across the antimeridian spans most of the world's width once projected. Only
          // Antarctica's outline legitimately runs from one edge to the other.
          let worst = { name: '', width: 0, countries: features.length };
          for (const f of features) {
            if (f.get('name') === 'Antarctica') continue;
            for (const polygon of f.getGeometry()!.getPolygons()) {
              const [minX, , maxX] = polygon.getExtent();
              const width = (maxX! - minX!) / world;
              if (width > worst.width) worst = { name: f.get('name') as string, width, countries: features.length };
            }
          }
          return worst;
        });
      await expect.poll(async () => (await widest()).countries, { timeout: 15_000 }).toBe(241);
      const worst = await widest();
      // The widest single polygon is a large country (Russia's mainland, about 45 % of the world's width).
      expect(worst.width).toBeGreaterThan(0.3);
      expect(worst.width, worst.name).toBeLessThan(0.5);
      await page.screenshot({ path: 'test-results/basemap-antimeridian.png' });
      expect(ws.pageErrors).toEqual([]);
    } finally {
      await ws.close();
    }
  });
});

describe.skipIf(!HAS_CHROMIUM)('workspace e2e: start view', () => {
  it('starts on the demo account\'s orders, then on the last view after a reload', async () => {
    const ws = await openWorkspace({ noPage: true });
    try {
      const page = await ws.newPage();
      await waitForMap(page);
      const map = page.getByTestId('map');
      await expect.poll(() => map.getAttribute('data-start-view'), { timeout: 20_000 }).toBe('orders');
      await page.waitForTimeout(800);
      await page.screenshot({ path: 'test-results/start-view-orders.png' });
      // The status bar's zoom is well past the continent-wide z4.
      const zoom = Number((await page.locator('[title="Zoom level"]').innerText()).slice(2));
      expect(zoom).toBeGreaterThan(6);
      // Zoom in once; the move is saved to settings, and a fresh page starts there.
      await page.locator('button.ol-zoom-in').click();
      await expect.poll(async () => (await ws.app.handlers['settings:get']({}, { senderUrl: '', signal: new AbortController().signal }) as { mapView?: { zoom: number } }).mapView?.zoom ?? 0, { timeout: 10_000 }).toBeGreaterThan(zoom + 0.5);
      const saved = (await ws.app.handlers['settings:get']({}, { senderUrl: '', signal: new AbortController().signal }) as { mapView: { zoom: number } }).mapView;
      const again = await ws.newPage();
      await waitForMap(again);
      await expect.poll(() => again.getByTestId('map').getAttribute('data-start-view'), { timeout: 20_000 }).toBe('last-view');
      expect(Number((await again.locator('[title="Zoom level"]').innerText()).slice(2))).toBeCloseTo(saved.zoom, 1);
      expect(ws.pageErrors).toEqual([]);
    } finally {
      await ws.close();
    }
  });
});
