import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { DEMO_PROFILE_ID } from '../../main/profiles';
import type { Watch } from '../../main/watches/store';
import { waitForMapStill, waitForStartSettled } from '../e2e/workspace-harness';
import { withAppHost } from './app-host.js';
import { median, spread, type Figure } from './method.js';

/**
 * The Watches panel at scale: the demo profile with SWATH_BENCH_WATCHES (default 400) paused
 * watches of SWATH_BENCH_WATCH_DATES (default 100) downloaded dates each, in a watches.json of an earlier version
 * (imported into swath.db at start). The real app core behind the browser host, Chromium; from a click on the Watches rail button to
 * its first card drawn and two frames painted, on a fresh page each time (median of 3):
 *  - watches-panel-ms (target ≤ 300 ms); watches-panel-page-ms: the same on the window's clock from the
 *    click event; watches-dom-nodes: elements in the panel once drawn;
 *  - watches-list-main-ms, watches-dates-page-main-ms: main's answers to `watches:list` and one
 *    `watches:dates` page, called on the app core's handlers (main's share of the panel's time).
 * SWATH_BENCH_SHOTS saves a screenshot; SWATH_BENCH_PROFILE=<prefix> writes the window's CPU profile of each open
 * (<prefix>-<i>.cpuprofile, Chrome DevTools format). Figures are printed, never asserted.
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
  return withAppHost('watches', (userData) => seedWatches(userData, n, dates), async ({ app, newPage }) => {
    // Main's own part: the `watches:list` answer (every card's summary) and one page of a watch's dates, in the app core.
    const call = (channel: 'watches:list' | 'watches:dates', request: unknown) => app.handlers[channel]!(request as never, { signal: new AbortController().signal } as never);
    const lists: number[] = [];
    const pages: number[] = [];
    for (let i = 0; i < 7; i++) {
      let t = performance.now();
      await call('watches:list', {});
      lists.push(performance.now() - t);
      t = performance.now();
      await call('watches:dates', { id: `bench-watch-${i}`, offset: Math.floor(dates / 2), limit: 200 });
      pages.push(performance.now() - t);
    }
    const opens: number[] = [];
    const inPage: number[] = [];
    let nodes = 0;
    for (let i = 0; i < 3; i++) {
      const page = await newPage();
      await waitForMapStill(page);
      // The click lands on a settled window: the start's own work (the first panel, the orders, what the
      // start defers: the finer coastline, water, place names) is not the panel's.
      await waitForStartSettled(page);
      const cdp = process.env.SWATH_BENCH_PROFILE ? await page.context().newCDPSession(page) : null;
      if (cdp) { await cdp.send('Profiler.enable'); await cdp.send('Profiler.setSamplingInterval', { interval: 200 }); await cdp.send('Profiler.start'); }
      // The window's own clock from the click event: Playwright's checks before it clicks are not the panel's.
      await page.evaluate(() => document.addEventListener('click', (e) => ((window as unknown as { benchClick: number }).benchClick = e.timeStamp), { capture: true, once: true }));
      const t = performance.now();
      await page.locator('nav[aria-label="Panels"] [data-panel="watches"]').click();
      await page.locator('[data-testid=watch-card]').first().waitFor({ timeout: 60_000 });
      inPage.push(await page.evaluate(() => new Promise<number>((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => resolve(performance.now() - (window as unknown as { benchClick: number }).benchClick))))));
      opens.push(performance.now() - t);
      if (cdp) { const { profile } = await cdp.send('Profiler.stop'); writeFileSync(`${process.env.SWATH_BENCH_PROFILE}-${i}.cpuprofile`, JSON.stringify(profile)); }
      if (i === 2) {
        nodes = await page.evaluate(() => document.querySelectorAll('[data-testid=watches-panel] *, main.side *').length);
        if (shots) {
          mkdirSync(shots, { recursive: true });
          await page.screenshot({ path: path.join(shots, `watches-${n}x${dates}.png`) });
        }
      }
      await page.context().close();
    }
    return [
      { name: 'watches-panel-ms', value: Math.round(median(opens)), unit: 'ms', note: `${n} watches × ${dates} dates: click on Watches to its first card drawn and two frames painted (browser host, headless Chromium, the click and the wait through playwright), fresh page each time, median of 3: ${spread(opens, 0)}; target ≤ 300 ms` },
      { name: 'watches-panel-page-ms', value: Math.round(median(inPage)), unit: 'ms', note: `the same opens on the window's clock, from the click event to two frames painted after the first card (without Playwright's checks before its click), median of 3: ${spread(inPage, 0)}` },
      { name: 'watches-list-main-ms', value: Math.round(median(lists) * 10) / 10, unit: 'ms', note: `main's watches:list answer for ${n} watches × ${dates} dates (the handler in the app core, no IPC), median of 7: ${spread(lists, 1)}` },
      { name: 'watches-dates-page-main-ms', value: Math.round(median(pages) * 100) / 100, unit: 'ms', note: `main's watches:dates answer, a page of up to 200 from date ${Math.floor(dates / 2)} of a watch of ${dates}, median of 7: ${spread(pages, 2)}` },
      { name: 'watches-dom-nodes', value: nodes, unit: 'nodes', note: `elements in the side panel with the Watches panel drawn (${n} watches × ${dates} dates)` },
    ];
  });
}
