import { beforeAll, expect, it } from 'vitest';
import { openPanel } from './workspace-harness';
import { describeEachStyle } from './workspace-styles';

const money = (s: string) => Number(s.replace(/[^\d.-]/g, ''));

// The answers' field names are the service's business (they differ between the styles):
// the figures are found by what their names say, case-insensitively.
const BALANCE = '[data-figure*="balance" i]:not([data-figure*="opening" i])';

describeEachStyle('workspace e2e: billing', (ws, shapes) => {
  beforeAll(async () => {
    await openPanel(ws().page, 'billing');
  });

  it('shows a month of billing as sortable tables with totals', async () => {
    const page = ws().page;
    await page.locator(BALANCE).waitFor({ timeout: 20_000 });
    // Step back to the month of the demo account's seeded order.
    const orders = page.getByTestId('billing-orders-table');
    for (let i = 0; i < 8 && !(await orders.count()); i++) {
      await page.getByRole('button', { name: 'Previous month' }).click();
      await page.waitForFunction(() => !document.body.innerText.includes('Loading orders'), undefined, { timeout: 15_000 });
    }
    await orders.waitFor({ timeout: 5_000 });
    const month = await page.getByTestId('billing-month-input').inputValue();
    expect(month).toMatch(/^\d{4}-\d{2}$/);
    expect(await orders.locator('tbody tr').count()).toBeGreaterThan(0);
    expect(await orders.getByTestId('totals').innerText()).toMatch(/EUR/);
    await page.screenshot({ path: `test-results/workspace-billing-orders-${shapes}.png` });

    await page.getByTestId('tab-transactions').click();
    const tx = page.getByTestId('billing-transactions-table');
    await tx.waitFor();
    const rows = await tx.locator('tbody tr').count();
    expect(rows).toBeGreaterThan(0);
    const totals = await tx.getByTestId('totals').innerText();
    expect(totals).toMatch(/-?[\d,]+\.\d\d EUR/);
    // The service's own total agrees with the column total.
    const serviceTotal = await page.locator('[data-field="total" i]').innerText();
    expect(totals).toContain(serviceTotal.trim());
    // Sorting by a column changes the order and marks the header.
    await tx.locator('[data-col="amount" i]').click();
    expect(await tx.locator('th[aria-sort="ascending"]').innerText()).toMatch(/amount/i);
    await page.screenshot({ path: `test-results/workspace-billing-transactions-${shapes}.png` });
  });

  it('redeems a voucher, refreshes the balance, and refuses the same voucher the second time', async () => {
    const page = ws().page;
    const balance = page.locator(BALANCE);
    const before = money(await balance.innerText());
    const form = page.getByTestId('voucher-form');
    await form.locator('input').fill('SWATH-DEMO-50');
    await form.getByTestId('schema-submit').click();
    await page.getByTestId('voucher-result').waitFor({ timeout: 20_000 });
    expect(await page.getByTestId('voucher-result').innerText()).toContain('50.00 EUR');
    await expect.poll(async () => money(await balance.innerText())).toBeCloseTo(before + 50, 2);
    await page.getByTestId('billing-voucher').scrollIntoViewIfNeeded();
    await page.screenshot({ path: `test-results/workspace-voucher-redeemed-${shapes}.png` });

    await form.locator('input').fill('SWATH-DEMO-50');
    await form.getByTestId('schema-submit').click();
    // The refusal is shown at the body's one field, whatever the spec calls it.
    const fieldError = form.locator('[data-field] [data-testid="field-error"]');
    await fieldError.waitFor({ timeout: 20_000 });
    expect(await fieldError.innerText()).toMatch(/already redeemed/);
    expect(await page.getByTestId('voucher-result').count()).toBe(0);
    expect(money(await balance.innerText())).toBeCloseTo(before + 50, 2);
    await page.screenshot({ path: `test-results/workspace-voucher-refused-${shapes}.png` });
    expect(ws().pageErrors).toEqual([]);
  });
});
