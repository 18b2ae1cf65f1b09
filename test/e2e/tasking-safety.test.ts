import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { daysFromToday, importAoi, setDate, startTaskingHarness, type TaskingHarness } from '../renderer/features/tasking/e2e-harness';
import { NO_FAULTS } from '../../simulator/faults';
import { chromiumAvailable } from './chromium';

const HAS_CHROMIUM = chromiumAvailable();
const HAMBURG = 'POLYGON((9.95 53.52, 10.05 53.52, 10.05 53.58, 9.95 53.58, 9.95 53.52))';

describe.skipIf(!HAS_CHROMIUM)('tasking in Chromium: placing is safe', () => {
  let h: TaskingHarness;
  const from = daysFromToday(-30);
  const to = daysFromToday(-2);
  const orderCount = () => h.sim.state.accounts['demo-key']!.orders.length;

  const faults = { ...NO_FAULTS };
  beforeAll(async () => {
    h = await startTaskingHarness({ lifecycle: { review: 60_000 }, faults });
    await importAoi(h.page, HAMBURG);
    await h.page.locator('.chip.on', { hasText: 'Stratus2' }).first().waitFor();
  }, 90_000);
  afterAll(async () => {
    await h?.close();
  });

  async function fillAndEstimate(frequency: string): Promise<void> {
    const { page } = h;
    await page.locator('[data-testid="kind-historical"]').click();
    await setDate(page, 'order-from', from);
    await setDate(page, 'order-to', to);
    await setDate(page, 'order-reference', from);
    await page.locator('[data-testid="order-frequency"]').fill(frequency);
    // The form may hold an estimate of these very values already (Place enabled before this one is
    // answered): wait for the service to record this estimate and for the window to have its answer
    // (Estimate is disabled while it waits), or a later estimate from outside could land first.
    const account = h.sim.state.accounts['demo-key']!;
    const seen = account.lastEstimate;
    await page.locator('[data-testid="estimate-button"]').click();
    await expect.poll(() => account.lastEstimate !== seen).toBe(true);
    await expect.poll(() => page.locator('[data-testid="estimate-button"]').isEnabled()).toBe(true);
    await expect.poll(() => page.locator('[data-testid="place-button"]').isEnabled()).toBe(true);
  }

  it('an edited form cannot be placed until it is estimated again', async () => {
    const { page } = h;
    await fillAndEstimate('7');
    const before = orderCount();
    const payload = await page.locator('[data-testid="estimate-payload"]').textContent();

    await setDate(page, 'order-to', daysFromToday(-1));
    await expect.poll(() => page.locator('[data-testid="place-button"]').isDisabled()).toBe(true);
    await expect.poll(() => page.locator('[data-testid="stale-notice"]').innerText()).toMatch(/Edited since the estimate: To/);
    await expect.poll(() => page.locator('[data-testid="place-blocked"]').innerText()).toMatch(/Edited since the estimate/);
    // Even a forced click on the disabled button opens nothing and sends nothing.
    await page.locator('[data-testid="place-button"]').click({ force: true });
    expect(await page.locator('[data-testid="confirm-place-dialog"]').count()).toBe(0);
    // The kept payload is still the estimated one.
    expect(await page.locator('[data-testid="estimate-payload"]').textContent()).toBe(payload);
    await page.locator('[data-testid="stale-notice"]').scrollIntoViewIfNeeded();
    await h.shot('tasking-20-edited-needs-estimate');

    // Editing a field back to the estimated value makes the estimate valid again; a new value needs a new estimate.
    await setDate(page, 'order-to', to);
    await expect.poll(() => page.locator('[data-testid="place-button"]').isEnabled()).toBe(true);
    await page.locator('[data-testid="order-storage"]').fill('2');
    await expect.poll(() => page.locator('[data-testid="place-button"]').isDisabled()).toBe(true);
    await page.locator('[data-testid="estimate-button"]').click();
    await expect.poll(() => page.locator('[data-testid="place-button"]').isEnabled()).toBe(true);
    expect(JSON.parse((await page.locator('[data-testid="estimate-payload"]').textContent())!)).toMatchObject({ StorageMonths: 2 });
    expect(orderCount()).toBe(before);
  }, 60_000);

  it('a create/estimate mismatch forced at the service shows its 400 next to the fields', async () => {
    const { page } = h;
    await fillAndEstimate('7');
    const before = orderCount();
    const payload = JSON.parse((await page.locator('[data-testid="estimate-payload"]').textContent())!) as Record<string, unknown>;
    // Someone (another window, a script) estimates another order with the same key in between.
    const res = await fetch(`${h.sim.url}/api/tasking/orders/estimate`, {
      method: 'POST', headers: { 'x-api-key': h.key, 'content-type': 'application/json' },
      body: JSON.stringify({ ...payload, ImageFrequency: 3, ReferenceDate: daysFromToday(-29) }),
    });
    expect(res.status).toBe(200);

    await page.locator('[data-testid="place-button"]').click();
    await page.locator('[data-testid="confirm-place"]').click();
    await page.locator('[data-testid="create-failed"]').waitFor();
    const freq = page.locator('[data-field="ImageFrequency"] [data-testid="field-error"]');
    await expect.poll(() => freq.innerText()).toMatch(/Differs from the last estimated order \(estimated 3, sent 7\)/);
    await expect.poll(() => page.locator('[data-field="ReferenceDate"] [data-testid="field-error"]').innerText()).toMatch(/Differs from the last estimated order/);
    await expect.poll(() => page.locator('[data-testid="place-button"]').isDisabled()).toBe(true);
    await expect.poll(() => page.locator('[data-testid="stale-notice"]').innerText()).toMatch(/refused this payload/);
    expect(orderCount()).toBe(before);
    await page.locator('[data-field="ImageFrequency"]').scrollIntoViewIfNeeded();
    await h.shot('tasking-21-mismatch-400-fields');
    await page.locator('[data-testid="create-failed"]').scrollIntoViewIfNeeded();
    await h.shot('tasking-22-mismatch-400-outcome');

    // Estimating again clears the service's reasons and places the order.
    await page.locator('[data-testid="estimate-button"]').click();
    await expect.poll(() => freq.count()).toBe(0);
    await page.locator('[data-testid="place-button"]').click();
    await page.locator('[data-testid="confirm-place"]').click();
    await page.locator('[data-testid="create-done"]').waitFor();
    expect(orderCount()).toBe(before + 1);
    expect(h.errors).toEqual([]);
  }, 60_000);

  it('after a failed create whose outcome is unknown, it checks the orders list before offering a retry', async () => {
    const { page } = h;
    await setDate(page, 'order-to', daysFromToday(-3));
    await page.locator('[data-testid="estimate-button"]').click();
    await expect.poll(() => page.locator('[data-testid="place-button"]').isEnabled()).toBe(true);
    const before = orderCount();
    // The service starts failing: the create answers 503 and the orders list cannot be read either.
    faults.error5xx = 1;
    await page.locator('[data-testid="place-button"]').click();
    await page.locator('[data-testid="confirm-place"]').click();
    const unknown = page.locator('[data-testid="create-unknown"]');
    await unknown.waitFor({ timeout: 40_000 });
    await expect.poll(() => unknown.innerText()).toMatch(/could not be read/);
    expect(await page.locator('[data-testid="create-retry"]').count()).toBe(0);
    expect(await page.locator('[data-testid="place-button"]').isDisabled()).toBe(true);
    await unknown.scrollIntoViewIfNeeded();
    await h.shot('tasking-23-unknown-outcome-no-retry');

    // Back online: the list shows no such order, so a retry is offered, and it needs a new confirmation.
    faults.error5xx = 0;
    await page.locator('[data-testid="create-check-again"]').click();
    await expect.poll(() => unknown.innerText(), { timeout: 20_000 }).toMatch(/most likely not created/);
    await h.shot('tasking-24-unknown-outcome-retry-offered');
    expect(orderCount()).toBe(before);
    await page.locator('[data-testid="create-retry"]').click();
    await page.locator('[data-testid="confirm-place"]').click();
    await page.locator('[data-testid="create-done"]').waitFor({ timeout: 20_000 });
    expect(orderCount()).toBe(before + 1);
  }, 90_000);
});
