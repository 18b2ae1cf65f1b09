import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumAvailable } from './chromium';
import { BERLIN_WKT, importAoi, openPanel, openWorkspace, waitForMap, waitForMapStill, type Workspace } from './workspace-harness';

const HAS_CHROMIUM = chromiumAvailable();

describe.skipIf(!HAS_CHROMIUM)('workspace e2e: drawing and importing an AOI', () => {
  let ws: Workspace;
  beforeAll(async () => {
    ws = await openWorkspace();
    await waitForMap(ws.page);
    await openPanel(ws.page, 'imagery');
  });
  afterAll(async () => {
    await ws?.close();
  });

  async function mapBox() {
    return (await ws.page.getByTestId('map').boundingBox())!;
  }

  it('draws a polygon with clicks and a rectangle by dragging; vertices are editable', async () => {
    const page = ws.page;
    const b = await mapBox();
    const cx = b.x + b.width / 2;
    const cy = b.y + b.height / 2;
    await page.getByTestId('draw-polygon').click();
    await expect.poll(() => page.getByTestId('draw-polygon').getAttribute('aria-pressed')).toBe('true');
    for (const [dx, dy] of [[-120, -80], [120, -90], [150, 70], [-100, 90]]) {
      await page.mouse.click(cx + dx!, cy + dy!);
      await page.waitForTimeout(120);
    }
    await page.mouse.dblclick(cx - 130, cy + 10);
    await expect.poll(() => page.getByTestId('aoi-vertices').innerText()).toBe('5');
    expect(await page.getByTestId('aoi-area').innerText()).toMatch(/[\d,.]+ km²/);
    expect(await page.getByTestId('draw-polygon').getAttribute('aria-pressed')).toBe('false');
    await page.screenshot({ path: 'test-results/workspace-aoi-polygon.png' });

    // Drag a vertex: the area changes, the vertex count stays.
    const before = await page.getByTestId('aoi-area').innerText();
    await page.mouse.move(cx + 120, cy - 90);
    await page.mouse.down();
    await page.mouse.move(cx + 170, cy - 150, { steps: 6 });
    await page.mouse.up();
    await expect.poll(() => page.getByTestId('aoi-area').innerText()).not.toBe(before);
    expect(await page.getByTestId('aoi-vertices').innerText()).toBe('5');

    // Rectangle with the keyboard shortcut.
    await page.getByTestId('map').focus();
    await page.keyboard.press('r');
    await expect.poll(() => page.getByTestId('draw-rectangle').getAttribute('aria-pressed')).toBe('true');
    await page.mouse.move(cx - 60, cy - 40);
    await page.mouse.down();
    await page.mouse.move(cx + 80, cy + 60, { steps: 5 });
    await page.mouse.up();
    await expect.poll(() => page.getByTestId('aoi-vertices').innerText()).toBe('4');
    await page.screenshot({ path: 'test-results/workspace-aoi-rectangle.png' });
  });

  it('draws a rectangle by two clicks on opposite corners too', async () => {
    const page = ws.page;
    await waitForMapStill(page);
    const b = await mapBox();
    const cx = b.x + b.width / 2;
    const cy = b.y + b.height / 2;
    // Corners away from the AOI drawn before (its vertices and edges snap within 8 px).
    const first = [cx - 170, cy - 120] as const;
    const second = [cx + 30, cy + 10] as const;
    await page.getByTestId('draw-rectangle').click();
    await expect.poll(() => page.getByTestId('draw-rectangle').getAttribute('aria-pressed')).toBe('true');
    await page.mouse.click(first[0], first[1]);
    // One click keeps the first corner and leaves the tool drawing: the box follows the pointer.
    await page.mouse.move(second[0], second[1], { steps: 4 });
    expect(await page.getByTestId('draw-rectangle').getAttribute('aria-pressed')).toBe('true');
    await page.mouse.click(second[0], second[1]);
    await expect.poll(() => page.getByTestId('draw-rectangle').getAttribute('aria-pressed')).toBe('false');
    expect(await page.getByTestId('aoi-vertices').innerText()).toBe('4');
    // The AOI's corners are where the two clicks were.
    const corners = await page.evaluate(({ first, second, origin }) => {
      type Hooked = { __SWATH_PERF__: { map: import('ol/Map').default } };
      const map = (window as unknown as Hooked).__SWATH_PERF__.map;
      const layer = map.getAllLayers().find((l) => l.get('swathAoi'))!;
      const [minX, minY, maxX, maxY] = (layer.getSource() as import('ol/source/Vector').default).getExtent() as number[];
      const px = (p: readonly number[]) => map.getPixelFromCoordinate(map.getCoordinateFromPixel([p[0]! - origin[0]!, p[1]! - origin[1]!]));
      return { extent: [map.getPixelFromCoordinate([minX!, maxY!]), map.getPixelFromCoordinate([maxX!, minY!])], clicks: [px(first), px(second)] };
    }, { first, second, origin: [b.x, b.y] });
    for (const i of [0, 1]) {
      expect(corners.extent[i]![0]).toBeCloseTo(corners.clicks[i]![0]!, 0);
      expect(corners.extent[i]![1]).toBeCloseTo(corners.clicks[i]![1]!, 0);
    }
    await page.screenshot({ path: 'test-results/workspace-aoi-rectangle-clicks.png' });
  });

  it('imports pasted WKT and GeoJSON (FeatureCollection unwrapped) and exports it again', async () => {
    const page = ws.page;
    await importAoi(page, BERLIN_WKT);
    await expect.poll(() => page.getByTestId('aoi-area').innerText()).toMatch(/^150\.\d\d km²$/);
    await page.getByTestId('copy-wkt').click();
    await expect.poll(() => page.evaluate(() => navigator.clipboard.readText())).toMatch(/^POLYGON\(\(13\.3 52\.45,13\.5 52\.45/);
    await page.getByTestId('copy-geojson').click();
    await expect.poll(async () => JSON.parse(await page.evaluate(() => navigator.clipboard.readText())).type).toBe('Polygon');

    const fc = { type: 'FeatureCollection', features: [{ type: 'Feature', properties: {}, geometry: { type: 'Polygon', coordinates: [[[13.3, 52.45], [13.4, 52.45], [13.4, 52.5], [13.3, 52.45]]] } }] };
    await importAoi(page, JSON.stringify(fc));
    await expect.poll(() => page.getByTestId('aoi-vertices').innerText()).toBe('3');
    expect(await page.getByTestId('aoi-mode-GeoJson').getAttribute('aria-checked')).toBe('true');
  });

  it('names what is wrong: self-intersection, unclosed ring, not a polygon, too large', async () => {
    const page = ws.page;
    const problems = page.getByTestId('aoi-problems');
    await importAoi(page, 'POLYGON((13.3 52.45, 13.5 52.55, 13.5 52.45, 13.3 52.55, 13.3 52.45))');
    await expect.poll(() => problems.innerText()).toMatch(/Self-intersection/);
    await page.waitForTimeout(400);
    await page.screenshot({ path: 'test-results/workspace-aoi-self-intersection.png' });
    await importAoi(page, 'POLYGON((13.3 52.45, 13.5 52.45, 13.5 52.55, 13.3 52.55))');
    await expect.poll(() => problems.innerText()).toMatch(/Unclosed ring/);
    await problems.getByRole('button', { name: 'Close ring' }).click();
    await expect.poll(() => page.getByTestId('aoi-problems').count()).toBe(0);
    await importAoi(page, 'LINESTRING(13.3 52.45, 13.5 52.55)');
    await expect.poll(() => problems.innerText()).toMatch(/Not a polygon/);
    await importAoi(page, 'POLYGON((10 50, 11 50, 11 51, 10 51, 10 50))');
    await expect.poll(() => problems.innerText(), { timeout: 15_000 }).toMatch(/Too large: .* 2,500 km²/);
    expect(await page.getByTestId('search-dates').isDisabled()).toBe(false);
  });

  it('opens .geojson and .wkt files by file input and by drag and drop on the map', async () => {
    const page = ws.page;
    const file = path.join(ws.dir, 'aoi.geojson');
    writeFileSync(file, JSON.stringify({ type: 'Feature', properties: { name: 'x' }, geometry: { type: 'MultiPolygon', coordinates: [[[[13.3, 52.45], [13.4, 52.45], [13.4, 52.5], [13.3, 52.5], [13.3, 52.45]]]] } }));
    await page.getByTestId('toolbar-file-input').setInputFiles(file);
    await expect.poll(() => page.getByTestId('aoi-summary').innerText()).toContain('aoi.geojson');
    expect(await page.getByTestId('aoi-vertices').innerText()).toBe('4');

    const handle = await page.evaluateHandle((text) => {
      const dt = new DataTransfer();
      dt.items.add(new File([text], 'berlin.wkt', { type: 'text/plain' }));
      return dt;
    }, BERLIN_WKT);
    await page.getByTestId('map').dispatchEvent('dragover', { dataTransfer: handle });
    await page.getByTestId('map').dispatchEvent('drop', { dataTransfer: handle });
    await expect.poll(() => page.getByTestId('aoi-summary').innerText()).toContain('berlin.wkt');
    expect(await page.getByTestId('aoi-area').innerText()).toMatch(/^150\.\d\d km²$/);
    await page.screenshot({ path: 'test-results/workspace-aoi-imported.png' });
    expect(ws.pageErrors).toEqual([]);
  });
});
