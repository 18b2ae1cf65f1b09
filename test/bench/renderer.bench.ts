import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openWorkspace, waitForMap } from '../e2e/workspace-harness.js';
import type { Figure } from './simulator.bench.js';

/**
 * Renderer benchmarks in Chromium through the browser host (real renderer,
 * real main services, embedded demo simulator):
 * - renderer-cold-start-ms: navigation start to the interactive map (the
 *   first complete frame of the offline basemap), median of fresh contexts;
 * - pan-frame-median-ms: 5,000 result polygons drawn through vector-layers,
 *   then programmatic panning as a drag does it (interaction hint set), frame
 *   times from requestAnimationFrame with the frame rate uncapped, so a frame
 *   takes what its work takes rather than the 16.7 ms vsync slot.
 */

const COLD_RUNS = 5;
const PAN_FRAMES = 180;

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

function percentile(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
}

function build(): { dir: string; cleanup: () => void } {
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
  const { dir, cleanup } = build();
  const ws = await openWorkspace({
    buildDir: dir,
    noPage: true,
    viewport: { width: 1440, height: 900 },
    chromiumArgs: ['--disable-gpu-vsync', '--disable-frame-rate-limit'],
  });
  try {
    // Cold start: each run is a fresh browser context (no cache, no storage).
    const cold: number[] = [];
    for (let i = 0; i < COLD_RUNS + 1; i++) {
      const page = await ws.newPage();
      await waitForMap(page);
      const ms = await page.evaluate(() => performance.getEntriesByName('swath:map-interactive')[0]!.startTime);
      // The first run also pays Chromium's own warm-up; it is not the app's.
      if (i > 0) cold.push(ms);
      await page.context().close();
    }

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
      { name: 'renderer-cold-start-ms', value: median(cold), unit: 'ms', note: `median of ${COLD_RUNS} fresh loads, navigation start to interactive map; target < 1500` },
      {
        name: 'pan-frame-median-ms',
        value: frameMedian,
        unit: 'ms',
        note: `5,000 geometries, ${result.deltas.length} rAF frames uncapped; p95 ${percentile(result.deltas, 95).toFixed(1)} ms; without the geometries ${median(baseline.deltas).toFixed(1)} ms; map compose median ${median(result.compose).toFixed(2)} ms; drawn in ${Math.round(result.drawMs)} ms; target < 16`,
      },
    ];
  } finally {
    await ws.close();
    cleanup();
  }
}
