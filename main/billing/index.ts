import type { ServiceClient } from '../api';
import type { HandlerTable } from '../ipc';

/** The billing:* channels: the active profile's billing summary, orders and transactions, as the service answers them. */

/** The channels of billing. */
export type BillingChannel = 'billing:summary' | 'billing:orders' | 'billing:transactions';

/** Billing's slice of the channel table, over the active profile's client. */
export function billingHandlers(client: (signal: AbortSignal) => Promise<ServiceClient>): Pick<HandlerTable, BillingChannel> {
  return {
    'billing:summary': async (_r, { signal }) => ({ data: await (await client(signal)).billingSummary(signal) }),
    'billing:orders': async (period, { signal }) => ({ data: await (await client(signal)).billingOrders(period, signal) }),
    'billing:transactions': async (period, { signal }) => ({ data: await (await client(signal)).billingTransactions(period, signal) }),
  };
}
