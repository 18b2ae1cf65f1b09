import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { startBrowserHost, type BrowserHost } from '../../../../main/hosts/browser-host';
import type { StartSimulator } from '../../../../main/app/embedded-service';
import { MemoryKeychainBackend } from '../../../../main/profiles';
import type { HostConfirm } from '../../../../main/platform/confirm';
import { createApp, type SwathApp } from '../../../../main/app/app';
import type { RunningSimulator } from '../../../../simulator';
import type { FaultConfig } from '../../../../simulator/faults';
import type { Lifecycle } from '../../../../simulator/state';
import { launchChromium } from '../../../e2e/chromium';
import { styledSimulator } from '../../../simulator/helpers';

/** The Berlin AOI the tasking end-to-end tests order (inside the simulator's demo area). */
export const AOI_WKT = 'POLYGON((13.30 52.45, 13.42 52.45, 13.42 52.53, 13.30 52.53, 13.30 52.45))';

/** A running app (browser host + in-process simulator) with Chromium on its page. */
export interface TaskingHarness {
  page: Page;
  sim: RunningSimulator;
  /** The x-api-key the embedded demo service accepts in this run (a fresh one each run). */
  key: string;
  host: BrowserHost;
  app: SwathApp;
  /** Page errors seen so far. */
  errors: string[];
  shot(name: string): Promise<void>;
  close(): Promise<void>;
}

/**
 * Starts the app core with its own simulator (order lifecycle shortened for
 * tests), serves the built renderer through the browser host, opens it in
 * Chromium, waits for the demo service and opens the Tasking panel.
 */
export async function startTaskingHarness(opts: {
  lifecycle?: Partial<Lifecycle>;
  /** Fault rates the simulator reads on every request: change them while the test runs. */
  faults?: FaultConfig;
  viewport?: { width: number; height: number };
  /** The simulator's answer style ('production' or 'variant'; default SWATH_SIM_SHAPES's). */
  shapes?: string;
  /** Stands in for the desktop app's native dialog (the browser host has none, so main refuses what needs it). */
  confirm?: HostConfirm;
} = {}): Promise<TaskingHarness> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'swath-tasking-e2e-'));
  let sim: RunningSimulator | null = null;
  let key = '';
  const start: StartSimulator = async (o) => {
    key = Object.keys(o.apiKeys ?? {})[0] ?? '';
    sim = await styledSimulator(opts.shapes)({ ...o, lifecycle: opts.lifecycle, ...(opts.faults ? { faults: opts.faults } : {}) });
    return sim;
  };
  let host: BrowserHost | null = null;
  const app = await createApp({
    userDataDir: dir, downloadsDir: path.join(dir, 'Downloads'), keychainBackend: new MemoryKeychainBackend(), version: '0.0.0-test',
    platform: process.platform, startSimulator: start, emit: (e, p) => host?.emit(e, p), confirm: opts.confirm,
  });
  host = await startBrowserHost({
    rendererDir: path.join(process.env.SWATH_E2E_BUILD!, 'renderer'), handlers: app.handlers, secrets: app.secrets, rasters: app.rasters,
    greeting: () => [{ event: 'connection:state', payload: app.connection() }],
  });
  let browser: Browser | null = null;
  try {
    browser = await launchChromium();
    const page = await browser.newPage({ viewport: opts.viewport ?? { width: 1440, height: 1000 } });
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    // MapView hands its map to this hook, so tests can turn lon/lat into screen pixels.
    await page.addInitScript(() => {
      (window as unknown as { __SWATH_PERF__: object }).__SWATH_PERF__ = {};
    });
    await page.goto(host.url);
    await page.locator('[data-testid="connection-state"]').filter({ hasText: 'Connected' }).waitFor({ timeout: 20_000 });
    await page.locator('[data-panel="tasking"]').click();
    await page.locator('[data-testid="tasking-panel"]').waitFor({ timeout: 15_000 });
    mkdirSync('test-results', { recursive: true });
    const b = browser;
    const h = host;
    return {
      page, sim: sim!, key, host: h, app, errors,
      shot: async (name) => {
        // Each answer style but production keeps its own screenshots.
        const style = opts.shapes && opts.shapes !== 'production' ? `-${opts.shapes}` : '';
        await page.screenshot({ path: `test-results/${name}${style}.png` });
      },
      close: async () => {
        await b.close();
        await h.close();
        await app.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (e) {
    await browser?.close();
    await host.close();
    await app.close();
    rmSync(dir, { recursive: true, force: true });
    throw e;
  }
}

/** Imports a WKT AOI through the map toolbar's import dialog. */
export async function importAoi(page: Page, wkt = AOI_WKT): Promise<void> {
  await page.locator('[data-testid="import-aoi"]').click();
  await page.locator('[data-testid="import-text"]').fill(wkt);
  await page.locator('[data-testid="import-submit"]').click();
  await page.locator('[data-testid="aoi-card"]').waitFor();
}

/** Sets a date input (YYYY-MM-DD) the way a user does. */
export async function setDate(page: Page, testid: string, value: string): Promise<void> {
  await page.locator(`[data-testid="${testid}"]`).fill(value);
}

/** A date N days from today (UTC), YYYY-MM-DD. */
export function daysFromToday(n: number): string {
  const d = new Date();
  d.setUTCDate(d.getUTCDate() + n);
  return d.toISOString().slice(0, 10);
}

/** Page coordinates of a lon/lat on the map (the view is Web Mercator). */
export async function mapPixel(page: Page, lon: number, lat: number): Promise<{ x: number; y: number }> {
  return page.evaluate(([lon, lat]) => {
    const hook = (window as unknown as { __SWATH_PERF__: { map: { getPixelFromCoordinate(c: number[]): number[]; getTargetElement(): HTMLElement } } }).__SWATH_PERF__;
    const r = 6378137;
    const coord = [(lon * Math.PI / 180) * r, Math.log(Math.tan(Math.PI / 4 + (lat * Math.PI / 180) / 2)) * r];
    const px = hook.map.getPixelFromCoordinate(coord);
    const box = hook.map.getTargetElement().getBoundingClientRect();
    return { x: box.left + px[0]!, y: box.top + px[1]! };
  }, [lon, lat] as const);
}

/** Centre [lon, lat] of a WKT polygon's bounding box. */
export function wktCenter(wkt: string): [number, number] {
  const nums = [...wkt.matchAll(/(-?\d+(?:\.\d+)?)\s+(-?\d+(?:\.\d+)?)/g)].map((m) => [Number(m[1]), Number(m[2])] as const);
  const lons = nums.map((n) => n[0]);
  const lats = nums.map((n) => n[1]);
  return [(Math.min(...lons) + Math.max(...lons)) / 2, (Math.min(...lats) + Math.max(...lats)) / 2];
}
