import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumAvailable } from './chromium';
import { openPanel, openWorkspace, waitForMap, type Workspace } from './workspace-harness';

// The basemap in the real renderer: the countries packed at build time draw the first frame (1:110m)
// and are replaced by 1:50m once the map is idle; the online layer's code and tiles stay away until
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
});
