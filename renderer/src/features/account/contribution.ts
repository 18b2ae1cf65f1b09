import type { Contribution } from '../../platform/contributions';

/** Account: its panel. */
export default {
  feature: 'account',
  panel: {
    id: 'account',
    name: 'Account',
    icon: 'account',
    keys: '6',
    summary: 'Details, settings and request limits of the key in use.',
    load: () => import('./views/AccountPanel.vue'),
  },
} satisfies Contribution;
