// @vitest-environment jsdom
import { flushPromises, mount } from '@vue/test-utils';
import { createPinia, setActivePinia } from 'pinia';
import { beforeEach, describe, expect, it } from 'vitest';
import { bridgeStandIn, fail, makeBridge, ok } from '../../fake-bridge';
import BillingPanel from '../../../../renderer/src/features/billing/views/BillingPanel.vue';

const fake = bridgeStandIn();

beforeEach(() => setActivePinia(createPinia()));

describe('Billing panel', () => {
  it('shows the month as a table with totals, and redeems a voucher once; the second is refused next to the field', async () => {
    let balance = 100;
    const redeemed = new Set<string>();
    const bridge = makeBridge({
      billingSummary: async () => ok({ data: { Year: 2026, Month: 7, CurrencyCode: 'EUR', EuroBalance: balance } }),
      billingTransactions: async (p) =>
        ok({ data: { Year: p.year, Month: p.month, CurrencyCode: 'EUR', Transactions: [{ Kind: 'Order', Amount: -2529.05 }, { Kind: 'Voucher', Amount: 50 }], Total: -2479.05 } }),
      serviceCall: async (r) => {
        const code = r.body.VoucherCode as string;
        if (redeemed.has(code)) return fail('validation', 'Voucher already redeemed.', { VoucherCode: [`Voucher ${code} was already redeemed.`] });
        redeemed.add(code);
        balance += 50;
        return ok({ data: { VoucherCode: code, CreditAdded: 50, CurrencyCode: 'EUR', EuroBalance: balance } });
      },
    });
    fake.api = bridge.api;
    const w = mount(BillingPanel, { attachTo: document.body });
    await flushPromises();
    expect(w.get('[data-figure="EuroBalance"]').text()).toContain('100.00 EUR');

    await w.get('[data-testid="tab-transactions"]').trigger('click');
    const table = w.get('[data-testid="billing-transactions-table"]');
    expect(table.findAll('tbody tr')).toHaveLength(2);
    expect(table.get('[data-testid="totals"]').text()).toContain('-2,479.05 EUR');

    const input = w.get('[data-testid="voucher-form"] input');
    await input.setValue('SWATH-DEMO-50');
    await w.get('[data-testid="voucher-form"]').trigger('submit');
    await flushPromises();
    expect(bridge.api.serviceCall).toHaveBeenCalledWith({ key: 'billing.redeemVoucher', body: { VoucherCode: 'SWATH-DEMO-50' } });
    expect(w.get('[data-testid="voucher-result"]').text()).toContain('50.00 EUR');
    expect(w.get('[data-figure="EuroBalance"]').text()).toContain('150.00 EUR');

    await w.get('[data-testid="voucher-form"] input').setValue('SWATH-DEMO-50');
    await w.get('[data-testid="voucher-form"]').trigger('submit');
    await flushPromises();
    const field = w.get('[data-testid="voucher-form"] [data-field="VoucherCode"]');
    expect(field.text()).toContain('already redeemed');
    expect(w.find('[data-testid="voucher-result"]').exists()).toBe(false);
    w.unmount();
  });

  it('asks for the chosen month', async () => {
    const bridge = makeBridge();
    fake.api = bridge.api;
    const w = mount(BillingPanel);
    await flushPromises();
    await w.get('[data-testid="billing-month-input"]').setValue('2026-07');
    await flushPromises();
    expect(bridge.api.billingOrders).toHaveBeenLastCalledWith({ year: 2026, month: 7 });
    expect(bridge.api.billingTransactions).toHaveBeenLastCalledWith({ year: 2026, month: 7 });
    expect(w.get('[data-testid="billing-empty"]').text()).toContain('No orders in 2026-07');
  });
});
