import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { startBrowserHost, type BrowserHost } from '../../main/hosts/browser-host';
import { DEMO_PROFILE_ID, MemoryKeychainBackend } from '../../main/keychain';
import { createApp, type SwathApp } from '../../main/services/app';
import { startSimulator } from '../../main/simulator';
import type { Watch } from '../../main/watches/store';
import { launchChromium } from '../e2e/chromium';
import { MAP_HOOK, waitForMapStill } from '../e2e/workspace-harness';
import { median, spread, type Figure } from './method.js';
import { benchBuild } from './renderer.bench.js';

/**
 * The Watches panel at scale (issue 25): the demo profile with SWATH_BENCH_WATCHES (default 400) paused
 * watches of SWATH_BENCH_WATCH_DATES (default 100) downloaded dates each, in watches.json as main keeps
 * it. The real app core behind the browser host, Chromium; from a click on the Watches rail button to
 * its first card drawn and two frames painted, on a fresh page each time (median of 3):
 *  - watches-panel-ms (target ≤ 300 ms); watches-dom-nodes: elements in the panel once drawn.
 * SWATH_BENCH_SHOTS saves a screenshot. Figures are printed, never asserted.
 */

const DAY = 86_400_000;

function seedWatches(userData: string, n: number, dates: number): void {
  const start = Date.parse('2025-01-01T00:00:00Z');
  const at = new Date(start).toISOString();
  const watches: Watch[] = [];
  for (let i = 0; i < n; i++) {
    const x = 5 + (i % 40) * 0.3;
    const y = 45 + Math.floor(i / 40) * 0.3;
    watches.push({
      id: `bench-watch-${i}`, profileId: DEMO_PROFILE_ID, name: `Field ${i}`, source: { kind: 'aoi', orderId: null, recurring: null },
      area: { Wkt: `POLYGON((${x} ${y}, ${x + 0.1} ${y}, ${x + 0.1} ${y + 0.1}, ${x} ${y + 0.1}, ${x} ${y}))` },
      model: 'Stratus2', constellations: ['Sentinel2'], from: '2025-01-01', to: null,
      settings: { EpsgProjection: 32633, Bandnames: 'ndvi', DataType: 'INT16', Resolution: 10, PixelSelectionMode: 'intersect' },
      capEur: null, everyHours: 24, state: 'paused', notice: null, running: false, lastRunAt: at, lastResult: `${dates} dates downloaded`,
      nextRunAt: null, failures: 0, allowOverMonth: null, createdAt: at, updatedAt: at,
      dates: Array.from({ length: dates }, (_, k) => ({
        date: new Date(start + k * 3 * DAY).toISOString().slice(0, 10), state: 'downloaded' as const, libraryIds: [`bench-${i}-${k}`],
        files: [`/nowhere/bench-${i}-${k}.tif`], jobId: null, costEur: 0.5, at,
      })),
    });
  }
  writeFileSync(path.join(userData, 'watches.json'), JSON.stringify({ version: 1, watches }));
}

export async function benchWatches(): Promise<Figure[]> {
  const n = Number(process.env.SWATH_BENCH_WATCHES ?? 400);
  const dates = Number(process.env.SWATH_BENCH_WATCH_DATES ?? 100);
  const shots = process.env.SWATH_BENCH_SHOTS;
  const dir = mkdtempSync(path.join(os.tmpdir(), 'swath-bench-watches-'));
  let app: SwathApp | null = null;
  let host: BrowserHost | null = null;
  let browser: Browser | null = null;
  const build = benchBuild();
  try {
    const userData = path.join(dir, 'user');
    mkdirSync(userData, { recursive: true });
    seedWatches(userData, n, dates);
    app = await createApp({
      userDataDir: userData, downloadsDir: path.join(dir, 'Downloads'), keychainBackend: new MemoryKeychainBackend(),
      version: '0.0.0-bench', platform: process.platform, startSimulator, emit: (e, p) => host?.emit(e, p),
    });
    host = await startBrowserHost({ rendererDir: path.join(build.dir, 'renderer'), handlers: app.handlers, rasters: app.rasters, greeting: () => [{ event: 'connection:state', payload: app!.connection() }] });
    browser = await launchChromium();
    const opens: number[] = [];
    let nodes = 0;
    for (let i = 0; i < 3; i++) {
      const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
      await context.addInitScript(MAP_HOOK);
      const page = await context.newPage();
      await page.goto(host.url);
      await waitForMapStill(page);
      const t = performance.now();
      await page.locator('nav[aria-label="Panels"] [data-panel="watches"]').click();
      await page.locator('[data-testid=watch-card]').first().waitFor({ timeout: 60_000 });
      await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
      opens.push(performance.now() - t);
      if (i === 2) {
        nodes = await page.evaluate(() => document.querySelectorAll('[data-testid=watches-panel] *, main.side *').length);
        if (shots) {
          mkdirSync(shots, { recursive: true });
          await page.screenshot({ path: path.join(shots, `watches-${n}x${dates}.png`) });
        }
      }
      await context.close();
    }
    return [
      { name: 'watches-panel-ms', value: Math.round(median(opens)), unit: 'ms', note: `${n} watches × ${dates} dates: click on Watches to its first card drawn and two frames painted (browser host, headless Chromium, the click and the wait through playwright), fresh page each time, median of 3: ${spread(opens, 0)}; target ≤ 300 ms` },
      { name: 'watches-dom-nodes', value: nodes, unit: 'nodes', note: `elements in the side panel with the Watches panel drawn (${n} watches × ${dates} dates)` },
    ];
  } finally {
    await browser?.close().catch(() => undefined);
    await host?.close().catch(() => undefined);
    await app?.close().catch(() => undefined);
    build.cleanup();
    rmSync(dir, { recursive: true, force: true });
  }
}
