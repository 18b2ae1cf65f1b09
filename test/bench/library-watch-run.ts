import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import type { BrowserHost } from '../../main/hosts/browser-host';
import type { LibraryEntry } from '../../main/library';
import type { SwathApp } from '../../main/app/app';
import type { WatchSummary } from '../../main/watches';
import { MAP_HOOK } from '../e2e/workspace-harness';
import { median, percentile, type Figure } from './method.js';

/**
 * A watch run with the Library open: the demo service (in its own process, as in the
 * app) is given one historical order of about `downloads` image dates over a small area; a watch of
 * that area downloads every date while a page of the browser host shows the Library, newest added
 * first. Measured:
 *  - library-watch-run-main-block-ms: main's longest block of its own work over the run: the main
 *    thread's CPU time between two turns of a 5 ms timer (the app core, the queue, the library, the
 *    browser host's socket all run on it); the note gives the wall-clock event-loop delay too;
 *  - library-watch-run-shown-ms: for each raster the watch adds, from the library recording it (main)
 *    to the list showing it (the page: the list's top row is that raster or a later one of the same
 *    watch, whose series holds it), the worst of the run; the note gives the median and the whole run.
 * SWATH_BENCH_PROFILE_MAIN=<file> writes a CPU profile of main (this process) over the run.
 */

const DAY = 86_400_000;
const iso = (t: number) => new Date(t).toISOString().slice(0, 10);
const AREA = 'POLYGON((13.40 52.50, 13.43 52.50, 13.43 52.52, 13.40 52.52, 13.40 52.50))';

// Runs in the page as text: a bundler's helpers must not leak into it. Logs [Date.now(), test id]
// each time the list's top row changes.
const TOP_ROW_LOG = `(() => {
  const scroller = document.querySelector('[data-testid=library-scroller]');
  const log = [];
  window.__topRows = log;
  let last = null;
  const note = () => {
    const id = scroller.querySelector('article')?.getAttribute('data-testid') ?? null;
    if (id !== last) { last = id; log.push([Date.now(), id]); }
  };
  note();
  new MutationObserver(note).observe(scroller, { childList: true, subtree: true });
})()`;

/** The simulator's order lifecycle for this run: the order's dates available within two seconds. */
export const FAST_ORDERS = { review: 500, preparing: 500, awaiting: 500, processing: 500 };

export async function watchRun(opts: {
  app: SwathApp; host: BrowserHost; browser: Browser; service: { url: string; key: string };
  downloads: number; tag: (name: string) => string;
}): Promise<Figure[]> {
  const { app, host, browser, service, tag } = opts;
  const call = (channel: string, request: unknown = {}) =>
    (app.handlers as unknown as Record<string, (r: unknown, c: { senderUrl: string; signal: AbortSignal }) => Promise<unknown>>)[channel]!(request, { senderUrl: 'bench://', signal: AbortSignal.timeout(600_000) });

  // One historical order over the area, every 5 days: `downloads` image dates at least.
  const to = Date.now() - 3 * DAY;
  const from = to - (opts.downloads * 5 - 1) * DAY;
  const body = {
    Wkt: AREA, Model: 'Stratus2', SatelliteConstellations: ['Sentinel1', 'Sentinel2'], ImageFrequency: 5, ReferenceDate: iso(from),
    From: iso(from), To: iso(to), StorageMonths: 6, ApiRequests: 10,
  };
  for (const [p, b] of [['/api/tasking/orders/estimate', body], ['/api/tasking/orders', { ...body, TileDeduplication: false }]] as const) {
    const r = await fetch(new URL(p, service.url), { method: 'POST', headers: { 'x-api-key': service.key, 'content-type': 'application/json' }, body: JSON.stringify(b) });
    if (!r.ok) throw new Error(`${p}: ${r.status} ${(await r.text()).slice(0, 300)}`);
  }
  // Its dates appear once the (fast) lifecycle has run; the watch takes the first `downloads` of them.
  let dates: string[] = [];
  for (const until = Date.now() + 30_000; Date.now() < until && dates.length < opts.downloads; await new Promise((r) => setTimeout(r, 250))) {
    const r = await call('imagery:search', { request: { Wkt: AREA, From: iso(from), Until: iso(to), Model: 'Stratus2', SatelliteConstellations: ['Sentinel1', 'Sentinel2'] } }) as { data: { ModelImageDates: { DatesByGeog: { Dates: string[] }[] }[] } };
    dates = [...new Set(r.data.ModelImageDates.flatMap((g) => g.DatesByGeog.flatMap((d) => d.Dates.map((x) => x.slice(0, 10)))))].sort();
  }
  if (dates.length < opts.downloads) throw new Error(`the order gave ${dates.length} image dates, not ${opts.downloads}`);
  const [first, last] = [dates[0]!, dates[opts.downloads - 1]!];

  // The Library open, newest added first.
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  try {
    await context.addInitScript(MAP_HOOK);
    const page = await context.newPage();
    await page.goto(host.url);
    await page.locator('nav[aria-label="Panels"] [data-panel="library"]').click();
    await page.getByTestId('library-sort').selectOption('added-desc');
    await page.locator('[data-testid=library-scroller] article').first().waitFor({ timeout: 60_000 });
    await page.evaluate(TOP_ROW_LOG);

    const added: { id: string; at: number }[] = [];
    const onAdded = (e: LibraryEntry) => {
      if (e.path.includes(`${path.sep}watches${path.sep}`)) added.push({ id: e.id, at: Date.now() });
    };
    app.library.on('added', onAdded);
    const loop = monitorEventLoopDelay({ resolution: 10 });
    const profileTo = process.env.SWATH_BENCH_PROFILE_MAIN;
    const inspector = profileTo ? new Session() : null;
    if (inspector) {
      inspector.connect();
      await inspector.post('Profiler.enable');
      await inspector.post('Profiler.start');
    }
    loop.enable();
    // Main's longest stretch of its own work: the thread's CPU time between two turns of a 5 ms timer
    // (the wall-clock delay above also counts the time the OS gave the other processes: on this
    // 2-core machine Chromium, the demo service and the query thread run beside main).
    // (Node 23.9+; before it, the process' CPU time, every thread's.)
    const threadCpu = (process as unknown as { threadCpuUsage?: () => NodeJS.CpuUsage }).threadCpuUsage?.bind(process) ?? (() => process.cpuUsage());
    let lastCpu = threadCpu();
    let busiest = 0;
    const ticker = setInterval(() => {
      const cpu = threadCpu();
      busiest = Math.max(busiest, (cpu.user - lastCpu.user + cpu.system - lastCpu.system) / 1000);
      lastCpu = cpu;
    }, 5);
    const started = Date.now();
    let watch: WatchSummary | undefined;
    try {
      const created = await call('watches:create', {
        name: 'Bench watch', source: { kind: 'aoi', orderId: null, recurring: null }, area: { Wkt: AREA },
        model: 'Stratus2', constellations: ['Sentinel1', 'Sentinel2'], from: first, to: last,
        settings: { EpsgProjection: 32633, Bandnames: 'B4,B8', DataType: 'INT16', Resolution: 80, PixelSelectionMode: 'intersect' },
        capEur: null, everyHours: 24,
      }) as { id: string };
      // The run is over when the watch is no longer running and has run once.
      for (;;) {
        watch = ((await call('watches:list')) as { watches: WatchSummary[] }).watches.find((w) => w.id === created.id);
        if (watch && !watch.running && watch.lastRunAt !== null) break;
        await new Promise((r) => setTimeout(r, 100));
      }
    } finally {
      clearInterval(ticker);
      loop.disable();
      app.library.off('added', onAdded);
      if (inspector) {
        const { profile } = await inspector.post('Profiler.stop');
        writeFileSync(profileTo!, JSON.stringify(profile));
        inspector.disconnect();
      }
    }
    const ranMs = Date.now() - started;
    const blockMs = loop.max / 1e6;
    if (added.length < opts.downloads) throw new Error(`the watch added ${added.length} rasters (${JSON.stringify(watch?.counts)}; ${watch?.notice ?? ''}), not ${opts.downloads}`);

    // The list shows the last one (a state), then each raster's delay is read from the page's log.
    const lastRow = `entry-${added.at(-1)!.id}`;
    await page.waitForFunction((id) => (window as unknown as { __topRows: [number, string | null][] }).__topRows.some(([, top]) => top === id), lastRow, { timeout: 60_000 });
    const log = await page.evaluate(() => (window as unknown as { __topRows: [number, string | null][] }).__topRows);
    const order = new Map(added.map((a, i) => [`entry-${a.id}`, i]));
    const shown = added.map((a, k) => {
      const seen = log.find(([, top]) => top !== null && (order.get(top) ?? -1) >= k);
      return seen![0] - a.at;
    });
    const allShown = Math.max(...log.filter(([, top]) => top === lastRow).map(([t]) => t)) - started;
    return [
      { name: tag('library-watch-run-main-block-ms'), value: Math.round(busiest), unit: 'ms', note: `main's longest block of its own work while a watch downloaded ${added.length} dates into the library with the Library open in the browser host: the main thread's CPU time between two turns of a 5 ms timer, the most (the demo service in its own process); wall-clock event-loop delay (monitorEventLoopDelay, which also counts the time the OS ran Chromium, the demo service and the query thread on this machine's 2 cores): max ${Math.round(blockMs)} ms, p99 ${(loop.percentile(99) / 1e6).toFixed(1)} ms; the run took ${(ranMs / 1000).toFixed(1)} s; target ≤ 50 ms` },
      { name: tag('library-watch-run-shown-ms'), value: Math.round(Math.max(...shown)), unit: 'ms', note: `from the library recording each of the ${added.length} rasters (main) to the list's top row holding it (the page, newest added first), the worst; median ${Math.round(median(shown))} ms, p95 ${Math.round(percentile(shown, 95))} ms; all ${added.length} shown ${(allShown / 1000).toFixed(1)} s after the watch was created; target ≤ 1,000 ms` },
    ];
  } finally {
    await context.close();
  }
}
