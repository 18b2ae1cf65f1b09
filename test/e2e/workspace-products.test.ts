import { expect, it } from 'vitest';
import { BERLIN_WKT, importAoi, openPanel } from './workspace-harness';
import { describeEachStyle } from './workspace-styles';

describeEachStyle('workspace e2e: account limits, products and acquisition plans', (ws, shapes) => {
  it('shows the account limits, then products and acquisition plans over the AOI, drawn and listed by date', async () => {
    const page = ws().page;
    await importAoi(page, BERLIN_WKT);
    // Account: limits highlighted, whatever the service calls them.
    await openPanel(page, 'account');
    await expect.poll(() => page.getByTestId('account-limits').innerText(), { timeout: 15_000 }).toContain('2,500 km²');
    await page.screenshot({ path: `test-results/workspace-account-${shapes}.png` });

    await openPanel(page, 'products');
    await page.getByTestId('products-form').getByTestId('schema-submit').click();
    await expect.poll(() => page.getByTestId('product-item').count(), { timeout: 20_000 }).toBeGreaterThan(3);
    await page.getByTestId('product-item').first().hover();
    await page.screenshot({ path: `test-results/workspace-products-${shapes}.png` });
    await page.getByTestId('tab-plans').click();
    await page.getByTestId('plans-form').getByTestId('schema-submit').click();
    await expect.poll(() => page.getByTestId('product-item').count(), { timeout: 20_000 }).toBeGreaterThan(0);
    await page.screenshot({ path: `test-results/workspace-acquisition-plans-${shapes}.png` });
    expect(ws().pageErrors).toEqual([]);
  });
});
