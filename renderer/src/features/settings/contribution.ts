import type { Contribution } from '../../platform/contributions';

/** Settings: its panel. */
export default {
  feature: 'settings',
  panel: {
    id: 'settings',
    name: 'Settings',
    icon: 'settings',
    keys: '7',
    summary: 'Service profiles and keys, download folder, theme, map layers.',
    load: () => import('./views/SettingsPanel.vue'),
  },
} satisfies Contribution;
