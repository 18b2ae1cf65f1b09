import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { openPanel, waitForMapStill } from '../e2e/workspace-harness';
import { withAppHost } from './app-host.js';
import { median, spread, type Figure } from './method.js';

/**
 * The orders list at scale: the demo service (the simulator, its default order lifecycle,
 * so statuses move on while the bench runs) is given SWATH_BENCH_ORDERS (default 1,000) orders through
 * its real HTTP API (estimate, then create with the same body: 0.05° squares over Europe, historical
 * and recurring). The real app core behind the browser host, Chromium with the Tasking panel's orders
 * list open; the panel's own 10-second poll runs SWATH_BENCH_ORDER_POLLS (default 5) times:
 *  - orders-poll-long-task-ms: the longest long task (PerformanceObserver 'longtask') from 3 s before to
 *    1 s after each poll's list update in the page, the worst poll; the note gives each poll's;
 *  - orders-dom-nodes: elements in the orders tab with the list drawn.
 * SWATH_BENCH_SHOTS saves a screenshot of the panel. Figures are printed, never asserted.
 */

const DAY = 86_400_000;
const iso = (t: number) => new Date(t).toISOString().slice(0, 10);

/** Creates n orders for the key over the service's HTTP API, as the app would (estimate, then the same body). */
async function seedOrders(url: string, key: string, n: number): Promise<void> {
  const today = Date.now();
  const post = async (p: string, body: unknown) => {
    const r = await fetch(new URL(p, url), { method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    if (!r.ok) throw new Error(`${p}: ${r.status} ${(await r.text()).slice(0, 300)}`);
  };
  for (let i = 0; i < n; i++) {
    const x = -5 + (i % 60) * 0.5;
    const y = 38 + Math.floor(i / 60) * 0.5;
    const recurring = i % 4 === 0;
    const from = iso(today - (30 + (i % 60)) * DAY);
    const body = {
      Wkt: `POLYGON((${x} ${y}, ${x + 0.05} ${y}, ${x + 0.05} ${y + 0.05}, ${x} ${y + 0.05}, ${x} ${y}))`,
      Model: 'Stratus2', SatelliteConstellations: ['Sentinel1', 'Sentinel2'], ImageFrequency: 7, ReferenceDate: from,
      From: from, To: recurring ? null : iso(today - 3 * DAY), StorageMonths: 6, ApiRequests: 10,
    };
    await post('/api/tasking/orders/estimate', body);
    await post('/api/tasking/orders', { ...body, TileDeduplication: false });
  }
}

// Runs in the page as text: a bundler's helpers (e.g. esbuild's __name) must not leak into it.
// Records long tasks and the times the orders list's "last HH:MM:SS UTC" hint changes (a poll answered and drawn).
const OBSERVE_SCRIPT = `(() => {
  const rec = { tasks: [], updates: [] };
  window.__ordersBench = rec;
  new PerformanceObserver((list) => { for (const e of list.getEntries()) rec.tasks.push({ start: e.startTime, duration: e.duration }); }).observe({ type: 'longtask' });
  const hint = [...document.querySelectorAll('[data-testid=tasking-orders] p.hint')].find((p) => /Refreshes every/.test(p.textContent));
  let last = hint.textContent;
  new MutationObserver(() => {
    if (hint.textContent !== last) { last = hint.textContent; rec.updates.push(performance.now()); }
  }).observe(hint, { subtree: true, characterData: true, childList: true });
})()`;

export async function benchOrders(): Promise<Figure[]> {
  const n = Number(process.env.SWATH_BENCH_ORDERS ?? 1000);
  const polls = Number(process.env.SWATH_BENCH_ORDER_POLLS ?? 5);
  const shots = process.env.SWATH_BENCH_SHOTS;
  return withAppHost('orders', () => undefined, async ({ service, newPage }) => {
    const t = performance.now();
    await seedOrders(service.url, service.key, n);
    const seedS = (performance.now() - t) / 1000;

    const page = await newPage();
    await openPanel(page, 'tasking');
    await page.getByTestId('tab-orders').click();
    // The list answered (the demo service's two seeded orders come with ours).
    await page.waitForFunction((want) => /\d/.test(document.querySelector('[data-testid=tab-orders] .count')?.textContent ?? '') &&
      Number(document.querySelector('[data-testid=tab-orders] .count')!.textContent) >= want, n, { timeout: 120_000 });
    await waitForMapStill(page);
    await page.evaluate(OBSERVE_SCRIPT);
    // SWATH_BENCH_PROFILE=<file>: a CPU profile (Chromium's sampling profiler, 1 ms) of the page over the polls.
    const profileTo = process.env.SWATH_BENCH_PROFILE;
    const cdp = profileTo ? await page.context().newCDPSession(page) : null;
    if (cdp) {
      await cdp.send('Profiler.enable');
      await cdp.send('Profiler.setSamplingInterval', { interval: 1000 });
      await cdp.send('Profiler.start');
    }
    await page.waitForFunction((k) => ((window as unknown as { __ordersBench: { updates: number[] } }).__ordersBench.updates.length >= k), polls, { timeout: (polls + 2) * 15_000, polling: 500 });
    // One more second after the last update for its tail.
    await page.evaluate(() => new Promise((resolve) => setTimeout(resolve, 1000)));
    if (cdp && profileTo) {
      const { profile } = await cdp.send('Profiler.stop');
      writeFileSync(profileTo, JSON.stringify(profile));
    }
    const rec = await page.evaluate(() => (window as unknown as { __ordersBench: { tasks: { start: number; duration: number }[]; updates: number[] } }).__ordersBench);
    const perPoll = rec.updates.slice(0, polls).map((u) => Math.max(0, ...rec.tasks.filter((x) => x.start >= u - 3000 && x.start <= u + 1000).map((x) => x.duration)));
    const listed = await page.evaluate(() => document.querySelector('[data-testid=tab-orders] .count')?.textContent ?? '?');
    const nodes = await page.evaluate(() => document.querySelectorAll('[data-testid=tasking-orders] *').length);
    if (shots) {
      mkdirSync(shots, { recursive: true });
      await page.screenshot({ path: path.join(shots, `orders-${n}.png`) });
    }
    await page.context().close();
    return [
      {
        name: 'orders-poll-long-task-ms', value: Math.round(Math.max(...perPoll)), unit: 'ms',
        note: `longest long task around each of ${perPoll.length} polls of ${listed} orders (Tasking → Orders open, browser host, headless Chromium), worst poll; per poll ${perPoll.map((p) => Math.round(p)).join(', ')} (median ${Math.round(median(perPoll))}, ${spread(perPoll, 0)}); ${rec.tasks.length} long tasks in all; seeded over HTTP in ${seedS.toFixed(1)} s; target ≤ 50 ms`,
      },
      { name: 'orders-dom-nodes', value: nodes, unit: 'nodes', note: `elements in the orders tab with ${listed} orders listed` },
    ];
  });
}
