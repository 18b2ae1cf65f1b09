import { execFileSync } from 'node:child_process';
import { existsSync, linkSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startBrowserHost, type BrowserHost } from '../../main/hosts/browser-host';
import { MemoryKeychainBackend } from '../../main/profiles';
import { LIBRARY_FILE, LibraryCatalog, readRasterMetadata, type LibraryEntry } from '../../main/library';
import { createApp, type SwathApp } from '../../main/app/app';
import { LIBRARY_FIRST_PAGE } from '../../common/library-first-page';
import { forkedSimulator } from '../../main/hosts/simulator-process';
import { writeGeoTiff } from '../../simulator/raster/index.js';
import { launchChromium } from '../e2e/chromium';
import { MAP_HOOK, waitForStartSettled } from '../e2e/workspace-harness';
import { median, percentile, spread, type Figure } from './method.js';
import { benchBuild } from './renderer.bench.js';
import { FAST_ORDERS, watchRun } from './library-watch-run.js';

/**
 * The library at scale: a userData folder seeded with N entries of real small GeoTIFFs
 * (a few distinct files hard-linked N times, so the disk holds a handful of files and N names) as
 * an earlier version's library.json, then, through the real app core:
 *  - library-import-ms: the one-time import of library.json into swath.db (first start after the update);
 *  - library-start-ms: opening the catalog of N entries, and main's RSS after the app core started on it;
 *  - library-add-p99-ms: recording one download as the queue hands it over (the header read from the
 *    bytes its writer kept, one transaction) — p99 of 200 after 10 warm-up adds (reported apart), once the
 *    app core has started (its query thread answered the Library's first page);
 *    library-add-from-file-p99-ms: the same for files recorded without their bytes (the header read
 *    from the file: imports, batch mosaics, files over 256 KiB); library-add-large-p99-ms: the same for a
 *    download of real size (1.4 MiB, read from its first 64 KiB and the file);
 *  - library-cover-query-ms: which rasters cover a small area (R*Tree), median of 50 areas;
 *  - library-search-ms: a search page (products by bands, and a text word) with counts, median;
 *  - library-first-page-ms: browser host, from the page's load event until the Library lists its first row,
 *    the mouse pressed and released on the rail's Library button as soon as the page has loaded (CDP input,
 *    as a person's click reaches the page); library-first-page-locator-ms: the same clicked through
 *    Playwright's locator (its selector engine, injected into the page on first use, and its checks
 *    first, each a round trip to the busy page): the note gives it from navigation start and from the
 *    click's pointerdown too;
 *  - library-scroll-p95-frame-ms: each frame's main-thread work while the list scrolls, p95;
 *  - library-watch-run-main-block-ms and library-watch-run-shown-ms: a watch run of
 *    SWATH_BENCH_WATCH_DOWNLOADS (default 50) downloads with the Library open (library-watch-run.ts).
 * SWATH_BENCH_LIBRARY_SIZES (default 100000) lists the sizes; SWATH_BENCH_SHOTS saves a screenshot.
 */

const WKT = (x: number, y: number) => `POLYGON((${x} ${y},${x + 0.02} ${y},${x + 0.02} ${y + 0.01},${x} ${y + 0.01},${x} ${y}))`;
const TEMPLATES = 8;
/** The GDAL tags of every template (what a composite from the service carries). */
const TEMPLATE_TAGS = { IMAGE_DATE: '20260601', MODEL_VERSION: 'Stratus2', IMAGE_VERSION: '1', CONSTELLATIONS: 'Sentinel2' };

export async function templates(dir: string): Promise<{ file: string; size: number }[]> {
  const out = [];
  for (let i = 0; i < TEMPLATES; i++) {
    const file = path.join(dir, `template-${i}.tif`);
    await writeGeoTiff({
      aoi: { type: 'Polygon', coordinates: [[[13.4, 52.5], [13.42, 52.5], [13.42, 52.51], [13.4, 52.51], [13.4, 52.5]]] },
      date: `2026-0${(i % 9) + 1}-01`, epsg: 32633, resolution: 80,
      bands: i % 2 ? [{ kind: 'band', name: 'B4' }, { kind: 'band', name: 'B3' }, { kind: 'band', name: 'B2' }] : [{ kind: 'index', a: 'B8', b: 'B4', name: '[B8_B4]' }],
      dataType: 'INT16', pixelSelection: 'intersect', tags: TEMPLATE_TAGS,
    }, file);
    out.push({ file, size: statSync(file).size });
  }
  return out;
}

/** A download the size real ones are (over 256 KiB, so its writer keeps no bytes): a 3-band INT16 composite at 10 m. */
async function largeTemplate(dir: string): Promise<{ file: string; size: number }> {
  const file = path.join(dir, 'template-large.tif');
  await writeGeoTiff({
    aoi: { type: 'Polygon', coordinates: [[[13.4, 52.5], [13.6, 52.5], [13.6, 52.6], [13.4, 52.6], [13.4, 52.5]]] },
    date: '2026-06-01', epsg: 32633, resolution: 10,
    bands: [{ kind: 'band', name: 'B4' }, { kind: 'band', name: 'B3' }, { kind: 'band', name: 'B2' }],
    dataType: 'INT16', pixelSelection: 'intersect', tags: TEMPLATE_TAGS,
  }, file);
  return { file, size: statSync(file).size };
}

/** N entries: half watch downloads in series (an AOI on 100 dates), half single imports spread over Europe. */
export async function seed(n: number, userData: string, files: string, tpl: { file: string; size: number }[]): Promise<void> {
  const metas = await Promise.all(tpl.map((t) => readRasterMetadata(t.file, new AbortController().signal)));
  const entries: LibraryEntry[] = [];
  const base = Date.parse('2025-01-01T00:00:00Z');
  for (let i = 0; i < n; i++) {
    const k = i % TEMPLATES;
    const dir = path.join(files, String(Math.floor(i / 1000)));
    if (i % 1000 === 0) mkdirSync(dir, { recursive: true });
    const ndvi = i % 3 === 0;
    const file = path.join(dir, `scene_${i}_${ndvi ? 'ndvi' : 'rgb'}.tif`);
    linkSync(tpl[k]!.file, file);
    const series = i % 2 === 0;
    const aoi = Math.floor(i / 200);
    const x = series ? 5 + (aoi % 50) * 0.3 : 5 + ((i * 7919) % 1000) * 0.015;
    const y = series ? 45 + Math.floor(aoi / 50) * 0.3 : 45 + ((i * 104729) % 1000) * 0.01;
    const day = series ? Math.floor(i / 2) % 100 : i % 365;
    const date = new Date(base + day * 86_400_000).toISOString().slice(0, 10);
    entries.push({
      ...metas[k]!, id: `bench-${i}`, path: file, size: tpl[k]!.size, sha256: 'a'.repeat(64),
      request: series ? { Wkt: WKT(x, y), Model: 'Stratus2', Bandnames: ndvi ? 'ndvi' : 'rgb' } : null,
      kind: series ? 'composite' : null, source: series ? 'download' : 'import',
      date, model: i % 5 === 0 ? 'Cumulus' : 'Stratus2', bands: ndvi ? ['[B8_B4]'] : ['B4', 'B3', 'B2'],
      bounds4326: [x, y, x + 0.02, y + 0.01], createdAt: new Date(base + i * 60_000).toISOString(),
    });
  }
  writeFileSync(path.join(userData, LIBRARY_FILE), JSON.stringify({ version: 1, entries }));
}

const ms = (t: number) => performance.now() - t;

// Runs in the page as text: the time the Library's first row enters the DOM.
const FIRST_ROW_HOOK = `document.addEventListener('pointerdown', () => { window.__clicked ??= performance.now(); }, true);
new MutationObserver((_, obs) => {
  if (document.querySelector('[data-testid=library-scroller] article')) { window.__firstRow = performance.now(); obs.disconnect(); }
}).observe(document, { childList: true, subtree: true });`;

/** A fresh 1440 × 900 page with the map's hook and the first-row hook, not navigated yet. */
async function hookedPage(browser: Browser): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  await context.addInitScript(MAP_HOOK);
  await context.addInitScript(FIRST_ROW_HOOK);
  return { context, page: await context.newPage() };
}

/** When the first row came, the load event ended and the click's pointerdown landed, on the page's clock. */
function firstRowTimes(page: Page): Promise<[row: number, load: number, clicked: number]> {
  return page.evaluate(() => [(window as unknown as { __firstRow: number }).__firstRow, (performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming).loadEventEnd, (window as unknown as { __clicked: number }).__clicked]) as Promise<[number, number, number]>;
}

// Runs in the page as text: a bundler's helpers (e.g. esbuild's __name) must not leak into it.
// Scrolls the list 90 px a frame for 120 frames and returns two p95s, ms: the interval between
// frames (bound to the display's 60 Hz, 16.7 ms, in headless Chromium; a dropped frame shows as
// 33) and each frame's work: from the frame's start (the rAF timestamp, before the scroll events,
// the list's update, style, layout and paint) until the main thread is free again after it (a
// message posted from the frame runs only once its rendering is done).
const SCROLL_SCRIPT = `(async () => {
  const el = document.querySelector('[data-testid=library-scroller]');
  const intervals = [];
  const work = [];
  const channel = new MessageChannel();
  let frameStart = 0;
  let last = 0;
  await new Promise((resolve) => {
    channel.port1.onmessage = () => {
      work.push(performance.now() - frameStart);
      if (work.length === 120) resolve();
    };
    let n = 0;
    function step(ts) {
      if (last) intervals.push(ts - last);
      last = ts;
      frameStart = ts;
      el.scrollTop += 90;
      channel.port2.postMessage(0);
      if (++n < 120) requestAnimationFrame(step);
    }
    requestAnimationFrame(step);
  });
  const p95 = (xs) => xs.sort((a, b) => a - b)[Math.floor(xs.length * 0.95)];
  return { interval: p95(intervals), work: p95(work.slice(1)) };
})()`;

async function atSize(n: number, shots: string | undefined): Promise<Figure[]> {
  const figures: Figure[] = [];
  const tag = (name: string) => (n === 100_000 ? name : `${name}@${n}`);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'swath-bench-library-'));
  let app: SwathApp | null = null;
  let host: BrowserHost | null = null;
  let browser: Browser | null = null;
  try {
    const userData = path.join(dir, 'user');
    mkdirSync(userData, { recursive: true });
    const tpl = await templates(dir);
    await seed(n, userData, path.join(dir, 'files'), tpl);

    let t = performance.now();
    const first = await LibraryCatalog.open({ dir: userData });
    figures.push({ name: tag('library-import-ms'), value: Math.round(ms(t)), unit: 'ms', note: `one-time import of library.json with ${first.count()} entries into swath.db, one transaction` });
    await first.close();

    const opens: number[] = [];
    for (let i = 0; i < 5; i++) {
      t = performance.now();
      const cat = await LibraryCatalog.open({ dir: userData });
      opens.push(ms(t));
      await cat.close();
    }
    figures.push({ name: tag('library-start-ms'), value: Math.round(median(opens)), unit: 'ms', note: `opening the catalog of ${n} entries (swath.db, migrations checked), median of 5: ${spread(opens, 0)}` });

    // The catalog's memory in a process of its own (this one holds the seeding's garbage): a fresh Node
    // opens swath.db and answers a first page, against the same Node doing nothing.
    const root = path.resolve(import.meta.dirname, '../..');
    const rssOf = (code: string) => Number(execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], { cwd: root, encoding: 'utf8' }).trim().split('\n').pop());
    const bare = rssOf('console.log(process.memoryUsage().rss)');
    const withLibrary = rssOf(`import { LibraryCatalog } from './main/library/index.ts';
      const c = await LibraryCatalog.open({ dir: ${JSON.stringify(userData)} });
      c.query({ limit: 100, series: true }); c.query({ text: 'ndvi', limit: 100, series: true });
      console.log(process.memoryUsage().rss)`);
    figures.push({ name: tag('library-rss-mb'), value: Math.round(withLibrary / 2 ** 20), unit: 'MB', note: `a Node process (with tsx) that opened the catalog of ${n} and answered two pages; the same process idle: ${Math.round(bare / 2 ** 20)} MB` });

    const rssBefore = process.memoryUsage().rss;
    t = performance.now();
    // The demo service in its own process, as the app runs it (its work is not main's); orders ready in 2 s.
    let service: { url: string; key: string } | null = null;
    const forked = forkedSimulator();
    app = await createApp({
      userDataDir: userData, downloadsDir: path.join(dir, 'Downloads'), keychainBackend: new MemoryKeychainBackend(),
      version: '0.0.0-bench', platform: process.platform, emit: (e, p) => host?.emit(e, p),
      startSimulator: async (o) => {
        // The child hands its options to the simulator whole: its order lifecycle too.
        const sim = await forked({ ...o, lifecycle: FAST_ORDERS } as Parameters<typeof forked>[0]);
        service = { url: sim.url, key: Object.keys(o.apiKeys ?? {})[0]! };
        return sim;
      },
    });
    const appMs = ms(t);
    // The seeding's and the import's garbage collected before main's figures (`npm run bench` runs Node with
    // --expose-gc): the app's own main process never holds it.
    global.gc?.();
    const rss = process.memoryUsage().rss;
    figures.push({ name: tag('library-bench-process-rss-mb'), value: Math.round(rss / 2 ** 20), unit: 'MB', note: `the bench process (tsx, the app core; the demo service in a child process) after createApp on ${n} entries (${Math.round(appMs)} ms); ${Math.round((rss - rssBefore) / 2 ** 20)} MB more than before createApp` });
    const lib = app.library;

    // Downloads are recorded in a running app, not in its first second: the adds start once the app core
    // has started, i.e. its query thread has answered the Library's first page (its start, warm(), runs
    // on from createApp on the second core, as the demo service's process does), and after a collection,
    // so that no young objects of the start are left for the adds' first scavenges to copy.
    t = performance.now();
    await app.handlers['library:query']({ ...LIBRARY_FIRST_PAGE }, { senderUrl: 'bench', signal: new AbortController().signal });
    const settleMs = ms(t);
    global.gc?.();

    // One download recorded at a time, as the queue does (a fresh hard link, so a new path each time).
    // The first adds of a process run cold (the header reader's code not compiled yet, the indexes'
    // pages not cached): WARM_ADDS of them go first, reported apart, then the 200 measured.
    const WARM_ADDS = 10;
    // The main thread's own CPU time per add (Node 23.9+): the rest of an add's time is waiting, for
    // the thread pool's file reads and for a core (V8's compiler and collector threads share the two).
    const threadCpu = (process as { threadCpuUsage?: (prev?: NodeJS.CpuUsage) => NodeJS.CpuUsage }).threadCpuUsage?.bind(process);
    const addDir = path.join(dir, 'adds');
    mkdirSync(addDir);
    let added = 0;
    const addRun = async (name: string, how: string, withContent: boolean, from = tpl) => {
      const adds: number[] = [];
      const addCpu: number[] = [];
      const warm: number[] = [];
      for (let i = 0; i < WARM_ADDS + 200; i++) {
        const template = from[added % from.length]!;
        const file = path.join(addDir, `added_${added++}.tif`);
        linkSync(template.file, file);
        // What the queue's writer kept of the file it wrote (its bytes, the file being under 256 KiB).
        const content = withContent ? new Uint8Array(readFileSync(file)) : undefined;
        const cpu0 = threadCpu?.();
        t = performance.now();
        await lib.addDownload({ path: file, size: template.size, sha256: 'b'.repeat(64), kind: 'composite', request: { Wkt: WKT(5, 45), Model: 'Stratus2' }, ...(content ? { content } : {}) }, new AbortController().signal);
        (i < WARM_ADDS ? warm : adds).push(ms(t));
        const cpu = cpu0 && threadCpu?.(cpu0);
        if (cpu && i >= WARM_ADDS) addCpu.push((cpu.user + cpu.system) / 1000);
      }
      const cpuNote = addCpu.length ? `; the main thread's own CPU time per add: median ${median(addCpu).toFixed(2)} ms, p99 ${percentile(addCpu, 99).toFixed(2)} ms` : '';
      figures.push({ name: tag(name), value: +percentile(adds, 99).toFixed(2), unit: 'ms', note: `${how}, p99 of 200 adds after ${WARM_ADDS} first ones, once the app core had started (its first Library page, awaited first: ${Math.round(settleMs)} ms); median ${median(adds).toFixed(2)} ms, max ${Math.max(...adds).toFixed(2)} ms; the first ${WARM_ADDS}: ${warm.map((x) => x.toFixed(1)).join(', ')} ms${cpuNote}` });
    };
    await addRun('library-add-p99-ms', 'recording one download as the queue hands it over (its header read from the bytes the writer kept, one transaction)', true);
    await addRun('library-add-from-file-p99-ms', 'recording a file without its bytes (imports, batch mosaics, files over 256 KiB: its header read from the file, one transaction)', false);
    const large = await largeTemplate(dir);
    await addRun('library-add-large-p99-ms', `recording a download of ${(large.size / 2 ** 20).toFixed(1)} MiB (a 3-band composite at 10 m: its header read from its first 64 KiB and the file, one transaction)`, false, [large]);

    const covers: number[] = [];
    let found = 0;
    for (let i = 0; i < 50; i++) {
      const x = 5 + (i * 0.29) % 15;
      const y = 45 + (i * 0.17) % 10;
      t = performance.now();
      found += lib.covering([x, y, x + 0.05, y + 0.05]).length;
      covers.push(ms(t));
    }
    figures.push({ name: tag('library-cover-query-ms'), value: +median(covers).toFixed(2), unit: 'ms', note: `rasters covering a 0.05° box (R*Tree), median of 50 (p95 ${percentile(covers, 95).toFixed(2)}); ${(found / 50).toFixed(1)} found on average` });

    const searches: number[] = [];
    const words = ['ndvi', 'Cumulus', 'scene_4', 'rgb 2025-03', 'B4'];
    const hits = new Map<string, number>();
    for (let r = 0; r < 4; r++) {
      for (const text of words) {
        t = performance.now();
        hits.set(text, lib.query({ text, limit: 200, series: true }).total);
        searches.push(ms(t));
      }
    }
    figures.push({ name: tag('library-search-ms'), value: +median(searches).toFixed(1), unit: 'ms', note: `a first page of 200 rows with counts, time series grouped, median of ${searches.length} (max ${Math.max(...searches).toFixed(1)}); matches: ${[...hits].map(([w, c]) => `"${w}" ${c}`).join(', ')}` });
    t = performance.now();
    const page0 = lib.query({ limit: 200, series: true });
    figures.push({ name: tag('library-query-page-ms'), value: +ms(t).toFixed(1), unit: 'ms', note: `the unfiltered first page in main: ${page0.rows} rows (${page0.total} rasters, series grouped)` });

    // The browser host: from navigation to the Library's first rows on screen.
    if (existsSync(process.env.SWATH_CHROMIUM ?? '/usr/bin/chromium')) {
      const build = benchBuild();
      try {
        host = await startBrowserHost({ rendererDir: path.join(build.dir, 'renderer'), handlers: app.handlers, secrets: app.secrets, rasters: app.rasters, greeting: () => [{ event: 'connection:state', payload: app!.connection() }] });
        browser = await launchChromium();
        const firsts: number[] = [];
        const fromNavigation: number[] = [];
        const fromClick: number[] = [];
        for (let i = 0; i < 3; i++) {
          const { context, page } = await hookedPage(browser);
          await page.goto(host.url);
          await page.locator('nav[aria-label="Panels"] [data-panel="library"]').click();
          await page.locator('[data-testid=library-scroller] article').first().waitFor({ timeout: 60_000 });
          const [row, load, clicked] = await firstRowTimes(page);
          firsts.push(row - load);
          fromNavigation.push(row);
          fromClick.push(row - clicked);
          if (i === 2) {
            const nodes = await page.evaluate(() => document.querySelectorAll('[data-testid=library-panel] *').length);
            figures.push({ name: tag('library-dom-nodes'), value: nodes, unit: 'nodes', note: 'elements in the Library panel with its list drawn' });
            const scroller = page.getByTestId('library-scroller');
            // The steady state: what the start deferred (the finer coastline, water) is in and drawn.
            await waitForStartSettled(page);
            const scroll = await page.evaluate(SCROLL_SCRIPT) as { interval: number; work: number };
            figures.push({ name: tag('library-scroll-p95-frame-ms'), value: +scroll.work.toFixed(1), unit: 'ms', note: `each frame's main-thread work (from the frame's start to the main thread free after its paint) while scrolling the list 90 px a frame for 120 frames once the start has settled, p95 (headless Chromium, software GL); the interval between frames, p95: ${scroll.interval.toFixed(1)} ms (the display's 16.7 ms at 60 Hz; a dropped frame is 33)` });
            if (shots) {
              mkdirSync(shots, { recursive: true });
              await scroller.evaluate((el) => { el.scrollTop = 0; });
              // The top rows drawn again, and two frames painted (a state, not a time).
              await page.locator('[data-testid=library-scroller] article').first().waitFor();
              await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
              await page.screenshot({ path: path.join(shots, `library-${n}.png`) });
            }
          }
          await context.close();
        }
        if (!service) throw new Error('the demo service did not start');
        figures.push(...(await watchRun({ app, host, browser, service, downloads: Number(process.env.SWATH_BENCH_WATCH_DOWNLOADS ?? 50), tag })));
        // The same, clicked as a person would: the mouse pressed on the rail's Library button the moment
        // the page has loaded (CDP input, at the button's place on this 1440 × 900 window, measured on the
        // last page), without Playwright's checks before a click (each a round trip to the busy page).
        const at = await (async () => {
          const context = await browser!.newContext({ viewport: { width: 1440, height: 900 } });
          const page = await context.newPage();
          await page.goto(host!.url);
          const box = (await page.locator('nav[aria-label="Panels"] [data-panel="library"]').boundingBox())!;
          await context.close();
          return { x: box.x + box.width / 2, y: box.y + box.height / 2 };
        })();
        const raw: number[] = [];
        for (let i = 0; i < 5; i++) {
          const { context, page } = await hookedPage(browser);
          const cdp = await context.newCDPSession(page);
          await page.goto(host.url);
          for (const type of ['mousePressed', 'mouseReleased'] as const) await cdp.send('Input.dispatchMouseEvent', { type, x: at.x, y: at.y, button: 'left', clickCount: 1 });
          await page.locator('[data-testid=library-scroller] article').first().waitFor({ timeout: 60_000 });
          const [row, load] = await firstRowTimes(page);
          raw.push(row - load);
          await context.close();
        }
        figures.push({ name: tag('library-first-page-ms'), value: Math.round(median(raw)), unit: 'ms', note: `browser host, from the page's load event to the Library's first row in the DOM, the rail's Library button pressed and released (CDP mouse input, as a person's click) as soon as the page loaded, median of ${raw.length}: ${spread(raw, 0)}` });
        figures.push({ name: tag('library-first-page-locator-ms'), value: Math.round(median(firsts)), unit: 'ms', note: `the same, the button clicked through Playwright's locator as soon as the page loaded, median of 3: ${spread(firsts, 0)}; of which from the load to the click's pointerdown ${spread(firsts.map((f, i) => f - fromClick[i]!), 0)} (Playwright's selector engine injected into the busy page, its checks), from the pointerdown ${spread(fromClick, 0)}; from navigation start ${spread(fromNavigation, 0)}` });
      } finally {
        build.cleanup();
      }
    }
  } finally {
    await browser?.close().catch(() => undefined);
    await host?.close().catch(() => undefined);
    await app?.close().catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  }
  return figures;
}

/** Runs the library benchmark at each size; figures are printed by test/bench/run.ts. */
export async function benchLibrary(): Promise<Figure[]> {
  const sizes = (process.env.SWATH_BENCH_LIBRARY_SIZES ?? '100000').split(',').map((s) => Number(s.trim())).filter((x) => x > 0);
  const out: Figure[] = [];
  for (const n of sizes) out.push(...(await atSize(n, process.env.SWATH_BENCH_SHOTS)));
  return out;
}
