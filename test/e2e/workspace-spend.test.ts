import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type RunningSimulator } from '../../simulator';
import type { Account } from '../../simulator/state';
import { daysFromToday } from '../renderer/features/tasking/e2e-harness';
import { chromiumAvailable } from './chromium';
import { BERLIN_WKT, importAoi, openPanel, openWorkspace, waitForMap, type Workspace } from './workspace-harness';

// Main's verdict on the budget, shown where the analyst spends: the imagery estimate, the order
// estimate and its confirmation, and a watch. The browser host has no native dialog, so what the
// verdict says needs confirmation is refused, with the figures, and the account is not charged.
// In the variant answer style: money is recognised by what the fields are, not by their names.

describe.skipIf(!chromiumAvailable())('workspace e2e: main\'s verdict on the budget (variant answers)', () => {
  let ws: Workspace;
  let sim: RunningSimulator;
  const account = (): Account => Object.values(sim.state.accounts).find((a) => a.profile.seedDemoOrder)!;
  const charges = () => account().ledger.filter((e) => e.kind === 'Order' || e.kind === 'Download').length;

  beforeAll(async () => {
    ws = await openWorkspace({
      startSimulator: async (o) => {
        sim = await startSimulator({ ...o, shapes: 'variant' });
        return sim;
      },
    });
    await waitForMap(ws.page);
    // Every download of the demo orders costs credit (their included downloads are used up).
    for (const o of account().orders) o.downloadsUsed = 1000;
    const page = ws.page;
    await openPanel(page, 'watches');
    await page.getByTestId('budget-input').fill('0.01');
    await page.getByTestId('budget-save').click();
    await page.getByTestId('watches-spend').filter({ hasText: '0.01 EUR budget' }).waitFor({ timeout: 15_000 });
  });
  afterAll(async () => {
    await ws?.close();
  });

  it('the imagery estimate shows that a download needs confirmation; the download is refused with the figures', async () => {
    const page = ws.page;
    const before = charges();
    await openPanel(page, 'imagery');
    await importAoi(page, BERLIN_WKT);
    await page.getByTestId('search-dates').click();
    await page.getByTestId('date-calendar').waitFor({ timeout: 20_000 });
    await page.getByTestId('estimate').click();
    const line = page.getByTestId('imagery-spend');
    await expect.poll(() => line.getAttribute('data-decision'), { timeout: 20_000 }).toBe('confirm');
    expect(await line.innerText()).toMatch(/of the 0\.01 EUR budget — over budget/);
    expect(await page.getByTestId('spend-verdict').innerText()).toMatch(/costs \d+\.\d\d EUR; spent this month \(\d{4}-\d\d\) \d+\.\d\d EUR; the monthly budget is 0\.01 EUR/);
    await page.getByTestId('step-estimate').scrollIntoViewIfNeeded();
    await page.screenshot({ path: 'test-results/spend-imagery-estimate.png' });

    await page.getByTestId('download').click();
    const error = page.getByTestId('step-download').locator('[role="alert"], .error').first();
    await expect.poll(() => error.innerText().catch(() => ''), { timeout: 20_000 }).toMatch(/This composite download was not done: .*the monthly budget is 0\.01 EUR/);
    await page.getByTestId('step-download').scrollIntoViewIfNeeded();
    await page.screenshot({ path: 'test-results/spend-imagery-download-refused.png' });
    expect(charges()).toBe(before);
  });

  it('the order estimate and its confirmation show main\'s verdict; placing it is refused and nothing is ordered', async () => {
    const page = ws.page;
    const orders = account().orders.length;
    const before = charges();
    await openPanel(page, 'tasking');
    await page.locator('[data-testid="order-model"]').waitFor();
    await page.locator('[data-testid="kind-historical"]').click();
    const from = daysFromToday(-30);
    await page.getByTestId('order-from').fill(from);
    await page.getByTestId('order-to').fill(daysFromToday(-2));
    await page.getByTestId('order-reference').fill(from);
    await page.getByTestId('estimate-button').click();
    const line = page.getByTestId('estimate-spend');
    await expect.poll(() => line.getAttribute('data-decision'), { timeout: 20_000 }).toBe('confirm');
    expect(await line.innerText()).toMatch(/\+ this \d+\.\d\d EUR = /);
    await page.getByTestId('estimate-summary').scrollIntoViewIfNeeded();
    await page.screenshot({ path: 'test-results/spend-order-estimate.png' });

    await page.getByTestId('place-button').click();
    const dialog = page.getByTestId('confirm-place-dialog');
    await dialog.waitFor();
    expect(await dialog.getByTestId('confirm-spend').getAttribute('data-decision')).toBe('confirm');
    await page.screenshot({ path: 'test-results/spend-order-confirm.png' });
    await dialog.getByTestId('confirm-place').click();
    const failed = page.getByTestId('create-failed');
    await failed.waitFor({ timeout: 20_000 });
    expect(await failed.innerText()).toMatch(/This order was not done: This costs \d+\.\d\d EUR; .*the monthly budget is 0\.01 EUR/);
    await failed.scrollIntoViewIfNeeded();
    await page.screenshot({ path: 'test-results/spend-order-refused.png' });
    expect(account().orders.length).toBe(orders);
    expect(charges()).toBe(before);
  });

  it('a watch pauses at the budget with main\'s figures; going past it is refused here', async () => {
    const page = ws.page;
    const before = charges();
    const o = account().orders.find((x) => x.to != null)!;
    await openPanel(page, 'watches');
    // As a page would: straight to the bridge.
    const created = await page.evaluate(async (input) => {
      const swath = (window as unknown as { swath: { watchesCreate(i: unknown): Promise<{ ok: boolean }> } }).swath;
      return swath.watchesCreate(input);
    }, {
      name: 'Budgeted field', source: { kind: 'order', orderId: o.guid, recurring: false }, area: { Wkt: 'POLYGON((13.40 52.50, 13.43 52.50, 13.43 52.52, 13.40 52.52, 13.40 52.50))' },
      model: o.model, constellations: o.constellations, from: o.from, to: o.to,
      settings: { EpsgProjection: 32633, Bandnames: 'B4,B8', DataType: 'INT16', Resolution: 80, PixelSelectionMode: 'intersect' },
      capEur: null, everyHours: 6,
    });
    expect(created.ok).toBe(true);
    const card = page.locator('[data-testid="watch-card"]').filter({ hasText: 'Budgeted field' });
    await expect.poll(() => card.getAttribute('data-state'), { timeout: 60_000 }).toBe('paused');
    expect(await card.getByTestId('watch-notice').innerText()).toMatch(/Paused at the monthly budget: \d{4}-\d\d-\d\d costs \d+\.\d\d EUR; spent this month .* the monthly budget is 0\.01 EUR/);
    await card.getByTestId('watch-past-cap').click();
    await expect.poll(async () => page.locator('[data-testid="watches-panel"] .error, [data-testid="watches-panel"] [role="alert"]').first().innerText().catch(() => '')).toContain('raise the cap or the budget');
    await card.scrollIntoViewIfNeeded();
    await page.screenshot({ path: 'test-results/spend-watch.png' });
    expect(charges()).toBe(before);
    expect(ws.pageErrors).toEqual([]);
  });
});
