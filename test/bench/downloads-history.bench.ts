import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { DownloadQueue, QUEUE_FILE, type DownloadJob } from '../../main/downloads';
import { waitForMapStill } from '../e2e/workspace-harness';
import { withAppHost } from './app-host.js';
import { median, spread, type Figure } from './method.js';

/**
 * The download history at scale: SWATH_BENCH_DOWNLOADS (default 50,000) finished jobs in
 * downloads.json as earlier versions kept it (imported into swath.db on the first start). The real
 * app core behind the browser host, Chromium:
 *  - downloads-history-start-ms: opening the download queue again with that history (main start's share), median of 5;
 *  - downloads-tray-open-ms: from a click on the tray's head to its first row drawn and two frames
 *    painted, fresh page each time, median of 3 (target ≤ 200 ms); downloads-tray-dom-nodes once open.
 * SWATH_BENCH_SHOTS saves a screenshot. Figures are printed, never asserted.
 */

// Runs in the page as text: a bundler's helpers must not leak into it.
const OPEN_SCRIPT = `(async () => {
  const frame = () => new Promise((resolve) => requestAnimationFrame(resolve));
  const t0 = performance.now();
  let row = 0;
  const seen = new MutationObserver(() => { if (!row && document.querySelector('[data-testid=download-job]')) row = performance.now() - t0; });
  seen.observe(document.body, { childList: true, subtree: true });
  document.querySelector('[data-testid=tray-toggle]').click();
  const until = t0 + 120000;
  while (!document.querySelector('[data-testid=download-job]') && performance.now() < until) await frame();
  seen.disconnect();
  await frame();
  await frame();
  return [performance.now() - t0, row];
})()`;

function seedJobs(userData: string, n: number): void {
  const start = Date.parse('2025-01-01T00:00:00Z');
  const states = ['done', 'done', 'done', 'failed', 'cancelled'] as const;
  const jobs: DownloadJob[] = Array.from({ length: n }, (_, i) => {
    const at = new Date(start + i * 60_000).toISOString();
    const state = states[i % states.length]!;
    return {
      id: `bench-job-${i}`, kind: 'composite', targetDir: '/nowhere', state, bytes: 1_000_000, total: 1_000_000, attempts: 1,
      request: { Wkt: 'POLYGON((13.4 52.5, 13.41 52.5, 13.41 52.51, 13.4 52.51, 13.4 52.5))', Date: at.slice(0, 10), Model: 'Stratus2', Bandnames: 'ndvi', Resolution: 10 },
      ...(state === 'done' ? { file: `/nowhere/composite_${i}.tif`, libraryId: `bench-${i}` } : { reason: state === 'failed' ? 'The service could not be reached.' : 'Cancelled.' }),
      createdAt: at, updatedAt: at,
    };
  });
  writeFileSync(path.join(userData, QUEUE_FILE), JSON.stringify({ version: 1, jobs }));
}

export async function benchDownloadsHistory(): Promise<Figure[]> {
  const n = Number(process.env.SWATH_BENCH_DOWNLOADS ?? 50_000);
  const shots = process.env.SWATH_BENCH_SHOTS;
  let userDir = '';
  const seed = (userData: string): void => {
    userDir = userData;
    seedJobs(userData, n);
  };
  return withAppHost('downloads-history', seed, async ({ newPage }) => {
    const starts: number[] = [];
    const source = { fetchBinary: () => Promise.reject(new Error('not in this bench')) };
    for (let i = 0; i < 5; i++) {
      const t = performance.now();
      const q = await DownloadQueue.open({ stateDir: userDir, source, concurrency: 1, autoStart: false });
      starts.push(performance.now() - t);
      await q.close();
    }
    const opens: number[] = [];
    const inDom: number[] = [];
    let nodes = 0;
    for (let i = 0; i < 3; i++) {
      const page = await newPage();
      await waitForMapStill(page);
      await page.getByTestId('tray-toggle').waitFor();
      // Timed in the page: the click, then each frame until a row is drawn, then two frames painted.
      const [open, row] = await page.evaluate(OPEN_SCRIPT) as [number, number];
      opens.push(open);
      inDom.push(row);
      if (i === 2) {
        nodes = await page.evaluate(() => document.querySelectorAll('[data-testid=downloads-tray] *').length);
        if (shots) {
          mkdirSync(shots, { recursive: true });
          await page.screenshot({ path: path.join(shots, `downloads-tray-${n}.png`) });
        }
      }
      await page.context().close();
    }
    return [
      { name: 'downloads-history-start-ms', value: Math.round(median(starts)), unit: 'ms', note: `opening the download queue with ${n} finished jobs (a second connection beside the running app), median of 5: ${spread(starts, 0)}` },
      { name: 'downloads-tray-open-ms', value: Math.round(median(opens)), unit: 'ms', note: `${n} finished jobs: click on the tray's head to its first row drawn and two frames painted, timed in the page (browser host, headless Chromium), fresh page each time, median of 3: ${spread(opens, 0)} (the first row in the DOM after ${spread(inDom, 0)} ms; the rest is painting); target ≤ 200 ms` },
      { name: 'downloads-tray-dom-nodes', value: nodes, unit: 'nodes', note: `elements in the open downloads tray with ${n} finished jobs` },
    ];
  });
}
