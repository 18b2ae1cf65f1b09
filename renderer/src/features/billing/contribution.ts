import type { Contribution } from '../../platform/contributions';

/** Billing: its panel. */
export default {
  feature: 'billing',
  panel: {
    id: 'billing',
    name: 'Billing',
    icon: 'billing',
    keys: '5',
    summary: 'Monthly summary, orders and transactions, vouchers.',
    load: () => import('./views/BillingPanel.vue'),
  },
} satisfies Contribution;
