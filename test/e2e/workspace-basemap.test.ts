import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumAvailable } from './chromium';
import { fromLonLat } from 'ol/proj';
import { openPanel, openWorkspace, waitForMap, waitForMapStill, type Workspace } from './workspace-harness';

// The basemap in the real renderer: the countries packed at build time draw the first frame (1:110m)
// and are replaced by 1:50m once the start has settled; the online layer's code and tiles stay away until
// Settings turn it on, and its failure (no network here) is reported there.

const HAS_CHROMIUM = chromiumAvailable();
const PERF_HOOK = 'window.__SWATH_PERF__ = {};';

describe.skipIf(!HAS_CHROMIUM)('workspace e2e: basemap', () => {
  let ws: Workspace;
  beforeAll(async () => {
    ws = await openWorkspace({ noPage: true });
  });
  afterAll(async () => {
    await ws?.close();
  });

  it('draws the packed countries, then the finer set, and loads the online layer only when it is turned on', async () => {
    const page = await ws.newPage({ initScript: PERF_HOOK });
    const tileRequests: string[] = [];
    await page.route('https://tile.openstreetmap.org/**', (route) => {
      tileRequests.push(route.request().url());
      return route.abort('internetdisconnected');
    });
    await waitForMap(page);
    const layers = () =>
      page.evaluate(() => {
        const map = (window as unknown as { __SWATH_PERF__: { map: import('ol/Map').default } }).__SWATH_PERF__.map;
        return map.getLayers().getArray().map((l) => {
          const source = (l as unknown as { getSource(): unknown }).getSource() as { getFeatures?: () => { get(k: string): unknown }[]; getTileGrid?: unknown } | null;
          const features = source?.getFeatures?.() ?? [];
          return { basemap: l.get('swathBasemap') === true, tiles: typeof source?.getTileGrid === 'function', visible: l.getVisible(), countries: features.length, named: features.filter((f) => typeof f.get('name') === 'string' && f.get('name') !== '').length };
        });
      });
    // 1:110m has 177 countries, 1:50m 241; each named.
    const counts = async () => (await layers()).filter((l) => l.basemap).map((l) => [l.countries, l.named]);
    expect([[177, 177], [241, 241]]).toContainEqual((await counts())[0]);
    await expect.poll(counts, { timeout: 15_000 }).toEqual([[241, 241]]);
    const tiled = async () => (await layers()).filter((l) => l.tiles).map((l) => l.visible);
    expect(await tiled()).toEqual([]);
    expect(tileRequests).toEqual([]);

    await openPanel(page, 'settings');
    await page.getByTestId('osm-toggle').check();
    const error = page.getByText('OpenStreetMap tiles did not load: the network or tile.openstreetmap.org is unavailable.');
    await error.waitFor({ timeout: 15_000 });
    expect(tileRequests.length).toBeGreaterThan(0);
    expect(await tiled()).toEqual([true]);

    await page.getByTestId('osm-toggle').uncheck();
    await error.waitFor({ state: 'detached', timeout: 10_000 });
    expect(await tiled()).toEqual([false]);
    expect(ws.pageErrors).toEqual([]);
    await page.context().close();
  });

  it('at working zooms loads water and place names offline, and labels the order footprints', async () => {
    // Opens on a saved view of Europe at zoom 4, so no start view zooms in before the check below.
    await ws.app.handlers['settings:set']({ mapView: { center: [10, 50], zoom: 4 } }, { senderUrl: '', signal: new AbortController().signal });
    const page = await ws.newPage({ initScript: PERF_HOOK });
    await waitForMap(page);
    await expect.poll(() => page.getByTestId('map').getAttribute('data-start-view'), { timeout: 20_000 }).toBe('last-view');
    type Hooked = { __SWATH_PERF__: { map: import('ol/Map').default } };
    const context = () =>
      page.evaluate(() => {
        const map = (window as unknown as Hooked).__SWATH_PERF__.map;
        const extent = map.getView().calculateExtent(map.getSize());
        return map.getLayers().getArray().filter((l) => l.get('swathContext')).map((l) => {
          const source = (l as import('ol/layer/Vector').default).getSource()!;
          return { part: l.get('swathContext') as string, features: source.getFeatures().length, inView: source.getFeaturesInExtent(extent).map((f) => String(f.get('name') ?? f.get('kind'))) };
        });
      });
    // The context's layers come once the start has settled; zoomed out, nothing of them is loaded
    // (the parts load when the map zooms in).
    await expect.poll(async () => (await context()).map((c) => c.part), { timeout: 20_000 }).toEqual(['water', 'places-major', 'places-minor']);
    expect((await context()).map((c) => c.features)).toEqual([0, 0, 0]);
    // Berlin at z12: its districts by name, the Spree's lakes and rivers of Natural Earth 1:50m nearby.
    await page.evaluate(([x, y]) => {
      const view = (window as unknown as Hooked).__SWATH_PERF__.map.getView();
      view.setCenter([x!, y!]);
      view.setZoom(12);
    }, fromLonLat([13.40, 52.51]));
    await expect.poll(async () => (await context()).every((c) => c.features > 0), { timeout: 20_000 }).toBe(true);
    const parts = Object.fromEntries((await context()).map((c) => [c.part, c]));
    expect(parts['places-major']!.inView).toEqual(expect.arrayContaining(['Berlin', 'Kreuzberg', 'Neukölln']));
    expect(parts['places-minor']!.inView).toEqual(expect.arrayContaining(['Hansaviertel']));
    await waitForMapStill(page);
    await page.screenshot({ path: 'test-results/workspace-basemap-z12.png' });

    // The orders' footprints carry their id, status and period.
    await openPanel(page, 'tasking');
    await page.getByTestId('tab-orders').click();
    await page.getByTestId('order-row').first().waitFor({ timeout: 20_000 });
    const ids = await page.getByTestId('order-row').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-order')!.slice(0, 8)));
    const labels = () =>
      page.evaluate(() => {
        const map = (window as unknown as Hooked).__SWATH_PERF__.map;
        const layer = map.getLayers().getArray().find((l) => l.get('swathKey') === 'tasking-order-labels') as import('ol/layer/Vector').default | undefined;
        // The text the map draws: the feature's style through the layer's style function.
        const styleOf = layer?.getStyleFunction();
        return (layer?.getSource()?.getFeatures() ?? []).map((f) => String((styleOf!(f, 1) as import('ol/style/Style').default).getText()!.getText()));
      });
    await expect.poll(async () => (await labels()).length).toBe(ids.length);
    for (const id of ids) expect((await labels()).find((t) => t.startsWith(`Order ${id}…`))).toMatch(/ · \w+\n(\d{4}-\d\d-\d\d → |from \d{4}-\d\d-\d\d, recurring)/);
    await page.getByTestId('order-row').first().locator('button').first().click();
    await waitForMapStill(page);
    await page.screenshot({ path: 'test-results/workspace-order-labels.png' });
    expect(ws.pageErrors).toEqual([]);
    await page.context().close();
  });
});
