import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBrowserHost, type BrowserHost } from '../../main/hosts/browser-host';
import { MemoryKeychainBackend } from '../../main/profiles';
import { createApp, type SwathApp } from '../../main/app/app';
import { forkedSimulator } from '../../main/hosts/simulator-process';
import { fixturePath, gdalRecord } from '../fixtures/rasters';
import { writeTestTiff } from '../main/library/decimate-helpers';
import { chromiumAvailable, launchChromium } from './chromium';
import { buildPreviewHarness } from './preview-harness/build';
import { decodePng, pixelAt, regionStats, type Pixels } from './preview-pixels';

// The offline preview end to end: the real main process (demo service, downloads, library,
// overview copies, raster protocol) behind the browser host, the real Library panel and store on
// one OpenLayers map in Chromium, with every request that does not go to the host aborted.

const HAS_CHROMIUM = chromiumAvailable();
const HAS_GDAL = spawnSync('gdalinfo', ['--version']).status === 0;
const BACKGROUND: [number, number, number] = [0x20, 0x30, 0x40];

interface Hooks {
  __swathPreview: { library: any; preview: any; map: any };
  swath: any;
}

describe.skipIf(!HAS_CHROMIUM)('raster preview in Chromium through the browser host, offline', () => {
  let dir: string;
  let app: SwathApp;
  let host: BrowserHost;
  let browser: Browser;
  let page: Page;
  const outside: string[] = [];
  const pageErrors: string[] = [];
  let composite = { id: '', file: '' };

  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'swath-preview-e2e-'));
    app = await createApp({
      userDataDir: dir, downloadsDir: path.join(dir, 'Downloads'), keychainBackend: new MemoryKeychainBackend(),
      version: '0.0.0-test', platform: process.platform, startSimulator: forkedSimulator(), emit: (e, p) => host?.emit(e, p),
    });
    host = await startBrowserHost({
      rendererDir: await buildPreviewHarness(), handlers: app.handlers, secrets: app.secrets, rasters: app.rasters,
      greeting: () => [{ event: 'connection:state', payload: app.connection() }],
    });
    browser = await launchChromium();
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    // No network but the host: anything else is aborted and recorded.
    await context.route('**/*', (route) => {
      const url = route.request().url();
      if (url.startsWith(host.origin)) return route.continue();
      outside.push(url);
      return route.abort('internetdisconnected');
    });
    page = await context.newPage();
    page.on('pageerror', (e) => pageErrors.push(e.message));
    await page.goto(host.url);
    await page.waitForSelector('[data-testid=library-panel]');
    mkdirSync('test-results', { recursive: true });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await host?.close();
    await app?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const evaluate = <T>(fn: (w: Hooks) => T | Promise<T>): Promise<T> => page.evaluate(`(${fn.toString()})(window)`) as Promise<T>;

  async function mapShot(name?: string): Promise<{ pixels: Pixels; box: { x: number; y: number; width: number; height: number } }> {
    const map = page.locator('[data-testid=map]');
    const box = (await map.boundingBox())!;
    const png = await page.screenshot({ clip: box });
    if (name) await page.screenshot({ path: `test-results/${name}.png` });
    return { pixels: decodePng(png), box };
  }

  async function waitReady(id: string): Promise<void> {
    await expect.poll(() => page.getAttribute(`[data-testid=layer-${id}]`, 'data-status'), { timeout: 60_000 }).toMatch(/ready|error/);
    const message = await page.locator(`[data-testid=layer-${id}] [data-testid=layer-error]`).count();
    expect(message, await page.locator(`[data-testid=layer-${id}]`).innerText()).toBe(0);
    // The first complete frame is marked by the store once every visible tile is drawn.
    await page.evaluate((key) => new Promise<void>((resolve) => {
      const check = () => {
        const l = (window as unknown as Hooks).__swathPreview.preview.layers.find((x: any) => x.key === key);
        if (l?.timing.renderedMs != null) resolve();
        else setTimeout(check, 50);
      };
      check();
    }), id);
  }

  async function importFixture(name: string): Promise<string> {
    const file = path.join(dir, `${name}.tif`);
    copyFileSync(fixturePath(name), file);
    await page.fill('[data-testid=import-path]', file);
    await page.click('[data-testid=import-button]');
    const row = page.locator(`article[data-file="${name}.tif"]`);
    await row.waitFor({ timeout: 15_000 });
    return (await row.getAttribute('data-testid'))!.slice('entry-'.length);
  }

  async function inspectAt(x: number, y: number): Promise<{ col: number; row: number; dns: number[]; lonLat: [number, number]; text: string }> {
    const insp = page.locator('[data-testid=pixel-inspector]');
    const stamp = () => evaluate((w) => JSON.stringify(w.__swathPreview.preview.inspector));
    const previous = await stamp();
    await page.mouse.move(x, y);
    await page.mouse.click(x, y);
    // A new reading, pinned by the click, with values.
    await expect.poll(async () => {
      const now = await stamp();
      return now !== previous && JSON.parse(now)?.pinned === true && JSON.parse(now).values.length > 0;
    }, { timeout: 10_000 }).toBe(true);
    const text = await insp.innerText();
    const px = /col (\d+), row (\d+)/.exec(await insp.locator('[data-testid=inspector-pixel]').innerText())!;
    const dns = (await insp.locator('[data-role=dn]').allInnerTexts()).map(Number);
    const lonLat = (await insp.locator('[data-testid=inspector-lonlat]').innerText()).split(',').map((s) => Number(s.trim())) as [number, number];
    return { col: Number(px[1]), row: Number(px[2]), dns, lonLat, text };
  }

  /** Hovers and clicks GDAL's recorded lon/lat probe of a fixture and checks the inspector against GDAL's pixel, line and values. */
  async function inspectProbe(name: string): Promise<void> {
    const g = gdalRecord(name).geo[0]!;
    const px = await page.evaluate(([lon, lat]) => {
      const map = (window as unknown as Hooks).__swathPreview.map;
      if (map.getView().getProjection().getCode() !== 'EPSG:3857') throw new Error('expected a 3857 view');
      // ol/proj is not on window; the spherical Mercator forward formula is all a 3857 view needs.
      const x = (lon! * Math.PI * 6378137) / 180;
      const y = Math.log(Math.tan(((90 + lat!) * Math.PI) / 360)) * 6378137;
      return map.getPixelFromCoordinate([x, y]) as [number, number];
    }, [g.lon, g.lat]);
    const box = (await page.locator('[data-testid=map]').boundingBox())!;
    const read = await inspectAt(box.x + px[0], box.y + px[1]);
    expect([read.col, read.row], name).toEqual([g.pixel, g.line]);
    expect(read.dns, name).toEqual(g.values);
  }

  it('downloads a composite from the demo service, opens it, and the canvas shows imagery', async () => {
    const job = await evaluate(async (w) => {
      const search = await w.swath.imagerySearch({ request: { Wkt: 'POLYGON((13.36 52.48, 13.45 52.48, 13.45 52.53, 13.36 52.53, 13.36 52.48))', From: '2026-01-01', Until: null } });
      const dates = search.data.data.ModelImageDates[0].DatesByGeog[0].Dates;
      const queued = await w.swath.downloadsEnqueue({
        kind: 'composite',
        request: { Wkt: 'POLYGON((13.36 52.48, 13.45 52.48, 13.45 52.53, 13.36 52.53, 13.36 52.48))', Date: dates.at(-1), Model: 'Stratus2', Resolution: 10, EpsgProjection: 32633, Bandnames: 'B4,B3,B2,B8' },
      });
      return queued;
    });
    expect(job.ok, JSON.stringify(job)).toBe(true);
    await expect.poll(async () => (await evaluate((w) => w.swath.downloadsList())).data.jobs[0].state, { timeout: 60_000 }).toBe('done');
    const done = (await evaluate((w) => w.swath.downloadsList())).data.jobs[0];
    composite = { id: done.libraryId, file: done.file };
    expect(composite.id).toBeTruthy();
    // The library panel follows library:changed and shows the new raster with its metadata.
    const row = page.locator(`[data-testid=entry-${composite.id}]`);
    await row.waitFor();
    await expect.poll(() => row.innerText()).toMatch(/EPSG:32633/);
    expect(await row.innerText()).toMatch(/B4 B3 B2 B8/);
    await expect.poll(() => row.locator('.thumb img').count(), { timeout: 15_000 }).toBe(1);

    await page.click(`[data-testid=open-${composite.id}]`);
    await waitReady(composite.id);
    const { pixels } = await mapShot('preview-composite-rgb');
    const centre = { x: Math.round(pixels.width * 0.3), y: Math.round(pixels.height * 0.3), width: Math.round(pixels.width * 0.4), height: Math.round(pixels.height * 0.4) };
    const stats = regionStats(pixels, BACKGROUND, centre);
    expect(stats.paintedFraction).toBeGreaterThan(0.95);
    expect(stats.lumaStd).toBeGreaterThan(8);
    expect(stats.colours).toBeGreaterThan(100);
    const layer = await evaluate((w) => w.__swathPreview.preview.layers[0]);
    expect(layer.display.mode).toBe('rgb');
    expect(layer.channels.map((c: any) => c.label)).toEqual(['Red: B4', 'Green: B3', 'Blue: B2']);
    // 2-98 % from the overview histogram, in reflectance.
    for (const [lo, hi] of layer.ranges) expect(lo >= 0 && hi <= 1 && hi > lo).toBe(true);
  });

  it.skipIf(!HAS_GDAL)('the pixel inspector shows the values GDAL reads at that pixel, and the map pixel has the colour of those values', async () => {
    const { pixels, box } = await mapShot();
    const sx = Math.round(box.width * 0.43);
    const sy = Math.round(box.height * 0.57);
    const read = await inspectAt(box.x + sx, box.y + sy);
    const gdal = spawnSync('gdallocationinfo', ['-valonly', composite.file, String(read.col), String(read.row)], { encoding: 'utf8' }).stdout.trim().split(/\s+/).map(Number);
    expect(read.dns).toEqual(gdal);
    // GDAL finds the same pixel from the lon/lat the inspector shows.
    const xml = spawnSync('gdallocationinfo', ['-xml', '-wgs84', composite.file, String(read.lonLat[0]), String(read.lonLat[1])], { encoding: 'utf8' }).stdout;
    expect(Number(/pixel="(\d+)"/.exec(xml)![1])).toBe(read.col);
    expect(Number(/line="(\d+)"/.exec(xml)![1])).toBe(read.row);
    expect(read.text).toMatch(/NDVI/);
    // The rendered colour is the stretch of GDAL's values at that pixel or a neighbour (nearest-neighbour resampling).
    const layer = await evaluate((w) => w.__swathPreview.preview.layers[0]);
    const ranges: [number, number][] = layer.ranges;
    const seen = pixelAt(pixels, sx, sy);
    let best = Infinity;
    for (let dy = -1; dy <= 1; dy++) {
      for (let dx = -1; dx <= 1; dx++) {
        const v = spawnSync('gdallocationinfo', ['-valonly', composite.file, String(read.col + dx), String(read.row + dy)], { encoding: 'utf8' }).stdout.trim().split(/\s+/).map(Number);
        const expected = [0, 1, 2].map((k) => 255 * Math.min(1, Math.max(0, (v[k]! / 10000 - ranges[k]![0]) / (ranges[k]![1] - ranges[k]![0]))));
        best = Math.min(best, Math.max(...expected.map((e, k) => Math.abs(e - seen[k]!))));
      }
    }
    expect(best).toBeLessThanOrEqual(6);
  });

  it('switches to NDVI computed in the layer style, with a diverging ramp and its histogram', async () => {
    const before = (await mapShot()).pixels;
    await page.click('[data-testid=mode-expression]');
    await page.click('[data-testid=expr-ndvi]');
    await page.waitForTimeout(300);
    await page.evaluate(() => new Promise<void>((resolve) => {
      const map = (window as unknown as Hooks).__swathPreview.map;
      map.once('rendercomplete', () => resolve());
      map.render();
    }));
    const { pixels } = await mapShot('preview-composite-ndvi');
    const layer = await evaluate((w) => w.__swathPreview.preview.layers[0]);
    expect(layer.display).toMatchObject({ mode: 'expression', expression: 'ndvi', ramp: 'rdylgn' });
    expect(await page.locator('[data-testid^=histogram-]').count()).toBe(1);
    // NDVI of a landscape with fields and water spans negative to strongly positive values.
    const [lo, hi] = layer.ranges[0];
    expect(lo).toBeLessThan(0.3);
    expect(hi).toBeGreaterThan(0.5);
    const c = { x: Math.round(pixels.width * 0.3), y: Math.round(pixels.height * 0.3), width: Math.round(pixels.width * 0.4), height: Math.round(pixels.height * 0.4) };
    let changed = 0;
    let greenish = 0;
    for (let y = c.y; y < c.y + c.height; y += 4) {
      for (let x = c.x; x < c.x + c.width; x += 4) {
        const a = pixelAt(before, x, y);
        const b = pixelAt(pixels, x, y);
        if (Math.abs(a[0] - b[0]) + Math.abs(a[1] - b[1]) + Math.abs(a[2] - b[2]) > 30) changed++;
        if (b[1] > b[2] + 40) greenish++;
      }
    }
    const n = (c.width / 4) * (c.height / 4);
    expect(changed / n).toBeGreaterThan(0.5);
    expect(greenish / n).toBeGreaterThan(0.2);
    // The inspector's NDVI equals (B8-B4)/(B8+B4) of the DNs it shows.
    const { box } = await mapShot();
    const read = await inspectAt(box.x + box.width * 0.5, box.y + box.height * 0.5);
    const ndvi = Number(/NDVI\s+(-?[\d.]+)/.exec(read.text)![1]);
    expect(ndvi).toBeCloseTo((read.dns[3]! - read.dns[0]!) / (read.dns[3]! + read.dns[0]!), 3);
  });

  it('opens a UTM and a 3857 raster side by side, with a compare swipe', async () => {
    await page.click(`[data-testid=close-${composite.id}]`);
    const utm = await importFixture('utm33n-cog');
    const merc = await importFixture('mercator-rgb-uint8');
    await page.click(`[data-testid=open-${utm}]`);
    await waitReady(utm);
    await page.click(`[data-testid=open-${merc}]`);
    await waitReady(merc);
    const layers = await evaluate((w) => w.__swathPreview.preview.layers.map((l: any) => [l.key, l.epsg, l.status]));
    expect(layers).toEqual([[merc, 3857, 'ready'], [utm, 32633, 'ready']]);
    // The UTM file lies north of the 3857 one, overlapping a little: show both.
    const boxes = ['utm33n-cog', 'mercator-rgb-uint8'].map((n) => gdalRecord(n).wgs84Extent!);
    const lons = boxes.flat().map((p) => p[0]);
    const lats = boxes.flat().map((p) => p[1]);
    const utmOnly: [number, number] = [13.45, 52.56];
    const mercOnly: [number, number] = [13.43, 52.487];
    const [pu, pm] = await page.evaluate(([box, a, b]) => {
      const map = (window as unknown as Hooks).__swathPreview.map;
      const merc = (p: number[]) => [(p[0]! * Math.PI * 6378137) / 180, Math.log(Math.tan(((90 + p[1]!) * Math.PI) / 360)) * 6378137];
      const sw = merc([box[0]!, box[1]!]);
      const ne = merc([box[2]!, box[3]!]);
      map.getView().fit([sw[0], sw[1], ne[0], ne[1]], { padding: [20, 20, 20, 20] });
      map.renderSync();
      return [map.getPixelFromCoordinate(merc(a!)), map.getPixelFromCoordinate(merc(b!))] as [number, number][];
    }, [[Math.min(...lons), Math.min(...lats), Math.max(...lons), Math.max(...lats)], utmOnly, mercOnly] as const);
    await page.evaluate(() => new Promise<void>((resolve) => {
      const map = (window as unknown as Hooks).__swathPreview.map;
      map.once('rendercomplete', () => resolve());
      map.render();
    }));
    const painted = (p: Pixels, at: [number, number]) => regionStats(p, BACKGROUND, { x: Math.round(at[0]) - 4, y: Math.round(at[1]) - 4, width: 9, height: 9 }).paintedFraction;
    let shot = await mapShot('preview-side-by-side-utm-3857');
    expect(painted(shot.pixels, pu!)).toBe(1);
    expect(painted(shot.pixels, pm!)).toBe(1);

    // Compare: the top layer (3857) shows only left of the divider.
    await page.locator('[data-testid=compare-toggle]').check();
    await page.waitForSelector('[data-testid=swipe-divider]');
    const at = async (position: number) => {
      await evaluate(new Function('w', `w.__swathPreview.preview.setComparePosition(${position})`) as never);
      // A complete frame drawn after the divider moved.
      await page.evaluate(() => new Promise<void>((resolve) => {
        const map = (window as unknown as Hooks).__swathPreview.map;
        map.once('rendercomplete', () => resolve());
        map.render();
      }));
      return mapShot();
    };
    shot = await at((pm![0] - 30) / shot.pixels.width);
    expect(painted(shot.pixels, pm!)).toBe(0);
    expect(painted(shot.pixels, pu!)).toBe(1);
    shot = await at((pm![0] + 30) / shot.pixels.width);
    expect(painted(shot.pixels, pm!)).toBe(1);
    await mapShot('preview-compare-utm-3857');
    // The divider moves with the keyboard too.
    const before = await evaluate((w) => w.__swathPreview.preview.compare.position);
    await page.focus('[data-testid=swipe-divider]');
    await page.keyboard.press('ArrowLeft');
    expect(await evaluate((w) => w.__swathPreview.preview.compare.position)).toBeCloseTo(before - 0.02, 5);
    await page.locator('[data-testid=compare-toggle]').uncheck();
    expect(await page.locator('[data-testid=swipe-divider]').count()).toBe(0);
    // Opacity of a layer, and the order of the stack.
    await page.locator(`[data-testid=layer-${merc}] [data-testid=opacity]`).fill('0.3');
    const olLayers = () => evaluate((w) => w.__swathPreview.map.getLayers().getArray().filter((l: any) => l.get('swathPreview')).map((l: any) => [l.get('swathPreview'), l.getOpacity(), l.getZIndex()]) as [string, number, number][]);
    const byKey = new Map((await olLayers()).map((x) => [x[0], x]));
    expect(byKey.get(merc)![1]).toBeCloseTo(0.3, 2);
    expect(byKey.get(merc)![2]).toBeGreaterThan(byKey.get(utm)![2]);
    await page.locator(`[data-testid=layer-${merc}] button[title="Move down"]`).click();
    const after = new Map((await olLayers()).map((x) => [x[0], x]));
    expect(after.get(merc)![2]).toBeLessThan(after.get(utm)![2]);
    await page.click(`[data-testid=close-${merc}]`);
    await page.click(`[data-testid=close-${utm}]`);
  });

  it('previews a striped file through an overview copy (progress, then cached), EPSG:2154 from the bundled set, and a southern UTM file', async () => {
    const striped = await importFixture('utm33n-striped');
    await page.click(`[data-testid=open-${striped}]`);
    await waitReady(striped);
    const l = await evaluate((w) => w.__swathPreview.preview.layers[0]);
    expect(l.rasterId).toBe(`ovr-${striped}`);
    expect(l.note).toMatch(/overview copy/);
    // The inspector reads the original file: the values GDAL recorded at its probe.
    await inspectProbe('utm33n-striped');
    await page.click(`[data-testid=close-${striped}]`);
    await page.click(`[data-testid=open-${striped}]`);
    await waitReady(striped);
    expect((await evaluate((w) => w.__swathPreview.preview.layers[0])).note).toMatch(/cached/);
    await page.click(`[data-testid=close-${striped}]`);

    for (const name of ['lambert93-2154', 'utm56s-sydney']) {
      const id = await importFixture(name);
      await page.click(`[data-testid=open-${id}]`);
      await waitReady(id);
      const layer = await evaluate((w) => w.__swathPreview.preview.layers[0]);
      expect(layer.epsg).toBe(gdalRecord(name).epsg);
      const { pixels } = await mapShot(`preview-${name}`);
      expect(regionStats(pixels, BACKGROUND, { x: Math.round(pixels.width * 0.4), y: Math.round(pixels.height * 0.4), width: Math.round(pixels.width * 0.2), height: Math.round(pixels.height * 0.2) }).paintedFraction).toBeGreaterThan(0.9);
      // The inspector reads what GDAL recorded at its lon/lat probe.
      await inspectProbe(name);
      await page.click(`[data-testid=close-${id}]`);
    }
  });

  /**
   * Opens a raster from the store and keeps the map's 2D canvas at the first complete frame: the
   * quick look, drawn before the WebGL layer exists. Returns its pixels (CSS px of the map), the
   * layer's status and note at that moment, and the timings.
   */
  async function openCapturingQuickLook(id: string): Promise<{ quick: Pixels; statusAtQuick: string; noteAtQuick: string; timing: any; gaps: number; quickShownBeforeWebgl: boolean }> {
    const got = await page.evaluate(async (key) => {
      const { preview, map } = (window as unknown as Hooks).__swathPreview;
      for (const l of [...preview.layers]) preview.close(l.key);
      let shot: { png: string; statusAtQuick: string; noteAtQuick: string } | null = null;
      // Frames after the first in which the raster is not drawn at all (neither quick look nor tiles shown).
      let gaps = 0;
      // A complete frame after the quick look was on screen and before the WebGL layer had rendered.
      let quickShownBeforeWebgl = false;
      const onFrame = () => {
        const layer = preview.layers.find((l: any) => l.key === key);
        if (!shot || !layer || layer.timing.renderedMs != null) return;
        const mine = map.getLayers().getArray().filter((l: any) => l.get('swathPreview') === key);
        if (!mine.some((l: any) => l.get('quickLook') || l.getOpacity() > 0)) gaps++;
      };
      const onRender = () => {
        const layer = preview.layers.find((l: any) => l.key === key);
        if (layer && layer.timing.firstFrameMs != null && layer.timing.renderedMs == null) quickShownBeforeWebgl = true;
        if (shot || !layer || layer.timing.firstFrameMs != null || layer.status === 'ready') return;
        for (const c of map.getViewport().querySelectorAll('canvas') as NodeListOf<HTMLCanvasElement>) {
          const ctx = c.getContext('2d');
          if (!ctx || !c.width) continue;
          if (!ctx.getImageData(0, 0, c.width, c.height).data.some((v, i) => i % 4 === 3 && v === 255)) continue;
          shot = { png: c.toDataURL('image/png'), statusAtQuick: layer.status, noteAtQuick: layer.note ?? '' };
        }
      };
      map.on('rendercomplete', onRender);
      map.on('postrender', onFrame);
      try {
        await preview.openOnMap(key);
        const layer = preview.layers.find((l: any) => l.key === key);
        while (layer.timing.renderedMs == null) await new Promise((r) => setTimeout(r, 20));
        if (!shot) throw new Error('no quick-look frame was seen');
        return { ...(shot as { png: string; statusAtQuick: string; noteAtQuick: string }), timing: { ...layer.timing }, gaps, quickShownBeforeWebgl };
      } finally {
        map.un('rendercomplete', onRender);
        map.un('postrender', onFrame);
      }
    }, id);
    return { ...got, quick: decodePng(Buffer.from(got.png.slice(got.png.indexOf(',') + 1), 'base64')) };
  }

  /** Compares the quick look with the WebGL frame that replaced it, where the quick look has data. */
  async function expectSamePicture(quick: Pixels, name: string): Promise<void> {
    const { pixels } = await mapShot(`quicklook-${name}-webgl`);
    expect([quick.width, quick.height]).toEqual([pixels.width, pixels.height]);
    let n = 0, close = 0, sum = 0;
    for (let i = 0; i < quick.width * quick.height; i++) {
      if (quick.rgba[i * 4 + 3] !== 255) continue;
      n++;
      const d = Math.max(...[0, 1, 2].map((k) => Math.abs(quick.rgba[i * 4 + k]! - pixels.rgba[i * 4 + k]!)));
      sum += d;
      if (d <= 8) close++;
    }
    // Most of the map: the same pixels, the same colours (both sample the same overview, nearest).
    expect(n, name).toBeGreaterThan(quick.width * quick.height * 0.2);
    expect(close / n, name).toBeGreaterThan(0.95);
    expect(sum / n, name).toBeLessThan(4);
  }

  it('the first frame is a quick look drawn on the CPU, and the WebGL layer that replaces it shows the same picture', async () => {
    // A COG: the quick look comes from the overview the map needs, then the WebGL layer takes over.
    const cog = await openCapturingQuickLook(composite.id);
    expect(cog.statusAtQuick).toBe('loading');
    // The quick look's frame came first (an order of states, not a comparison of times).
    expect(cog.quickShownBeforeWebgl).toBe(true);
    // From the first frame on the raster never disappears while the WebGL layer loads.
    expect(cog.gaps).toBe(0);
    await expectSamePicture(cog.quick, 'cog');
    // A striped file seen for the first time, more than twice the map's size: main makes a quick
    // look (every n-th pixel) at once, the map shows it while the full overview copy is built, then
    // the copy's WebGL layer.
    const file = path.join(dir, 'striped-again.tif');
    // Fields of 150 x 120 px: nearest (quick look) and averaged (copy's overviews) agree inside them.
    writeTestTiff(file, {
      width: 2400, height: 2000, bands: 3, dataType: 'UINT8', nodata: 0,
      value: (x, y, b) => 1 + ((Math.floor(x / 150) * 37 + Math.floor(y / 120) * 53 + b * 71) % 240),
    });
    await page.fill('[data-testid=import-path]', file);
    await page.click('[data-testid=import-button]');
    const row = page.locator('article[data-file="striped-again.tif"]');
    await row.waitFor({ timeout: 15_000 });
    const id = (await row.getAttribute('data-testid'))!.slice('entry-'.length);
    const striped = await openCapturingQuickLook(id);
    expect(striped.statusAtQuick).toBe('building');
    expect(striped.noteAtQuick).toMatch(/quick look/i);
    expect(striped.gaps).toBe(0);
    const layer = await evaluate((w) => w.__swathPreview.preview.layers[0]);
    expect(layer.rasterId).toBe(`ovr-${id}`);
    await expectSamePicture(striped.quick, 'striped');
  });

  it('time series: rasters of one AOI step by date with the slider and arrow keys', async () => {
    await evaluate((w) => {
      const lib = w.__swathPreview.preview;
      for (const l of [...lib.layers]) lib.close(l.key);
    });
    const dates = await evaluate(async (w) => {
      const search = await w.swath.imagerySearch({ request: { Wkt: 'POLYGON((13.40 52.50, 13.42 52.50, 13.42 52.51, 13.40 52.51, 13.40 52.50))', From: '2026-01-01', Until: null } });
      return search.data.data.ModelImageDates[0].DatesByGeog[0].Dates.slice(-3) as string[];
    });
    for (const d of dates) {
      const r = await evaluate(new Function('w', `return w.swath.downloadsEnqueue({ kind: 'composite', request: { Wkt: 'POLYGON((13.40 52.50, 13.42 52.50, 13.42 52.51, 13.40 52.51, 13.40 52.50))', Date: '${d}', Model: 'Stratus2', Resolution: 20, EpsgProjection: 32633, Bandnames: 'rgb' } })`) as never);
      expect((r as any).ok).toBe(true);
    }
    await expect.poll(async () => (await evaluate((w) => w.swath.downloadsList())).data.jobs.filter((j: any) => j.state === 'done').length, { timeout: 60_000 }).toBe(4);
    const series = page.locator('[data-testid=time-series]');
    await series.waitFor();
    expect(await series.innerText()).toMatch(/3 dates/);
    await expect.poll(() => page.locator('[data-testid=series-date]').innerText()).toBe(dates.at(-1));
    await page.focus('[data-testid=series-slider]');
    await page.keyboard.press('ArrowLeft');
    await expect.poll(() => page.locator('[data-testid=series-date]').innerText(), { timeout: 20_000 }).toBe(dates.at(-2));
    await page.keyboard.press('ArrowLeft');
    await expect.poll(() => page.locator('[data-testid=series-date]').innerText(), { timeout: 20_000 }).toBe(dates.at(-3));
    await expect.poll(async () => (await evaluate((w) => w.__swathPreview.preview.layers.map((l: any) => l.date))).join(','), { timeout: 20_000 }).toBe(dates.at(-3));
    // A held key: two steps overlap; the series still ends with one layer, the last date asked for.
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowRight');
    await expect.poll(async () => (await evaluate((w) => w.__swathPreview.preview.layers.map((l: any) => `${l.date}:${l.status}`))).join(','), { timeout: 20_000 }).toBe(`${dates.at(-1)}:ready`);
    expect(await page.locator('[data-testid=series-date]').innerText()).toBe(dates.at(-1));
    await series.scrollIntoViewIfNeeded();
    await page.screenshot({ path: 'test-results/preview-time-series.png' });
  });

  it('nothing but the host was contacted, and the page threw no errors', () => {
    expect(outside).toEqual([]);
    expect(pageErrors).toEqual([]);
  });
});
