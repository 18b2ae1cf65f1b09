import type { Contribution } from '../../platform/contributions';

/** Products: its panel. */
export default {
  feature: 'products',
  panel: {
    id: 'products',
    name: 'Products',
    icon: 'products',
    keys: '4',
    summary: 'Satellite products and planned acquisitions over the AOI.',
    load: () => import('./views/ProductsPanel.vue'),
  },
} satisfies Contribution;
