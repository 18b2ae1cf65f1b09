import { defineStore } from 'pinia';
import { computed, ref, watch } from 'vue';
import { monthUtc } from '../../../platform/lib/format';
import { createRequest } from '../../../platform/request';
import { useAccountStore } from '../../account';
import { useOperationsStore } from '../../../platform/stores/operations';
import { useSessionStore } from '../../../platform/stores/session';

type Data = { data: unknown };

/**
 * Billing: the current month's summary, orders and transactions of a chosen
 * month (YYYY-MM, UTC), and voucher redemption through the spec-built
 * operation; a redeemed voucher refreshes the summary, the month and the account.
 */
export const useBillingStore = defineStore('billing', () => {
  const session = useSessionStore();
  const operations = useOperationsStore();
  const account = useAccountStore();
  const summary = createRequest<Data>();
  const orders = createRequest<Data>();
  const transactions = createRequest<Data>();
  const voucher = createRequest<unknown>();
  const month = ref(monthUtc());
  const voucherError = computed(() => voucher.error);

  function ym(): { year: number; month: number } {
    const [y, m] = month.value.split('-').map(Number);
    return { year: y!, month: m! };
  }

  async function loadSummary(): Promise<void> {
    await summary.run((bridge) => bridge.billingSummary());
  }

  async function loadMonth(): Promise<void> {
    const period = ym();
    await Promise.all([
      orders.run((bridge) => bridge.billingOrders(period)),
      transactions.run((bridge) => bridge.billingTransactions(period)),
    ]);
  }

  async function setMonth(value: string): Promise<void> {
    if (!/^\d{4}-\d{2}$/.test(value)) return;
    month.value = value;
    await loadMonth();
  }

  /** Redeems a voucher with the body the spec's form produced; refreshes balances on success. */
  async function redeem(body: Record<string, unknown>): Promise<boolean> {
    const r = await voucher.run(operations.call('billing.redeemVoucher', { body }));
    if (r.ok) await Promise.all([loadSummary(), loadMonth(), account.load(true), session.refreshStatus()]);
    return r.ok;
  }

  watch(() => session.generation, () => {
    summary.reset();
    orders.reset();
    transactions.reset();
    voucher.reset();
  });

  return { summary, orders, transactions, voucher, voucherError, month, loadSummary, loadMonth, setMonth, redeem };
});
