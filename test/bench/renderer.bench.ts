import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { openWorkspace, waitForMap } from '../e2e/workspace-harness.js';
import { interleaved, median, MIN_PAIRS, percentile, ratioFigure, spread, type Figure } from './method.js';
import { buildMinimalOl } from './minimal-ol/build.js';

/**
 * Renderer benchmarks in Chromium through the browser host (real renderer,
 * real main services, embedded demo simulator):
 * - renderer-cold-start-vs-minimal-ol-ratio: navigation start to the interactive map (the first
 *   complete frame of the offline basemap) in a fresh context, against a bare OpenLayers page with
 *   the same basemap data (test/bench/minimal-ol) in the same browser, interleaved pairs;
 * - renderer-cold-start-ms: Swath's side of those pairs;
 * - pan-frame-median-ms: 5,000 result polygons drawn through vector-layers,
 *   then programmatic panning as a drag does it (interaction hint set), frame
 *   times from requestAnimationFrame with the frame rate uncapped, so a frame
 *   takes what its work takes rather than the 16.7 ms vsync slot.
 */

// Cold starts wander (Chromium and the host share two cores): 9 pairs gave 1.55 and 1.25 in two runs.
const COLD_PAIRS = Math.max(MIN_PAIRS, 21);
/** Quiet time before each cold start, so that the last page's leftovers (its closing, its host calls) are not counted in the next. */
const SETTLE_MS = 400;
const PAN_FRAMES = 180;

const TYPES: Record<string, string> = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.json': 'application/json' };

/** Serves a built page folder on loopback (the reference page has no server of its own). */
async function serveStatic(dir: string): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    const rel = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname).replace(/^\/+/, '') || 'index.html';
    const file = path.resolve(dir, rel);
    if (!file.startsWith(dir + path.sep) || !existsSync(file)) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': TYPES[path.extname(file)] ?? 'application/octet-stream', 'cache-control': 'no-store' });
    res.end(readFileSync(file));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}/`, server };
}

/** Navigation start to the map's first complete frame, in ms, of a page that was just opened. */
async function coldStartMs(page: Page): Promise<number> {
  try {
    await waitForMap(page);
    return await page.evaluate(() => performance.getEntriesByName('swath:map-interactive')[0]!.startTime);
  } finally {
    await page.context().close();
  }
}

/** The built app (SWATH_E2E_BUILD when it holds one, else a fresh electron-vite build, removed by `cleanup`). */
export function benchBuild(): { dir: string; cleanup: () => void } {
  if (process.env.SWATH_E2E_BUILD && existsSync(path.join(process.env.SWATH_E2E_BUILD, 'renderer', 'index.html'))) {
    return { dir: process.env.SWATH_E2E_BUILD, cleanup: () => undefined };
  }
  const root = path.resolve(import.meta.dirname, '../..');
  const dir = mkdtempSync(path.join(os.tmpdir(), 'swath-bench-build-'));
  const r = spawnSync(path.join(root, 'node_modules/.bin/electron-vite'), ['build', '--outDir', dir, '--logLevel', 'error'], { cwd: root, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`electron-vite build failed:\n${r.stdout}\n${r.stderr}`);
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

// Runs in the page as text: a bundler's helpers (e.g. esbuild's __name) must not leak into it.
const PAN_SCRIPT = `async (frames, count) => {
  const hook = window.__SWATH_PERF__;
  const items = [];
  // 5,000 squares (about 6 x 7 km) on a 100 x 50 grid over central Europe, like a large tile search.
  for (let i = 0; i < count; i++) {
    const x = 5 + (i % 100) * 0.1;
    const y = 46 + Math.floor(i / 100) * 0.1;
    items.push({ id: String(i), geometry: 'POLYGON((' + x + ' ' + y + ', ' + (x + 0.08) + ' ' + y + ', ' + (x + 0.08) + ' ' + (y + 0.06) + ', ' + x + ' ' + (y + 0.06) + ', ' + x + ' ' + y + '))' });
  }
  const t0 = performance.now();
  const drawn = hook.vectorLayers.setFeatures('bench-results', items, { look: 'tile' }).drawn;
  const map = hook.map;
  const view = map.getView();
  view.setCenter([1100000, 6100000]);
  view.setZoom(6.5);
  await new Promise((resolve) => map.once('rendercomplete', resolve));
  const drawMs = performance.now() - t0;
  hook.frames.length = 0;
  const deltas = [];
  await new Promise((resolve) => {
    let last = 0;
    let n = 0;
    view.beginInteraction();
    function step(ts) {
      if (last) deltas.push(ts - last);
      last = ts;
      const c = view.getCenter();
      // About 6 px per frame, the pace of a brisk drag.
      view.setCenter([c[0] + view.getResolution() * 6, c[1] + view.getResolution() * 2]);
      if (++n < frames) requestAnimationFrame(step);
      else {
        view.endInteraction();
        resolve();
      }
    }
    requestAnimationFrame(step);
  });
  return { drawn, drawMs, deltas, compose: hook.frames.slice() };
}`;

/** Runs the renderer benchmarks; figures are printed by test/bench/run.ts. */
export async function benchRenderer(): Promise<Figure[]> {
  if (!existsSync(process.env.SWATH_CHROMIUM ?? '/usr/bin/chromium')) throw new Error('Chromium not found (apt-get install chromium).');
  const { dir, cleanup } = benchBuild();
  const referenceDir = await buildMinimalOl();
  const reference = await serveStatic(referenceDir);
  const ws = await openWorkspace({
    buildDir: dir,
    noPage: true,
    viewport: { width: 1440, height: 900 },
    chromiumArgs: ['--disable-gpu-vsync', '--disable-frame-rate-limit'],
  });
  try {
    // Cold start: each load is a fresh browser context (no cache, no storage); Swath and the bare map
    // alternate, after a warm-up of each (Chromium's own first-load costs are not the app's).
    const settle = () => new Promise((r) => setTimeout(r, SETTLE_MS));
    const cold = await interleaved(COLD_PAIRS, async () => {
      await settle();
      return coldStartMs(await ws.newPage());
    }, async () => {
      await settle();
      const context = await ws.browser.newContext({ viewport: { width: 1440, height: 900 } });
      const page = await context.newPage();
      await page.goto(reference.url);
      return coldStartMs(page);
    });

    // Panning over 5,000 drawn geometries.
    const page = await ws.newPage({ initScript: 'window.__SWATH_PERF__ = {};' });
    await waitForMap(page);
    type Pan = { drawn: number; drawMs: number; deltas: number[]; compose: number[] };
    // The same pan over an empty overlay first: what the basemap and Chromium cost on their own.
    const baseline = (await page.evaluate(`(${PAN_SCRIPT})(${PAN_FRAMES}, 0)`)) as Pan;
    const result = (await page.evaluate(`(${PAN_SCRIPT})(${PAN_FRAMES}, 5000)`)) as Pan;
    if (result.drawn !== 5000) throw new Error(`only ${result.drawn} geometries were drawn`);
    const frameMedian = median(result.deltas);
    return [
      ratioFigure('renderer-cold-start-vs-minimal-ol-ratio', cold, { ours: 'Swath', reference: 'bare OpenLayers + the same basemap', unit: 'ms' }, 'fresh contexts, navigation start to the first complete basemap frame; target <= 1.5'),
      { name: 'renderer-cold-start-ms', value: median(cold.ours), unit: 'ms', note: `median of Swath's ${cold.ours.length} loads of those pairs (${spread(cold.ours, 0)}); target <= 800` },
      {
        name: 'pan-frame-median-ms',
        value: frameMedian,
        unit: 'ms',
        note: `5,000 geometries, ${result.deltas.length} rAF frames uncapped; p95 ${percentile(result.deltas, 95).toFixed(1)} ms; without the geometries ${median(baseline.deltas).toFixed(1)} ms; map compose median ${median(result.compose).toFixed(2)} ms; drawn in ${Math.round(result.drawMs)} ms; target <= 8`,
      },
    ];
  } finally {
    await ws.close();
    reference.server.close();
    rmSync(referenceDir, { recursive: true, force: true });
    cleanup();
  }
}
