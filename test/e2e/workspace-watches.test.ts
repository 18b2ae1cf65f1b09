import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type RunningSimulator } from '../../simulator';
import type { StoredOrder } from '../../simulator/state';
import { ANSWER_STYLES } from '../simulator/helpers';
import { chromiumAvailable } from './chromium';
import { openPanel, openWorkspace, waitForMap, type Workspace } from './workspace-harness';

// Monitoring through the browser host: "Watch this order" on the demo service's recurring order
// (orders processed in seconds, as with --fast-orders; the service's clock moved by the test)
// downloads every existing date into the library, then the new date once the clock has moved on,
// with a notification whose click opens the Library; a monthly budget then stops another watch.

const HAS_CHROMIUM = chromiumAvailable();
const DAY = 86_400_000;

describe.skipIf(!HAS_CHROMIUM).each(ANSWER_STYLES)('workspace e2e: watches, budget and notifications (%s answers)', (shapes) => {
  let ws: Workspace;
  let sim: RunningSimulator;
  const clock = { now: Date.now() };

  beforeAll(async () => {
    ws = await openWorkspace({
      startSimulator: async (o) => {
        sim = await startSimulator({ ...o, shapes, now: () => clock.now, lifecycle: { review: 2000, preparing: 2000, awaiting: 2000, processing: 2000 } });
        return sim;
      },
    });
  });
  afterAll(async () => {
    await ws?.close();
  });

  const demoOrder = (recurring: boolean): StoredOrder => Object.values(sim.state.accounts).find((a) => a.profile.seedDemoOrder)!.orders.find((o) => (o.to == null) === recurring)!;

  async function serviceDates(o: StoredOrder): Promise<string[]> {
    const h = ws.app.handlers as unknown as Record<string, (r: unknown, c: unknown) => Promise<any>>;
    const r = await h['imagery:search']!({ request: { Wkt: o.wkt, From: o.from, Until: o.to, Model: o.model, SatelliteConstellations: o.constellations } }, { senderUrl: 'test://', signal: AbortSignal.timeout(30_000) });
    return [...new Set<string>(r.data.ModelImageDates.flatMap((g: any) => g.DatesByGeog.flatMap((d: any) => d.Dates)))].map((d) => d.slice(0, 10)).sort();
  }

  /** Opens the orders list, picks an order and uses "Watch this order"; the form opens prefilled in Watches. */
  async function watchOrder(o: StoredOrder, name: string): Promise<void> {
    const page = ws.page;
    await openPanel(page, 'tasking');
    await page.getByTestId('tab-orders').click();
    const row = page.locator(`[data-testid="order-row"][data-order="${o.guid}"]`);
    await row.waitFor({ timeout: 20_000 });
    await row.locator('button.row-main').click();
    await page.getByTestId('order-watch').click();
    const form = page.getByTestId('watch-form');
    await form.waitFor({ timeout: 10_000 }).catch(async (e) => {
      throw new Error(`${String(e)}\n${ws.pageErrors.join('\n')}\n${await page.getByTestId('error-view').innerText().catch(() => '')}`);
    });
    // Prefilled from the order: its model, start and the area's UTM zone.
    expect(await page.getByTestId('watch-model').inputValue()).toBe(o.model);
    expect(await page.getByTestId('watch-from').inputValue()).toBe(o.from);
    expect(await page.getByTestId('watch-epsg').inputValue()).toBe('32633');
    await page.getByTestId('watch-name').fill(name);
    await page.getByTestId('watch-resolution').selectOption('640');
    await page.screenshot({ path: `test-results/workspace-watch-form-${shapes}.png` });
    await page.getByTestId('watch-submit').click();
    await form.waitFor({ state: 'detached' });
  }

  const card = (name: string) => ws.page.locator('[data-testid="watch-card"]', { hasText: name });

  it('watches a recurring order: downloads the existing dates, then the new one as the clock moves, with a notification', async () => {
    const page = ws.page;
    await waitForMap(page);
    const order = demoOrder(true);
    const existing = await serviceDates(order);
    expect(existing.length).toBeGreaterThan(3);

    await watchOrder(order, 'Reservoir');
    const c = card('Reservoir');
    await expect.poll(async () => (await c.getByTestId('watch-dates').innerText()).includes(`${existing.length} downloaded`), { timeout: 120_000 }).toBe(true);
    await expect.poll(() => c.getAttribute('data-state'), { timeout: 30_000 }).toBe('active');
    // One notification for the run's dates, not a card per date.
    await expect.poll(() => page.locator('[data-testid="notification"][data-kind="watchDownloaded"]').count(), { timeout: 15_000 }).toBe(1);
    expect(await page.locator('[data-testid="notification"][data-kind="watchDownloaded"]').innerText()).toContain(`${existing.length} new dates`);
    await page.screenshot({ path: 'test-results/workspace-watches.png' });

    // A week later the order has one more image date; the watch picks it up.
    clock.now += 7 * DAY;
    const later = await serviceDates(order);
    const fresh = later.filter((d) => !existing.includes(d));
    expect(fresh).toHaveLength(1);
    await c.getByTestId('watch-run').click();
    await expect.poll(async () => (await c.getByTestId('watch-dates').innerText()).includes(`${later.length} downloaded`), { timeout: 60_000 }).toBe(true);
    const note = page.locator('[data-testid="notification"][data-kind="watchDownloaded"]', { hasText: fresh[0]! });
    await note.waitFor({ timeout: 15_000 });
    await page.screenshot({ path: 'test-results/workspace-watches-notification.png' });

    // The notification opens the Library with that date's raster on the map.
    await note.locator('button.open').click();
    await page.locator('nav[aria-label="Panels"] [data-panel="library"][aria-current="page"]').waitFor();
    const entries = (await (ws.app.handlers as any)['library:query']({ limit: 500 }, { senderUrl: 'test://', signal: AbortSignal.timeout(5000) })).entries as { date: string | null }[];
    expect(entries.filter((e) => e.date !== null).map((e) => e.date).sort()).toEqual(later);
    expect(ws.pageErrors).toEqual([]);
  });

  it('stops a watch at the monthly budget, with a notice and nothing downloaded', async () => {
    const page = ws.page;
    // Every further download of the historical demo order costs credit.
    demoOrder(false).downloadsUsed = 1000;
    await openPanel(page, 'watches');
    await page.getByTestId('budget-input').fill('0.01');
    await page.getByTestId('budget-save').click();
    await expect.poll(async () => page.getByTestId('watches-spend').innerText()).toContain('0.01 EUR budget');

    const before = (await (ws.app.handlers as any)['library:query']({ limit: 500 }, { senderUrl: 'test://', signal: AbortSignal.timeout(5000) })).entries.length;
    await watchOrder(demoOrder(false), 'Budgeted field');
    const c = card('Budgeted field');
    await expect.poll(() => c.getAttribute('data-state'), { timeout: 60_000 }).toBe('paused');
    expect(await c.getByTestId('watch-notice').innerText()).toMatch(/Paused at the monthly budget: \d{4}-\d{2}-\d{2} costs [\d.]+ EUR/);
    expect(await c.getByTestId('watch-dates').innerText()).toContain('0 downloaded');
    await page.locator('[data-testid="notification"][data-kind="watchAttention"]').first().waitFor({ timeout: 15_000 });
    // Going past the budget needs main's native dialog, which the browser host does not have.
    await c.getByTestId('watch-past-cap').click();
    await expect.poll(async () => page.locator('[data-testid="watches-panel"] .error, [data-testid="watches-panel"] [role="alert"]').first().innerText().catch(() => '')).toContain('raise the cap or the budget');
    expect(await c.getAttribute('data-state')).toBe('paused');
    const after = (await (ws.app.handlers as any)['library:query']({ limit: 500 }, { senderUrl: 'test://', signal: AbortSignal.timeout(5000) })).entries.length;
    expect(after).toBe(before);
    await c.scrollIntoViewIfNeeded();
    await page.screenshot({ path: 'test-results/workspace-watches-budget.png' });
  });
});
