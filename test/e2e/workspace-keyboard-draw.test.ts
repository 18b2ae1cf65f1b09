import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { chromiumAvailable } from './chromium';
import { openWorkspace, recordMouse, waitForMap, type Workspace } from './workspace-harness';

// Drawing a free polygon AOI without a mouse: the map focused, P starts the polygon
// tool, arrows move the map under the centre cross, Enter adds a vertex there, Enter again
// without moving closes the polygon, Backspace takes the last vertex back.

type Hooked = { __SWATH_PERF__: { map: import('ol/Map').default } };

describe.skipIf(!chromiumAvailable())('workspace e2e: a polygon AOI drawn by keyboard (no mouse event)', () => {
  let ws: Workspace;
  let page: Page;
  let mouse: () => Promise<string[]>;

  /** Waits until the keyboard pan's animation has ended, so the cross is where the next Enter reads it. */
  const still = () => page.waitForFunction(() => !(window as unknown as Hooked).__SWATH_PERF__.map.getView().getAnimating());
  const centre = () => page.evaluate(() => (window as unknown as Hooked).__SWATH_PERF__.map.getView().getCenter()!);
  async function pan(key: string, times: number): Promise<void> {
    for (let i = 0; i < times; i++) {
      await page.keyboard.press(key);
      await still();
    }
  }

  beforeAll(async () => {
    ws = await openWorkspace();
    page = ws.page;
    await waitForMap(page);
    // No mouse event may reach the page: any pointer or mouse event fails the test.
    mouse = await recordMouse(page);
  });
  afterAll(async () => {
    await ws?.close();
  });

  it('P, then Enter at three spots and Enter again: a triangle AOI at those spots; Backspace undoes a vertex', async () => {
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    await expect.poll(() => page.evaluate(() => document.activeElement?.getAttribute('data-testid'))).toBe('map');
    // The draw tools load after the map's first frame.
    await expect.poll(() => page.getByTestId('aoi-toolbar').getAttribute('data-ready')).toBe('true');
    await page.keyboard.press('p');
    await expect.poll(() => page.getByTestId('draw-polygon').getAttribute('aria-pressed')).toBe('true');
    await still();

    const spots: number[][] = [];
    await page.keyboard.press('Enter');
    spots.push(await centre());
    await pan('ArrowRight', 3);
    await page.keyboard.press('Enter');
    spots.push(await centre());
    // A vertex put down by mistake, taken back.
    await pan('ArrowUp', 2);
    await page.keyboard.press('Enter');
    await page.keyboard.press('Backspace');
    await pan('ArrowDown', 5);
    await page.keyboard.press('Enter');
    spots.push(await centre());
    await page.screenshot({ path: 'test-results/keyboard-draw-polygon.png' });
    // Enter again without moving closes it.
    await page.keyboard.press('Enter');

    await expect.poll(() => page.getByTestId('draw-polygon').getAttribute('aria-pressed')).toBe('false');
    await expect.poll(() => page.getByTestId('aoi-card').innerText().catch(() => '')).toMatch(/3 vertices/);
    const ring = await page.evaluate(() => {
      const map = (window as unknown as Hooked).__SWATH_PERF__.map;
      const layer = map.getLayers().getArray().find((l) => (l as import('ol/layer/Vector').default).getSource?.()?.getFeatures?.().some((f) => f.getGeometry()?.getType() === 'Polygon'));
      const f = (layer as import('ol/layer/Vector').default).getSource()!.getFeatures()[0]!;
      return (f.getGeometry() as import('ol/geom/Polygon').default).getCoordinates()[0]!;
    });
    expect(ring).toHaveLength(4);
    for (const [i, s] of spots.entries()) {
      expect(ring[i]![0]).toBeCloseTo(s[0]!, 3);
      expect(ring[i]![1]).toBeCloseTo(s[1]!, 3);
    }
    expect(await mouse()).toEqual([]);
  });
});
