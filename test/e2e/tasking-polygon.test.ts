import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { daysFromToday, importAoi, setDate, startTaskingHarness, type TaskingHarness } from '../renderer/features/tasking/e2e-harness';
import { ANSWER_STYLES } from '../simulator/helpers';
import { chromiumAvailable } from './chromium';

const HAS_CHROMIUM = chromiumAvailable();
// Away from the simulator's seeded demo orders, so every date found belongs to the new order.
const MUNICH = 'POLYGON((11.50 48.10, 11.60 48.10, 11.60 48.17, 11.50 48.17, 11.50 48.10))';

describe.skipIf(!HAS_CHROMIUM).each(ANSWER_STYLES)('tasking in Chromium: a polygon historical order (%s answers)', (shapes) => {
  let h: TaskingHarness;
  /** What main asked in its own dialog (the desktop app's; here a stand-in that agrees). */
  const asked: string[] = [];
  beforeAll(async () => {
    h = await startTaskingHarness({ shapes, lifecycle: { review: 2000, preparing: 500, awaiting: 500, processing: 500 }, confirm: async (q) => (asked.push(q.title), true) });
  }, 90_000);
  afterAll(async () => {
    await h?.close();
  });

  it('estimates, places from the estimate, lists it, shows details, and search finds its dates', async () => {
    const { page } = h;
    const from = daysFromToday(-40);
    const to = daysFromToday(-5);
    await importAoi(page, MUNICH);
    await page.locator('[data-testid="order-model"]').waitFor();
    await expect.poll(() => page.locator('[data-testid="order-model"]').inputValue()).toBe('Stratus2');

    // A pasted display name is explained and replaced by the enum value.
    await page.locator('[data-testid="order-model"]').fill('Stratus-2');
    await expect.poll(() => page.locator('[data-testid="model-help"]').innerText()).toMatch(/display name.*enum value Stratus2/);
    await expect(page.locator('[data-testid="estimate-button"]').isDisabled()).resolves.toBe(true);
    await h.shot('tasking-01-model-display-name');
    await page.locator('[data-testid="model-use-suggestion"]').click();
    await expect.poll(() => page.locator('[data-testid="order-model"]').inputValue()).toBe('Stratus2');
    // Required constellations are locked on.
    await expect(page.locator('[data-testid="constellation-Sentinel1"]').isDisabled()).resolves.toBe(true);
    await expect(page.locator('[data-testid="constellation-Sentinel1"]').isChecked()).resolves.toBe(true);

    await page.locator('[data-testid="kind-historical"]').click();
    await setDate(page, 'order-from', from);
    await setDate(page, 'order-to', to);
    await setDate(page, 'order-reference', from);
    await page.locator('[data-testid="order-frequency"]').fill('5');
    await expect.poll(() => page.locator('[data-testid="frequency-label"]').innerText()).toBe('every 5 days');
    await expect.poll(() => page.locator('[data-testid="cadence-preview"]').innerText()).toMatch(/8 dates from/);
    await h.shot('tasking-02-polygon-form');

    await page.locator('[data-testid="estimate-button"]').click();
    await page.locator('[data-testid="estimate-summary"]').waitFor();
    await expect.poll(() => page.locator('[data-testid="estimate-kind"]').innerText()).toBe('Historical');
    await expect.poll(() => page.locator('[data-testid="estimate-calendar"] [data-date]').count()).toBe(8);
    const payload = await page.locator('[data-testid="estimate-payload"]').textContent();
    expect(JSON.parse(payload!)).toMatchObject({ Model: 'Stratus2', From: from, To: to, ImageFrequency: 5, ReferenceDate: from, Wkt: expect.stringMatching(/^POLYGON/) });
    expect(JSON.parse(payload!)).not.toHaveProperty('GeoJson');
    await page.locator('[data-testid="section-estimate"]').scrollIntoViewIfNeeded();
    await h.shot('tasking-03-polygon-estimate');

    await page.locator('[data-testid="place-button"]').click();
    const dialog = page.locator('[data-testid="confirm-place-dialog"]');
    await dialog.waitFor();
    await expect.poll(() => dialog.innerText()).toMatch(/Historical/);
    await expect.poll(() => dialog.locator('[data-testid="confirm-cost"]').innerText()).toMatch(/\d+\.\d\d EUR/);
    await expect.poll(() => dialog.innerText()).toMatch(new RegExp(`One-off historical order for ${from} → ${to}`));
    // One clean breakdown: this order's cost once, no zero lines, the account's month apart; both areas named.
    const lines = await dialog.locator('[data-testid="confirm-cost"] li').evaluateAll((els) => els.map((e) => [e.getAttribute('data-kind'), e.textContent!.trim()]));
    expect(lines.map(([kind]) => kind)).toEqual(['charged']);
    expect(lines[0]![1]).toMatch(/^Charged when placed \(this month\)\s*[\d,]+\.\d\d EUR$/);
    expect(await dialog.locator('[data-testid="confirm-cost"]').innerText()).not.toMatch(/(^|[^\d,])0\.00 EUR|so far/);
    expect(await dialog.getByTestId('confirm-account-month').innerText()).toMatch(/^Costs this month so far \(the account's, not this order's\), as the estimate states it: [\d,]+\.\d\d EUR\.$/);
    expect(await dialog.innerText()).toMatch(/AOI [\d.,]+ km², billed [\d.,]+ km², 8 dates/);
    await h.shot('tasking-04-polygon-confirm');
    // A double click still creates one order.
    await dialog.locator('[data-testid="confirm-place"]').dblclick();
    await page.locator('[data-testid="create-done"]').waitFor({ timeout: 20_000 });
    const id = (await page.locator('[data-testid="created-id"]').innerText()).trim();
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    await expect(page.locator('[data-testid="place-button"]').isDisabled()).resolves.toBe(true);
    const acc = h.sim.state.accounts['demo-key']!;
    expect(acc.orders.filter((o) => o.from === from && o.to === to)).toHaveLength(1);
    // With no budget, an order above the confirmation threshold is asked in main's own dialog too, once.
    expect(asked).toEqual(['Confirm this spend?']);
    await page.locator('[data-testid="create-done"]').scrollIntoViewIfNeeded();
    await h.shot('tasking-05-polygon-created');

    // Listed, with status, period, model and area; details prefilled from the row.
    await page.locator('[data-testid="tab-orders"]').click();
    const row = page.locator(`[data-testid="order-row"][data-order="${id}"]`);
    await row.waitFor();
    await expect.poll(() => row.innerText()).toMatch(new RegExp(`Stratus2[\\s\\S]*${from} → ${to}[\\s\\S]*km²`));
    // A rectangle is billed as it is: the row names the AOI's area and says the billed one is the same.
    expect(await row.getByTestId('order-area').innerText()).toMatch(/^AOI [\d.,]+ km²$/);
    expect(await row.getByTestId('order-billed').innerText()).toBe('billed the same');
    await row.locator('button').first().click();
    const guidInput = page.locator('[data-testid="order-details-form"] input').first();
    await expect.poll(() => guidInput.inputValue()).toBe(id);
    await page.locator('[data-testid="order-details-form"] [data-testid="schema-submit"]').click();
    await page.locator('[data-testid="order-details"]').waitFor();
    await expect.poll(() => page.locator('[data-testid="order-details"]').innerText()).toContain(id);
    await h.shot('tasking-06-polygon-listed-details');

    // Once processed, search dates in this order finds exactly the ordered dates.
    await expect.poll(async () => {
      await page.locator('[data-testid="orders-refresh"]').click();
      return row.locator('[data-testid="order-status"]').innerText();
    }, { timeout: 20_000, interval: 1000 }).toMatch(/Completed|Processing/);
    await page.locator('[data-testid="tab-order"]').click();
    await page.locator('[data-testid="search-dates"]').click();
    await expect.poll(() => page.locator('[data-testid="dates-found"]').innerText(), { timeout: 10_000 }).toMatch(/^8 dates with imagery/);
    const found = await page.locator('[data-testid="dates-calendar"] [data-date]').evaluateAll((els) => els.map((e) => e.getAttribute('data-date')));
    const expected = Array.from({ length: 8 }, (_, i) => daysFromToday(-40 + 5 * i));
    expect(found).toEqual(expected);
    await page.locator('[data-testid="dates-search"]').scrollIntoViewIfNeeded();
    await h.shot('tasking-07-search-dates');
    expect(h.errors).toEqual([]);
  }, 120_000);
});
